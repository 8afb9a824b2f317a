/**
 * Polling: a reading repeated until what it shows will do or the time is up. The gaps between the
 * readings are short at first, since a simulator or a fast BMC is done in moments, then double up
 * to a bound, so that a slow one is not asked more than that often once the first second or so has
 * passed.
 */

/** The gaps between the readings of a poll: from `firstMs`, doubling up to `maxMs`. */
export function* pollGaps(maxMs: number, firstMs = 25): Generator<number, never> {
  for (let gap = firstMs; ; gap *= 2) yield Math.min(gap, maxMs);
}

/**
 * Reads until `done` holds of the reading or `ms` have passed (one reading at least), and returns
 * the last reading. The pauses use the global timer, which a test's fake clock replaces.
 */
export async function pollFor<T>(read: () => Promise<T>, done: (reading: T) => boolean, ms: number, maxGapMs: number): Promise<T> {
  const deadline = performance.now() + ms;
  const gaps = pollGaps(maxGapMs);
  for (;;) {
    const reading = await read();
    if (done(reading) || performance.now() >= deadline) return reading;
    await new Promise((resolve) => setTimeout(resolve, gaps.next().value));
  }
}
