import { defineConfig } from 'vitest/config';

// The project's own tests. The conformance suites (suites/) are run by `bmc-conformance run`, not here.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
