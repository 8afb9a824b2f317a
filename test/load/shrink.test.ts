/** Shrinking a non-linearizable register history to the few operations that show the violation. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { RegisterHistory, RegisterOperation } from '../../load/verify/history.js';
import { checkLinearizability } from '../../load/verify/linearizability.js';
import { randomLinearizableHistory, withCorruptedRead } from '../../load/verify/random-history.js';
import { readsKeptWithTheirWrites, shrinkHistory } from '../../load/verify/shrink.js';

const op = (client: string, kind: 'write' | 'read', value: unknown, invokedAt: number, returnedAt: number): RegisterOperation => ({
  client,
  kind,
  value,
  invokedAt,
  returnedAt,
  ok: true,
});

/** Leaving out any one kept operation (and the reads that lose their write) makes it linearizable. */
function expectOneMinimal(original: RegisterHistory, kept: number[]): void {
  const closure = readsKeptWithTheirWrites(original);
  for (const drop of kept) {
    const rest = closure(kept.filter((i) => i !== drop));
    const verdict = checkLinearizability({ initial: original.initial, operations: rest.map((i) => original.operations[i]!) }).linearizable;
    expect({ drop, verdict }).toEqual({ drop, verdict: true });
  }
}

describe('shrinking', () => {
  test('a 1,000-operation history with a stale read shrinks to the three operations that show it', () => {
    const clean = randomLinearizableHistory({ operations: 1000, seed: 11, pendingShare: 0.05 });
    const full = withCorruptedRead(clean, 'stale', 11)!;
    const corrupted = full.operations.findIndex((o, i) => o !== clean.operations[i]);
    const shrunk = shrinkHistory(full);
    expect(shrunk.minimal).toBe(true);
    expect(shrunk.kept.length).toBeLessThanOrEqual(4);
    expect(shrunk.kept).toContain(corrupted);
    // The kept operations are the original ones, in their order.
    expect(shrunk.history.operations).toEqual(shrunk.kept.map((i) => full.operations[i]));
    expect([...shrunk.kept].sort((a, b) => a - b)).toEqual(shrunk.kept);
    expect(checkLinearizability(shrunk.history).linearizable).toBe(false);
    expectOneMinimal(full, shrunk.kept);
  });

  test('a read of a value never written shrinks to that read alone', () => {
    const full = withCorruptedRead(randomLinearizableHistory({ operations: 1000, seed: 12 }), 'never-written', 12)!;
    const shrunk = shrinkHistory(full);
    expect(shrunk.history.operations).toHaveLength(1);
    expect(shrunk.history.operations[0]!.value).toMatch(/^never-written-/);
    expectOneMinimal(full, shrunk.kept);
  });

  test('any corrupted random history shrinks to a few operations that keep the corrupted read', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.constantFrom('stale' as const, 'never-written' as const), (seed, how) => {
        const clean = randomLinearizableHistory({ operations: 300, clients: 6, seed, pendingShare: 0.05 });
        const full = withCorruptedRead(clean, how, seed);
        if (!full) return;
        const shrunk = shrinkHistory(full);
        expect(shrunk.minimal).toBe(true);
        expect(shrunk.kept.length).toBeLessThanOrEqual(4);
        expect(shrunk.kept.some((i) => full.operations[i] !== clean.operations[i])).toBe(true);
        expect(checkLinearizability(shrunk.history).linearizable).toBe(false);
        expectOneMinimal(full, shrunk.kept);
      }),
      { numRuns: 10, seed: 29 },
    );
  });

  test('a part that only fails because a write was left out is never taken for the violation', () => {
    // Linearizable as a whole; without the write of 1, the read of 1 alone would look like one.
    const h: RegisterHistory = {
      initial: 0,
      operations: [op('A', 'write', 1, 0, 1), op('B', 'read', 1, 2, 3), op('A', 'write', 2, 4, 5), op('B', 'read', 0, 6, 7)],
    };
    const shrunk = shrinkHistory(h);
    // The read of the initial value after a completed write is the violation: either write and that read.
    const shown = shrunk.history.operations.map((o) => `${o.kind}(${String(o.value)})`);
    expect(shown).toHaveLength(2);
    expect(shown[0]).toMatch(/^write\([12]\)$/);
    expect(shown[1]).toBe('read(0)');
    expect(() => shrinkHistory({ initial: 0, operations: h.operations.slice(0, 3) })).toThrow(/nothing to shrink/);
  });

  test('the shrinker stops at its budget with a smaller failing history', () => {
    const full = withCorruptedRead(randomLinearizableHistory({ operations: 1000, seed: 13 }), 'stale', 13)!;
    const shrunk = shrinkHistory(full, { maxChecks: 3 });
    expect(shrunk.checks).toBe(3);
    expect(shrunk.minimal).toBe(false);
    expect(checkLinearizability(shrunk.history).linearizable).toBe(false);
  });
});
