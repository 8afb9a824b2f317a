/**
 * Histories made by a real sequential register under random overlap, for the checker's tests and
 * its bench: each client sends one operation at a time, each operation takes effect at a random
 * instant between its invocation and its response, and reads return what the register held then.
 * Such a history is linearizable by construction; `withCorruptedRead` makes one that is not.
 */
import type { RegisterHistory, RegisterOperation } from './history.js';

export interface RandomHistoryOptions {
  operations: number;
  /** Concurrent clients (default 8). */
  clients?: number;
  seed?: number;
  /** Share of operations that are writes (default 0.3). */
  writeShare?: number;
  /** Share of writes whose answer never comes (default 0.02); half of them took effect anyway. */
  pendingShare?: number;
  /** Longest operation, in ms (default 4); the gap between a client's operations is up to half that. */
  maxDurationMs?: number;
}

/** A small seeded generator (mulberry32): the same seed gives the same history. */
export function seededRandom(seed: number): () => number {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A linearizable history: written values are 1, 2, 3, … in order of writing; the initial value is 0. */
export function randomLinearizableHistory(options: RandomHistoryOptions): RegisterHistory {
  const rand = seededRandom(options.seed ?? 1);
  const clients = options.clients ?? 8;
  const maxDuration = options.maxDurationMs ?? 4;
  const clock = Array.from({ length: clients }, () => rand() * maxDuration);
  const ops: { op: RegisterOperation; effectAt: number | null }[] = [];
  let written = 0;
  for (let i = 0; i < options.operations; i++) {
    // The client that is free first sends next.
    const c = clock.indexOf(Math.min(...clock));
    const invokedAt = clock[c]!;
    const returnedAt = invokedAt + 0.05 + rand() * maxDuration;
    clock[c] = returnedAt + rand() * (maxDuration / 2);
    const effectAt = invokedAt + rand() * (returnedAt - invokedAt);
    const client = `client-${c + 1}`;
    if (rand() < (options.writeShare ?? 0.3)) {
      const pending = rand() < (options.pendingShare ?? 0.02);
      ops.push({
        op: { client, kind: 'write', value: ++written, invokedAt, returnedAt, ok: !pending },
        effectAt: pending && rand() < 0.5 ? null : effectAt,
      });
    } else {
      ops.push({ op: { client, kind: 'read', value: null, invokedAt, returnedAt, ok: true }, effectAt });
    }
  }
  let register: unknown = 0;
  for (const { op } of [...ops].filter((o) => o.effectAt !== null).sort((a, b) => a.effectAt! - b.effectAt!)) {
    if (op.kind === 'write') register = op.value;
    else op.value = register;
  }
  return { initial: 0, operations: ops.map((o) => o.op) };
}

/**
 * The history with one read changed so that no linearization exists: to a value never written
 * (`never-written`), or to the value of a completed write that a later completed write overwrote
 * before the read was sent (`stale`). Returns undefined when the history has no such read.
 */
export function withCorruptedRead(history: RegisterHistory, how: 'never-written' | 'stale', seed = 1): RegisterHistory | undefined {
  const rand = seededRandom(seed);
  const ops = history.operations;
  const reads = ops.flatMap((op, i) => (op.kind === 'read' && op.ok ? [i] : []));
  const writes = ops.filter((op) => op.kind === 'write');
  const written = new Set(writes.map((w) => JSON.stringify(w.value)));
  // Start at a random read, take the first that fits.
  const start = Math.floor(rand() * reads.length);
  for (let k = 0; k < reads.length; k++) {
    const at = reads[(start + k) % reads.length]!;
    const read = ops[at]!;
    let value: unknown;
    if (how === 'never-written') {
      value = `never-written-${at}`;
    } else {
      const done = writes.filter((w) => w.ok);
      const overwriter = done.filter((w) => w.returnedAt < read.invokedAt).sort((a, b) => b.returnedAt - a.returnedAt)[0];
      const stale = overwriter && done.find((w) => w.returnedAt < overwriter.invokedAt && !sameValueWrittenTwice(writes, w.value));
      if (!stale) continue;
      value = stale.value;
    }
    if (how === 'never-written' && written.has(JSON.stringify(value))) continue;
    return { initial: history.initial, operations: ops.map((op, i) => (i === at ? { ...op, value } : op)) };
  }
  return undefined;
}

function sameValueWrittenTwice(writes: RegisterOperation[], value: unknown): boolean {
  return writes.filter((w) => JSON.stringify(w.value) === JSON.stringify(value)).length > 1;
}
