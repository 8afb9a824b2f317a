/** Runs in the suites' worker before the suites: the run's client settings, its interruption, its reports. */
import { afterEach, beforeEach, inject } from 'vitest';
import { joinRun } from '../run-channel.js';

const run = joinRun(inject('bmc'), inject('runChannel'));

// After a signal no test starts: the one running finishes and restores what it wrote.
beforeEach((ctx) => {
  const skip = run.starts(ctx.task.name);
  if (skip) ctx.skip(skip);
});
afterEach(() => run.ends());
