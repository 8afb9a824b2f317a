/** The single-register linearizability checker of `load --verify`, its random histories and its replay key. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { valueKey, type RegisterHistory, type RegisterOperation } from '../../load/verify/history.js';
import { checkLinearizability, type CheckResult, type Linearized } from '../../load/verify/linearizability.js';
import { randomLinearizableHistory, withCorruptedRead } from '../../load/verify/random-history.js';
import { historyDigest, parseReplayKey, replayKey } from '../../load/verify/replay-key.js';

const W = (client: string, value: unknown, invokedAt: number, returnedAt: number, ok = true): RegisterOperation => ({
  client,
  kind: 'write',
  value,
  invokedAt,
  returnedAt,
  ok,
});
const R = (client: string, value: unknown, invokedAt: number, returnedAt: number, ok = true): RegisterOperation => ({
  client,
  kind: 'read',
  value,
  invokedAt,
  returnedAt,
  ok,
});
const history = (initial: unknown, ...operations: RegisterOperation[]): RegisterHistory => ({ initial, operations });

/**
 * Checks a witness (or a partial linearization) independently of the checker: each operation at
 * most once, every answered one present (for a full witness), real-time order kept, and each read
 * returning the value the register held.
 */
function assertValidOrder(h: RegisterHistory, order: Linearized[], complete: boolean): void {
  const positions = order.map((l) => l.index);
  expect(new Set(positions).size).toBe(positions.length);
  if (complete) {
    const answered = h.operations.flatMap((op, i) => (op.ok ? [i] : []));
    expect(positions.filter((i) => h.operations[i]!.ok).sort((a, b) => a - b)).toEqual(answered);
  }
  // Plain comparisons, one expect at the end: a 1,000-operation witness would make a million expects.
  const problems: string[] = [];
  let value = h.initial;
  order.forEach((l, k) => {
    const op = h.operations[l.index]!;
    if (l.operation !== op) problems.push(`${k}: not the operation at ${l.index}`);
    if (op.kind === 'write') value = op.value;
    else if (valueKey(op.value) !== valueKey(value))
      problems.push(`${k}: read ${valueKey(op.value)} where the register held ${valueKey(value)}`);
    if (valueKey(l.valueAfter) !== valueKey(value)) problems.push(`${k}: valueAfter is not the register's value`);
  });
  // Nothing placed later may have answered before an earlier one was sent.
  let earliestLaterAnswer = Infinity;
  for (let k = order.length - 1; k >= 0; k--) {
    const op = h.operations[order[k]!.index]!;
    if (earliestLaterAnswer < op.invokedAt) problems.push(`${k}: placed after an operation answered before it was sent`);
    if (op.ok) earliestLaterAnswer = Math.min(earliestLaterAnswer, op.returnedAt);
  }
  expect(problems).toEqual([]);
}

function expectLinearizable(h: RegisterHistory): Extract<CheckResult, { linearizable: true }> {
  const result = checkLinearizability(h);
  expect(result.linearizable).toBe(true);
  if (result.linearizable !== true) throw new Error('unreachable');
  assertValidOrder(h, result.order, true);
  return result;
}

function expectNotLinearizable(h: RegisterHistory): Extract<CheckResult, { linearizable: false }> {
  const result = checkLinearizability(h);
  expect(result.linearizable).toBe(false);
  if (result.linearizable !== false) throw new Error('unreachable');
  assertValidOrder(h, result.longest, false);
  expect(result.unplaced).toContain(result.blockedAt);
  for (const l of result.longest) expect(result.unplaced).not.toContain(l.index);
  return result;
}

/** The definition, by brute force: some order of the answered operations and some of the ambiguous writes. */
function bruteForce(h: RegisterHistory): boolean {
  const ops = h.operations.filter((op) => op.ok || op.kind === 'write');
  const ret = (op: RegisterOperation) => (op.ok ? op.returnedAt : Infinity);
  const search = (left: RegisterOperation[], value: unknown): boolean => {
    if (left.every((op) => !op.ok)) return true;
    return left.some((op, i) => {
      if (left.some((o) => ret(o) < op.invokedAt)) return false;
      if (op.kind === 'read' && valueKey(op.value) !== valueKey(value)) return false;
      return search(
        left.filter((_, j) => j !== i),
        op.kind === 'write' ? op.value : value,
      );
    });
  };
  return search(ops, h.initial);
}

describe('histories from the literature', () => {
  // Porcupine, porcupine_test.go TestRegisterModel, taken there from MIT 6.824 (2017) quiz 2, section VII.
  test('Porcupine TestRegisterModel: a read of the new and a read of the old value inside one write', () => {
    expectLinearizable(history(0, W('c0', 100, 0, 100), R('c1', 100, 25, 75), R('c2', 0, 30, 60)));
  });
  test('Porcupine TestRegisterModel: the old value read after the new one was seen', () => {
    const r = expectNotLinearizable(history(0, W('c0', 200, 0, 100), R('c1', 200, 10, 30), R('c2', 0, 40, 90)));
    expect(r.blockedAt).toBe(2);
  });
  // Porcupine, porcupine_test.go TestZeroDuration: operations of no duration, touching others.
  test('Porcupine TestZeroDuration: instantaneous reads', () => {
    expectLinearizable(history(0, W('c0', 100, 0, 100), R('c1', 100, 25, 75), R('c2', 0, 30, 30), R('c3', 0, 30, 30)));
    expectNotLinearizable(history(0, W('c0', 200, 0, 100), R('c1', 200, 10, 10), R('c2', 200, 10, 10), R('c3', 0, 40, 90)));
  });
  // Knossos, test/knossos/wgl_test.clj.
  test('Knossos crash-test: a write that crashed (:info) alone', () => {
    const r = expectLinearizable(history(0, W('p0', 1, 0, 1, false)));
    expect(r.notApplied).toEqual([0]);
  });
  test('Knossos sequential-test: reading the initial value', () => {
    expectLinearizable(history(0, R('p0', 0, 0, 1)));
  });
  test('Knossos preserves-indices-test: a read of 2 after the write of 1 completed', () => {
    const r = expectNotLinearizable(history(0, W('p0', 1, 0, 1), R('p0', 2, 2, 3)));
    expect(r.longest.map((l) => l.index)).toEqual([0]);
    expect(r.blockedAt).toBe(1);
  });
  test('Knossos read-wrong-initial-value-test', () => {
    const r = expectNotLinearizable(history(0, R('p0', 1, 0, 1)));
    expect(r.longest).toEqual([]);
    expect(r.valueAfter).toBe(0);
  });
  // Knossos README, "Concepts": a crashed write of 3, concurrent with a read of 3.
  test('Knossos README: a crashed write explains a concurrent read of its value', () => {
    expectLinearizable(history(null, R('p0', 3, 0, 10), W('p1', 3, 1, 2, false)));
  });
  // Herlihy, Shavit, Luchangco & Spear, The Art of Multiprocessor Programming (2nd ed., 2020),
  // chapter 3 exercise: a two-thread register history sequentially consistent but not linearizable.
  test('Herlihy & Shavit: sequentially consistent, not linearizable', () => {
    expectNotLinearizable(history(0, W('A', 1, 0, 1), W('B', 2, 2, 3), R('A', 1, 4, 5)));
  });
  // Herlihy & Wing 1990, the definition of linearizability: a pending invocation may be completed (it took effect) or dropped.
  test('Herlihy & Wing: a pending write is completed or dropped, whichever the reads need', () => {
    expectLinearizable(history(0, W('A', 1, 0, 1, false), R('B', 1, 5, 6)));
    const dropped = expectLinearizable(history(0, W('A', 1, 0, 1, false), R('B', 0, 5, 6)));
    expect(dropped.notApplied).toEqual([0]);
  });
});

describe('register semantics', () => {
  test('concurrent writes may take effect in either order, but in one order for every reader', () => {
    const writes = [W('A', 1, 0, 10), W('B', 2, 0, 10)];
    expectLinearizable(history(0, ...writes, R('C', 1, 20, 30)));
    expectLinearizable(history(0, ...writes, R('C', 2, 20, 30)));
    expectNotLinearizable(history(0, ...writes, R('C', 1, 20, 30), R('D', 2, 40, 50)));
  });
  test('a stale read after a completed write is not linearizable', () => {
    const r = expectNotLinearizable(history(0, W('A', 1, 0, 10), R('B', 0, 20, 30)));
    expect(r.blockedAt).toBe(1);
    expect(r.longest.map((l) => l.index)).toEqual([0]);
    expect(r.valueAfter).toBe(1);
  });
  test('a read of a value never written is not linearizable', () => {
    const r = expectNotLinearizable(history(0, W('A', 1, 0, 10), R('B', 7, 5, 30)));
    expect(r.unplaced).toEqual([1]);
  });
  test('a read concurrent with a write may return the initial value or the new one', () => {
    expectLinearizable(history(0, W('A', 1, 0, 10), R('B', 0, 5, 15)));
    expectLinearizable(history(0, W('A', 1, 0, 10), R('B', 1, 5, 15)));
    expectLinearizable(history(0, W('A', 1, 0, 10), R('B', 1, 5, 15), R('C', 0, 6, 9)));
    expectNotLinearizable(history(0, W('A', 1, 0, 10), R('B', 1, 5, 7), R('C', 0, 8, 9)));
  });
  test('pending writes explain a read, but not before they were sent', () => {
    // A write the client gave up on at 3 ms took effect later: the read at 20 ms sees it.
    expectLinearizable(history(0, W('A', 5, 0, 3, false), R('B', 5, 20, 30)));
    // Two ambiguous writes, a read of each in an order only one placement allows.
    expectLinearizable(history(0, W('A', 5, 0, 3, false), W('B', 6, 1, 2, false), R('C', 6, 10, 11), R('C', 5, 12, 13)));
    expectNotLinearizable(history(0, R('B', 5, 0, 10), W('A', 5, 20, 30, false)));
    // Once a completed write overwrote it, the ambiguous write cannot come back... unless it took effect after.
    expectLinearizable(history(0, W('A', 5, 0, 1, false), W('B', 6, 2, 3), R('C', 5, 4, 5)));
    expectNotLinearizable(history(0, W('A', 5, 0, 1, false), R('C', 5, 2, 3), W('B', 6, 4, 5), R('C', 5, 6, 7)));
  });
  test('operations touching at one instant overlap', () => {
    expectLinearizable(history(0, W('A', 1, 0, 10), R('B', 0, 10, 12)));
    expectNotLinearizable(history(0, W('A', 1, 0, 10), R('B', 0, 10.001, 12)));
  });
  test('a failed read is dropped', () => {
    expectLinearizable(history(0, W('A', 1, 0, 10), R('B', 99, 20, 30, false)));
  });
  test('values compare as JSON: key order ignored, a bigint equals the same integer', () => {
    expectLinearizable(history({}, W('A', { a: 1, b: [1, { c: null }] }, 0, 1), R('B', { b: [1, { c: null }], a: 1 }, 2, 3)));
    expectLinearizable(history(0, W('A', 2n ** 60n, 0, 1), R('B', 2n ** 60n, 2, 3), W('A', 5n, 4, 5), R('B', 5, 6, 7)));
    expectNotLinearizable(history({ a: 1 }, R('B', { a: '1' }, 2, 3)));
  });
  test('an answered operation whose times no clock gives is refused', () => {
    expect(() => checkLinearizability(history(0, R('A', 0, 5, 4)))).toThrow(/returnedAt/);
    expect(() => checkLinearizability(history(0, W('A', 1, NaN, 4)))).toThrow(/invokedAt/);
  });
  test('the checker agrees with the definition on small histories of any shape', () => {
    const op = fc.record({
      client: fc.constantFrom('A', 'B', 'C'),
      kind: fc.constantFrom('write' as const, 'read' as const),
      value: fc.integer({ min: 0, max: 2 }),
      invokedAt: fc.integer({ min: 0, max: 20 }),
      duration: fc.integer({ min: 0, max: 8 }),
      ok: fc.integer({ min: 0, max: 9 }).map((n) => n < 7),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 8 }), fc.integer({ min: 0, max: 2 }), (raw, initial) => {
        const h = history(
          initial,
          ...raw.map((o) => ({
            client: o.client,
            kind: o.kind,
            value: o.value,
            invokedAt: o.invokedAt,
            returnedAt: o.invokedAt + o.duration,
            ok: o.ok,
          })),
        );
        const result = checkLinearizability(h);
        expect(result.linearizable).toBe(bruteForce(h));
        if (result.linearizable === true) assertValidOrder(h, result.order, true);
      }),
      { numRuns: 500, seed: 29 },
    );
  });
});

describe('random histories of a real register', () => {
  test('1,000 operations of 8 clients with overlap are linearizable, with a valid witness', () => {
    const h = randomLinearizableHistory({ operations: 1000, seed: 7 });
    // Overlap is real: most operations run beside another client's.
    const overlapping = h.operations.filter((a) =>
      h.operations.some((b) => b !== a && b.invokedAt < a.returnedAt && a.invokedAt < b.returnedAt),
    );
    expect(overlapping.length).toBeGreaterThan(500);
    expect(new Set(h.operations.map((o) => o.client)).size).toBe(8);
    expectLinearizable(h);
  });
  test('any seed gives a linearizable history; one corrupted read makes it not', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 2, max: 8 }), (seed, clients) => {
        const h = randomLinearizableHistory({ operations: 1000, clients, seed, pendingShare: 0.05 });
        expectLinearizable(h);
        const never = withCorruptedRead(h, 'never-written', seed)!;
        expectNotLinearizable(never);
        const stale = withCorruptedRead(h, 'stale', seed);
        if (stale) expectNotLinearizable(stale);
      }),
      { numRuns: 8, seed: 29 },
    );
  });
  test('a search longer than its budget ends with unknown, not a verdict', () => {
    const h = withCorruptedRead(randomLinearizableHistory({ operations: 1000, seed: 3 }), 'stale', 3)!;
    expect(checkLinearizability(h).linearizable).toBe(false);
    const result = checkLinearizability(h, { maxSteps: 50 });
    expect(result).toMatchObject({ linearizable: 'unknown', steps: 50 });
    if (result.linearizable === 'unknown') expect(result.reason).toMatch(/50 steps/);
  });
});

describe('replay key', () => {
  test('names a history and gives it back, pending answers and big integers included', () => {
    const h = history(
      0,
      W('client-1', 2n ** 64n, 0.125, 3.3333333333333335),
      R('client-2', { a: [1, 'é<&>'] }, 1e-9, 12345.678901),
      W('c3', 7, 4, Infinity, false),
    );
    const key = replayKey(h);
    expect(key).toMatch(/^lin1\.[A-Za-z0-9_-]+$/);
    expect(parseReplayKey(key)).toEqual(h);
    expect(replayKey(parseReplayKey(key))).toBe(key);
    expect(historyDigest(h)).toMatch(/^[0-9a-f]{64}$/);
    expect(historyDigest(h)).not.toBe(historyDigest({ ...h, initial: 1 }));
    expect(() => parseReplayKey('lin1.bm90IGEga2V5')).toThrow(TypeError);
    expect(() => parseReplayKey('xyz')).toThrow(/lin1\./);
  });

  test("keeps each read's endpoint (attr, the default, stays unnamed)", () => {
    const h = history(
      0,
      W('a', 1, 0, 1),
      { ...R('b', 0, 2, 3), endpoint: 'enumerate' as const },
      { ...R('c', 1, 4, 5), endpoint: 'object' as const },
    );
    const back = parseReplayKey(replayKey(h));
    expect(back.operations.map((o) => o.endpoint)).toEqual([undefined, 'enumerate', 'object']);
    expect(replayKey(h)).toBe(replayKey(back));
  });
});
