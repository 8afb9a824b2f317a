/** The options of an in-process conformance run in a test: what every such run shares, then what the test changes. */
import type { RunOptions } from '../../runner/run.js';

/**
 * The simulator's credentials and namespace, TLS unchecked, nothing named writable, no fault, no
 * factory reset, results.json only and nothing printed; `opts` overrides any of them.
 */
export function testRunOptions(out: string, opts: Partial<RunOptions> = {}): RunOptions {
  return {
    user: 'root',
    password: '0penBmc',
    namespace: 'mgmt_project',
    insecure: true,
    out,
    allowFactoryReset: false,
    writable: [],
    faults: [],
    lean: true,
    print: () => {},
    ...opts,
  };
}
