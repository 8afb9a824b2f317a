/**
 * A timeout that only catches a hang, stretched by BMC_TEST_TIME_FACTOR like vitest.config.ts's
 * defaults, and never below them: a busy runner (CI beside other jobs) is several times slower than
 * an idle machine, and a timeout a slow machine meets is a false failure.
 */
/** The test and hook timeout of every file (vitest.config.ts), before the factor. */
export const DEFAULT_MS = 120_000;

export function timeFactor(): number {
  return Number(process.env.BMC_TEST_TIME_FACTOR) > 0 ? Number(process.env.BMC_TEST_TIME_FACTOR) : 1;
}

export function hangAfter(ms: number): number {
  return Math.max(ms, DEFAULT_MS) * timeFactor();
}
