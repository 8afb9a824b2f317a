/** `bmc-conformance replay`: repeats a failing test of a finished run against a target (runner/replay.ts). */
import { withoutTrailingSlashes } from '../client/trim-end.js';
import { join, resolve } from 'node:path';
import { withUrlCredentials } from '../client/target-url.js';
import { readResults, RESULTS_FILE } from '../report/results-json.js';
import { replay } from '../runner/replay.js';
import { replayExitCode } from '../runner/replay-verdict.js';
import type { TargetFlags } from './target-flags.js';

export interface ReplayFlags extends TargetFlags {
  in: string;
  requirement?: string;
  wait: number;
}

export async function replayCommand(flags: ReplayFlags): Promise<void> {
  const dir = resolve(flags.in);
  // The run's own target unless another is named (the embedded simulator of the run is gone).
  const target = flags.target ?? (await readResults(join(dir, RESULTS_FILE))).target;
  const {
    target: url,
    user,
    password,
  } = withUrlCredentials({ target: withoutTrailingSlashes(target), user: flags.user, password: flags.password });
  const outcome = await replay({
    dir,
    requirement: flags.requirement,
    target: url!,
    user,
    password,
    insecure: flags.insecure,
    timeoutMs: flags.timeout ?? 30_000,
    waitMs: flags.wait,
    print: (line) => process.stdout.write(`${line}\n`),
  });
  process.exitCode = replayExitCode(outcome);
}
