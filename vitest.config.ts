import { defineConfig } from 'vitest/config';

// The project's own tests. The conformance suites (suites/) are run by `bmc-conformance run`, not here.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Three files at once on two cores: the long files (mutation, resilience, dialects) mostly wait.
    maxWorkers: 3,
    // One process per worker for every file it runs: modules load once (a third of the CPU of a
    // test run went to loading them again per file). Tests leave no process-wide state behind.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
