/**
 * Shrinks a non-linearizable history to a handful of operations that are still not linearizable,
 * so that a report shows the violation rather than thousands of operations: Zeller's delta
 * debugging (ddmin, "Simplifying and Isolating Failure-Inducing Input", 2002) over the operations.
 *
 * Any part of a register's history will not do: drop the write of 5 and a read of 5 becomes a
 * "violation" of the part that the whole never had. So each part tried is first made closed: a
 * read is kept only while every write of its value is. Leaving out reads, and writes whose value
 * no kept read returned, never makes a linearizable history non-linearizable (take its
 * linearization and leave the same operations out), so a closed part that fails shows a real
 * violation of the whole.
 *
 * The result is 1-minimal among closed parts: leaving out any one of its operations (and the reads
 * that then lose their write) makes it linearizable, or at least not provably non-linearizable
 * within the checker's step budget.
 */
import { valueKey, type RegisterHistory } from './history.js';
import { checkLinearizability, type CheckOptions } from './linearizability.js';

export interface ShrinkOptions extends CheckOptions {
  /** Checker runs before the shrinker stops with what it has (default 10,000). */
  maxChecks?: number;
}

export interface ShrinkResult {
  history: RegisterHistory;
  /** Positions of the kept operations in the original history. */
  kept: number[];
  checks: number;
  /** False when `maxChecks` ran out: the history is smaller, still failing, but maybe not 1-minimal. */
  minimal: boolean;
}

/** Throws when the history is not (provably) non-linearizable: there is nothing to shrink. */
export function shrinkHistory(history: RegisterHistory, options: ShrinkOptions = {}): ShrinkResult {
  const maxChecks = options.maxChecks ?? 10_000;
  let checks = 0;
  const subset = (kept: number[]): RegisterHistory => ({ initial: history.initial, operations: kept.map((i) => history.operations[i]!) });
  const closure = readsKeptWithTheirWrites(history);
  // "Still failing" means proved non-linearizable; `unknown` counts as passing, so a shrunk history
  // never rests on a search that gave up. A failing part replaces `current` closed.
  let closed: number[] = [];
  const fails = (kept: number[]): boolean => {
    checks++;
    closed = closure(kept);
    return closed.length > 0 && checkLinearizability(subset(closed), options).linearizable === false;
  };

  let current = history.operations.map((_, i) => i);
  if (!fails(current)) throw new Error('the history is not shown non-linearizable: nothing to shrink');
  current = closed;
  let parts = 2;
  let minimal = false;
  while (checks < maxChecks) {
    if (current.length < 2) {
      minimal = true;
      break;
    }
    const chunks = split(current, Math.min(parts, current.length));
    let reduced = false;
    // A chunk alone fails: keep it. Its complement fails: drop the chunk.
    for (const chunk of chunks) {
      if (checks >= maxChecks) break;
      if (chunks.length > 2 && fails(chunk)) {
        current = closed;
        parts = 2;
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      for (let i = 0; i < chunks.length && checks < maxChecks; i++) {
        const complement = chunks.flatMap((c, j) => (j === i ? [] : c));
        if (fails(complement)) {
          current = closed;
          parts = Math.max(parts - 1, 2);
          reduced = true;
          break;
        }
      }
    }
    if (reduced) continue;
    if (checks >= maxChecks) break;
    // Every complement of a single operation passed: 1-minimal.
    if (parts >= current.length) {
      minimal = true;
      break;
    }
    parts = Math.min(parts * 2, current.length);
  }
  return { history: subset(current), kept: current, checks, minimal };
}

/** Drops from a part of the history each read of a value that some write left out of it wrote. */
export function readsKeptWithTheirWrites(history: RegisterHistory): (kept: number[]) => number[] {
  const ops = history.operations;
  const writersOf = new Map<string, number[]>();
  ops.forEach((op, i) => {
    if (op.kind !== 'write') return;
    const key = valueKey(op.value);
    writersOf.set(key, [...(writersOf.get(key) ?? []), i]);
  });
  const keys = ops.map((op) => valueKey(op.value));
  return (kept) => {
    const inPart = new Set(kept);
    return kept.filter((i) => ops[i]!.kind === 'write' || (writersOf.get(keys[i]!) ?? []).every((w) => inPart.has(w)));
  };
}

/** `items` in `n` consecutive chunks of nearly equal size. */
function split<T>(items: T[], n: number): T[][] {
  const chunks: T[][] = [];
  let start = 0;
  for (let i = 0; i < n; i++) {
    const end = start + Math.floor((items.length - start) / (n - i));
    chunks.push(items.slice(start, end));
    start = end;
  }
  return chunks;
}
