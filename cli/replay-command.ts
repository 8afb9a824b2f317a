/** `bmc-conformance replay`: repeats a failing test of a finished run against a target (runner/replay.ts). */
import { withoutTrailingSlashes } from '../client/trim-end.js';
import { join, resolve } from 'node:path';
import { withUrlCredentials } from '../client/target-url.js';
import { readResults, RESULTS_FILE } from '../report/results-json.js';
import { replay } from '../runner/replay.js';
import { replayExitCode } from '../runner/replay-verdict.js';
import type { TargetFlags } from './target-flags.js';

export interface ReplayFlags extends Omit<TargetFlags, 'insecure'> {
  /** Undefined unless --insecure or --no-insecure was given. */
  insecure?: boolean;
  in: string;
  requirement?: string;
  wait: number;
}

export async function replayCommand(flags: ReplayFlags): Promise<void> {
  const dir = resolve(flags.in);
  const results = await readResults(join(dir, RESULTS_FILE));
  // The run's own target unless another is named (the embedded simulator of the run is gone); an
  // empty BMC_URL names none, as for run and load.
  const target = flags.target?.trim() ? flags.target : results.target;
  // The run's --insecure holds for its replay; --insecure or --no-insecure on the command line wins.
  const insecure = flags.insecure ?? results.insecure === true;
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
    insecure,
    timeoutMs: flags.timeout ?? 30_000,
    waitMs: flags.wait,
    print: (line) => process.stdout.write(`${line}\n`),
  });
  process.exitCode = replayExitCode(outcome);
}
