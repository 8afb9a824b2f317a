/**
 * A mutation worker that dies (out of memory, killed, refused to start) is reported as an outcome
 * of its job, not as a crash of the self-test: the parent must not disconnect it a second time.
 */
import { afterEach, expect, test } from 'vitest';
import { runMutation } from '../../runner/mutation/mutation.js';
import { FAULTS } from '../../simulator/faults.js';

const saved = process.env.NODE_OPTIONS;
afterEach(() => {
  if (saved === undefined) delete process.env.NODE_OPTIONS;
  else process.env.NODE_OPTIONS = saved;
});

test('a worker that exits is an ERROR outcome naming the exit; the jobs it left say they never ran', async () => {
  // Node refuses to start with an unknown option: each worker exits before it takes a job.
  process.env.NODE_OPTIONS = '--no-such-option-for-this-test';
  const fault = FAULTS[0]!.name;
  const report = await runMutation({ concurrency: 1, faults: [fault] });
  expect(report.clean.error).toMatch(/^the worker exited \(\d+\)/);
  expect(report.outcomes).toEqual([expect.objectContaining({ fault, verdict: 'ERROR', killed: false, reason: 'never ran' })]);
  expect(report.recall).toBe(0);
});
