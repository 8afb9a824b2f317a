/** Runs in the suites' worker before the suites: the run's client settings, its interruption, its reports. */
import { afterEach, beforeAll, beforeEach, inject } from 'vitest';
import { joinRun } from '../run-channel.js';

const run = joinRun(inject('bmc'), inject('runChannel'));

/** Only a hang is caught: the run lets the first test start once it counted the tests (seconds, on a busy machine). */
const READY_WAIT_MS = 10 * 60_000;

// Before any test of a file is under way (and shown as running): the run's word that it may start.
beforeAll(() => run.ready(), READY_WAIT_MS);

// After a signal no test starts: the one running finishes and restores what it wrote.
beforeEach((ctx) => {
  const skip = run.starts(ctx.task.name);
  if (skip) ctx.skip(skip);
});
afterEach(() => run.ends());
