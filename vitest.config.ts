import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { DEFAULT_MS, hangAfter } from './test/support/hang.js';

/**
 * Files that spawn the CLI or worker processes and signal them: each in a process of its own, so
 * that nothing one leaves behind (a signal handler, a timer, a child) reaches another file.
 */
const SPAWNING = [
  'test/mutation/**/*.test.ts',
  'test/resilience/interrupt.test.ts',
  'test/fleet/**/*.test.ts',
  'test/cli/**/*.test.ts',
  'test/load/cli.test.ts',
  'test/simulator/cli.test.ts',
];

/**
 * Timeouts only catch a hang: generous, since a busy machine (a CI runner beside other jobs) runs
 * these files several times slower than an idle one; BMC_TEST_TIME_FACTOR stretches them further.
 */
const shared = { testTimeout: hangAfter(DEFAULT_MS), hookTimeout: hangAfter(DEFAULT_MS), pool: 'forks' as const };

// The project's own tests. The conformance suites (suites/) are run by `bmc-conformance run`, not here.
export default defineConfig({
  test: {
    // One temporary root for the run, removed at its end (helpers shared by several files use it).
    globalSetup: ['test/support/global-tmp.ts'],
    // Two files more than there are cores: the long files (mutation, resilience, dialects) mostly
    // wait. On two cores, four at once took 262-268 s idle (375-393 s beside two CPU hogs) against
    // 276-302 s (405-414 s) for three.
    maxWorkers: availableParallelism() + 2,
    projects: [
      { test: { ...shared, name: 'spawning', include: SPAWNING } },
      // The other files share their worker processes: modules load once, not once per file
      // (loading them again per file was a sixth of a test run's CPU).
      { test: { ...shared, name: 'units', include: ['test/**/*.test.ts'], exclude: SPAWNING, isolate: false } },
    ],
  },
});
