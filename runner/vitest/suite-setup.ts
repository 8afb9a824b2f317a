/** Runs in the suites' worker before the suites: the run's client settings, its interruption, its reports. */
import { afterEach, beforeAll, beforeEach, inject } from 'vitest';
import { joinRun } from '../run-channel.js';

const run = joinRun(inject('bmc'), inject('runChannel'));

// What a file's hooks and tests read is counted to its area. vitest reads a hook's first argument
// as its fixtures, which must be an object pattern.
// eslint-disable-next-line no-empty-pattern
beforeAll(({}, suite) => run.entersFile(suite.file.filepath));

// After a signal no test starts: the one running finishes and restores what it wrote.
beforeEach((ctx) => {
  const skip = run.starts(ctx.task.name);
  if (skip) ctx.skip(skip);
});
afterEach(() => run.ends());
