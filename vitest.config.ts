import { defineConfig } from 'vitest/config';

// The project's own tests. The conformance suites (suites/) are run by `bmc-conformance run`, not here.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Two files at once: the machines have two cores, and the long files (mutation, dialects) mostly wait.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
