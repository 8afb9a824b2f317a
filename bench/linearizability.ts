/**
 * The linearizability checker of `load --verify`: time to decide random register histories of
 * 1,000 and 10,000 operations (8 clients, overlapping, 2 % of writes unanswered; linearizable by
 * construction, and the same with one stale read), and to shrink a failing 1,000-operation history.
 */
import { performance } from 'node:perf_hooks';
import type { RegisterHistory } from '../load/verify/history.js';
import { checkLinearizability } from '../load/verify/linearizability.js';
import { randomLinearizableHistory, withCorruptedRead } from '../load/verify/random-history.js';
import { shrinkHistory } from '../load/verify/shrink.js';

/** The median of five runs (the first also pays for compiling the checker; a busy machine adds noise). */
function timed<T>(run: () => T): { value: T; ms: number } {
  const times: number[] = [];
  let value: T | undefined;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    value = run();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { value: value!, ms: times[2]! };
}

export async function linearizabilitySpeed(): Promise<void> {
  for (const operations of [1_000, 10_000]) {
    const clean = randomLinearizableHistory({ operations, clients: 8, seed: 29 });
    const stale = withCorruptedRead(clean, 'stale', 29)!;
    const ok = timed(() => checkLinearizability(clean));
    const bad = timed(() => checkLinearizability(stale));
    console.log(
      `linearizability (median of 5), ${operations} operations of 8 clients: linearizable one ${ok.ms.toFixed(1)} ms (${verdict(ok.value)}, ${ok.value.steps} steps), one stale read ${bad.ms.toFixed(1)} ms (${verdict(bad.value)}, ${bad.value.steps} steps)`,
    );
  }
  const failing: RegisterHistory = withCorruptedRead(randomLinearizableHistory({ operations: 1_000, clients: 8, seed: 29 }), 'stale', 29)!;
  const shrunk = timed(() => shrinkHistory(failing));
  console.log(
    `shrinking a failing 1000-operation history (median of 5): ${shrunk.ms.toFixed(0)} ms, ${shrunk.value.checks} checks, ${shrunk.value.kept.length} operations left (${shrunk.value.minimal ? '1-minimal' : 'budget ran out'})`,
  );
  await Promise.resolve();
}

function verdict(result: { linearizable: boolean | 'unknown' }): string {
  return result.linearizable === true ? 'linearizable' : result.linearizable === false ? 'not linearizable' : 'undecided';
}
