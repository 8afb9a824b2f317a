/**
 * Module state that belongs to one run. A worker thread may serve several runs one after another
 * (lean runs keep theirs: runner/vitest/kept-thread.ts), so each module that keeps something for
 * the run registers how to forget it, and the next run's start resets them all.
 */
const resets: Array<() => void> = [];

/** Registers what to forget when the next run starts in this thread. */
export function forgetEachRun(reset: () => void): void {
  resets.push(reset);
}

/** A new run starts in this thread: every module forgets what the last one kept. */
export function startNextRun(): void {
  for (const reset of resets) reset();
}
