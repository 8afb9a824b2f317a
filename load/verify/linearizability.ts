/**
 * Is a register's history linearizable? Wing & Gong's search (1993) with Lowe's memoisation of
 * configurations ("Testing for linearizability", 2017), the algorithm Porcupine and Knossos use:
 * walk the invocations and responses in time order, linearize the first operation whose effect the
 * register allows, backtrack when a response arrives for an operation not yet linearized, and
 * never visit the same (set of linearized operations, register value) configuration twice.
 *
 * Hand-written: no maintained npm package checks linearizability (the registry has none under
 * that name or under Porcupine's or Knossos'; both are Go and Clojure).
 *
 * Not done, on purpose: P-compositionality splits a history by key, and a single register has one
 * key. Splitting one register's history by written value is not safe in general (a read of the
 * initial value constrains every write), so the search takes the whole history, memoised.
 *
 * Conventions, as in the literature (Herlihy & Wing 1990, whose definition completes a history by
 * appending responses to some pending invocations and dropping the others):
 * - an operation precedes another only when its response came strictly before the other's
 *   invocation; operations that touch at one instant are concurrent (as in Porcupine);
 * - a write that failed or never answered may take effect at any time after its invocation or
 *   never. Only a read of its value can tell, so it is given the last such read's response as a
 *   deadline: placed by then, or dropped (it never took effect, or did so when no read could see);
 * - a read that failed or never answered is dropped: it observed nothing.
 */
import { validateHistory, valueKey, type RegisterHistory, type RegisterOperation } from './history.js';

export interface CheckOptions {
  /** Search steps before giving up with `unknown` (default 5,000,000; each is one attempt or backtrack). */
  maxSteps?: number;
}

/** One operation of a (partial) linearization, with the register's value after it. */
export interface Linearized {
  /** Position of the operation in `history.operations`. */
  index: number;
  operation: RegisterOperation;
  valueAfter: unknown;
}

export type CheckResult =
  | {
      linearizable: true;
      /** A witness: an order of operations the register could have applied, meeting real time. */
      order: Linearized[];
      /** Positions of ambiguous writes the witness leaves out (they never took effect, or did so last). */
      notApplied: number[];
      steps: number;
    }
  | {
      linearizable: false;
      /** The longest partial linearization the search reached. */
      longest: Linearized[];
      /** The operation whose response came before any order could place it, past `longest`. */
      blockedAt: number;
      /**
       * Positions of the operations the search could not place after `longest`: those invoked
       * before the blocking response and not in `longest` (the blocking one among them), less
       * the unanswered writes it took as never having taken effect.
       */
      unplaced: number[];
      /** The register's value after `longest`. */
      valueAfter: unknown;
      steps: number;
    }
  | { linearizable: 'unknown'; reason: string; steps: number };

export const DEFAULT_MAX_STEPS = 5_000_000;

/** One invocation or response in the time-ordered doubly linked list the search lifts from. */
interface Entry {
  op: number;
  /** 0: an invocation; 1: a response; 2: a pending write's deadline (see below). */
  rank: 0 | 1 | 2;
  time: number;
  /** The response of a call entry. */
  match: Entry | null;
  prev: Entry | null;
  next: Entry | null;
}

/** An operation as the search sees it: the register values interned to small integers. */
interface Prepared {
  index: number;
  write: boolean;
  /** A write whose answer never came. */
  pending: boolean;
  valueId: number;
  /** Its response, or for a pending write its deadline. */
  until: number;
}

/** An operation placed by the search, with the register's value before it. */
interface Step {
  /** The operation's invocation entry. */
  entry: Entry;
  state: number;
  /** A pending write given up at its deadline: placed as having had no effect. */
  dropped: boolean;
  parent: Step | null;
  depth: number;
}

export function checkLinearizability(history: RegisterHistory, options: CheckOptions = {}): CheckResult {
  validateHistory(history);
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;

  // Intern values: the initial value and each written value get an id; a read of any other value
  // gets -1, which no register state equals.
  const ids = new Map<string, number>();
  const values: unknown[] = [];
  const intern = (v: unknown): void => {
    const key = valueKey(v);
    if (!ids.has(key)) {
      ids.set(key, values.length);
      values.push(v);
    }
  };
  intern(history.initial);
  for (const op of history.operations) if (op.kind === 'write') intern(op.value);

  // A pending write matters only if some read returned its value, and then only up to the last
  // such response (placed later, or never, it changes no read). It gets that moment as a deadline:
  // not placed by then, it is dropped. A pending write nobody read is dropped at once. Without
  // this, each pending write could go anywhere after its invocation, and every one of them would
  // double the configurations to search.
  const lastRead = new Map<number, number>();
  for (const op of history.operations) {
    if (op.kind !== 'read' || !op.ok) continue;
    const id = ids.get(valueKey(op.value)) ?? -1;
    lastRead.set(id, Math.max(lastRead.get(id) ?? -Infinity, op.returnedAt));
  }
  const neverRead: number[] = [];
  // Operations numbered in order of invocation: the set of linearized operations is then a prefix
  // of the numbers plus a few beyond it, which keeps each remembered configuration small.
  const ops: Prepared[] = [];
  history.operations
    .map((op, index) => ({ op, index }))
    .sort((a, b) => a.op.invokedAt - b.op.invokedAt || a.index - b.index)
    .forEach(({ op, index }) => {
      if (op.ok)
        ops.push({ index, write: op.kind === 'write', pending: false, valueId: ids.get(valueKey(op.value)) ?? -1, until: op.returnedAt });
      else if (op.kind === 'write') {
        const valueId = ids.get(valueKey(op.value))!;
        const deadline = lastRead.get(valueId);
        if (deadline === undefined || deadline < op.invokedAt) neverRead.push(index);
        else ops.push({ index, write: true, pending: true, valueId, until: deadline });
      }
    });
  const entries: Entry[] = [];
  const callOf: Entry[] = [];
  ops.forEach((p, n) => {
    const op = history.operations[p.index]!;
    const ret: Entry = { op: n, rank: p.pending ? 2 : 1, time: p.until, match: null, prev: null, next: null };
    callOf.push({ op: n, rank: 0, time: op.invokedAt, match: ret, prev: null, next: null });
    entries.push(callOf[n]!, ret);
  });
  // Time order; at one instant invocations before responses (touching operations overlap), and
  // responses before deadlines (a read answered at a deadline may still use the pending write).
  entries.sort((a, b) => a.time - b.time || a.rank - b.rank || a.op - b.op);
  const head: Entry = { op: -1, rank: 1, time: -Infinity, match: null, prev: null, next: null };
  let tail = head;
  for (const e of entries) {
    tail.next = e;
    e.prev = tail;
    tail = e;
  }

  const cache = new ConfigurationCache(ops.length);
  // The path of the search, as a list from its last step back: a failure keeps a pointer to it.
  let top = null as Step | null;
  let state = 0; // the initial value's id
  let steps = 0;
  let failure: { top: Step | null; blocked: number; unplaced: number[]; state: number } | undefined;

  /** The operations placed on a path, first to last, without the dropped writes. */
  const path = (last: Step | null, stateAfter: number): Frame[] => {
    const list: Frame[] = [];
    let after = stateAfter;
    for (let s = last; s !== null; s = s.parent) {
      if (!s.dropped) list.push({ op: s.entry.op, state: after });
      after = s.state;
    }
    return list.reverse();
  };
  const linearized = (list: Frame[]): Linearized[] =>
    list.map((f) => ({ index: ops[f.op]!.index, operation: history.operations[ops[f.op]!.index]!, valueAfter: values[f.state] }));
  const push = (entry: Entry, dropped: boolean): void => {
    top = { entry, state, dropped, parent: top, depth: (top?.depth ?? 0) + 1 };
  };

  let entry = head.next;
  while (entry !== null) {
    if (++steps > maxSteps) {
      return { linearizable: 'unknown', reason: `search stopped after ${maxSteps} steps (${ops.length} operations)`, steps: maxSteps };
    }
    if (entry.rank === 0) {
      const op = ops[entry.op]!;
      const next = op.write ? op.valueId : state;
      if ((op.write || op.valueId === state) && cache.add(entry.op, next)) {
        push(entry, false);
        state = next;
        lift(entry);
        entry = head.next;
      } else {
        entry = entry.next;
      }
      continue;
    }
    if (entry.rank === 2) {
      // A pending write's deadline: no read can use it any more, so it never took effect.
      const callEntry = callOf[entry.op]!;
      if (cache.add(entry.op, state)) {
        push(callEntry, true);
        lift(callEntry);
        entry = head.next;
        continue;
      }
    }
    // A response (or deadline) whose operation is not placed: this branch is dead. Backtrack.
    if (failure === undefined || (top?.depth ?? 0) > (failure.top?.depth ?? 0)) {
      const unplaced: number[] = [];
      for (let e = head.next; e !== null && e !== entry; e = e.next) if (e.rank === 0) unplaced.push(ops[e.op]!.index);
      failure = { top, blocked: ops[entry.op]!.index, unplaced: unplaced.sort((a, b) => a - b), state };
    }
    // A read placed where it was legal need not be tried later: the register's value is the same
    // wherever the read goes, and nothing unplaced had to precede it (its invocation came before
    // any pending response). Any order placing it later works with it placed first, and that
    // branch failed; so a read's alternatives are skipped and the backtrack goes on to a write.
    // A dropped write has no alternative either: it was dropped only because its deadline came.
    while (top !== null && (top.dropped || !ops[top.entry.op]!.write)) undo(top);
    if (top === null) {
      return {
        linearizable: false,
        longest: linearized(path(failure.top, failure.state)),
        blockedAt: failure.blocked,
        unplaced: failure.unplaced,
        valueAfter: values[failure.state],
        steps,
      };
    }
    const write: Step = top;
    undo(write);
    entry = write.entry.next;
  }

  /** Takes the last step back. */
  function undo(step: Step): void {
    cache.remove(step.entry.op);
    state = step.state;
    unlift(step.entry);
    top = step.parent;
  }

  // Writes whose answer never came, placed after every answered operation, might as well never
  // have taken effect: the witness leaves them out.
  const order = path(top, state);
  while (order.length > 0 && ops[order[order.length - 1]!.op]!.pending) order.pop();
  const placed = new Set(order.map((f) => f.op));
  const dropped = ops.flatMap((p, n) => (p.pending && !placed.has(n) ? [p.index] : []));
  return {
    linearizable: true,
    order: linearized(order),
    notApplied: [...neverRead, ...dropped].sort((a, b) => a - b),
    steps,
  };
}

interface Frame {
  op: number;
  /** The register's value after the operation. */
  state: number;
}

/** Takes a call entry and its response out of the list: the operation is linearized. */
function lift(e: Entry): void {
  e.prev!.next = e.next;
  e.next!.prev = e.prev;
  const m = e.match!;
  m.prev!.next = m.next;
  if (m.next) m.next.prev = m.prev;
}

/** Puts them back, in the reverse order of `lift` (the search undoes lifts last in, first out). */
function unlift(e: Entry): void {
  const m = e.match!;
  m.prev!.next = m;
  if (m.next) m.next.prev = m;
  e.prev!.next = e;
  e.next!.prev = e;
}

/**
 * The configurations already visited: the set of linearized operations with the register value.
 * The set is a bitset over operations in invocation order, hashed by XOR of a random word per
 * operation (adding or removing one is O(1)). Every word below `lo` is full, so a configuration
 * is remembered by `lo` and the words from `lo` to the last non-empty one: a word or two, kept in
 * one growing pool rather than an object each (the garbage collector was most of the time).
 */
class ConfigurationCache {
  private readonly words: Uint32Array;
  private readonly zobrist: Uint32Array;
  private hash = 0;
  /** The first word not full. */
  private lo = 0;
  /** The last word not empty, or lo - 1. */
  private hi = -1;
  /** Hash → the last configuration remembered with it; `chain` leads to the one before. */
  private readonly buckets = new Map<number, number>();
  private count = 0;
  private chain = new Int32Array(1024);
  private stateOf = new Int32Array(1024);
  private loOf = new Int32Array(1024);
  private startOf = new Int32Array(1024);
  private lengthOf = new Int32Array(1024);
  private pool = new Uint32Array(4096);
  private poolSize = 0;

  constructor(size: number) {
    this.words = new Uint32Array(Math.ceil(size / 32) + 1);
    this.zobrist = new Uint32Array(size);
    // A fixed generator (mulberry32): the same history takes the same search, run after run.
    let seed = 0x2545f491;
    for (let i = 0; i < size; i++) {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      this.zobrist[i] = (t ^ (t >>> 14)) >>> 0;
    }
  }

  /** Adds `op` to the current set if (set + op, state) is new; false, and no change, if seen. */
  add(op: number, state: number): boolean {
    this.set(op);
    const key = (this.hash ^ Math.imul(state + 1, 0x9e3779b1)) >>> 0;
    const length = Math.max(this.hi + 1 - this.lo, 0);
    const first = this.buckets.get(key) ?? -1;
    for (let c = first; c >= 0; c = this.chain[c]!) {
      if (
        this.stateOf[c] === state &&
        this.loOf[c] === this.lo &&
        this.lengthOf[c] === length &&
        this.sameWords(this.startOf[c]!, length)
      ) {
        this.clear(op);
        return false;
      }
    }
    if (this.count === this.chain.length) this.grow();
    while (this.poolSize + length > this.pool.length) {
      const pool = new Uint32Array(this.pool.length * 2);
      pool.set(this.pool);
      this.pool = pool;
    }
    const c = this.count++;
    this.chain[c] = first;
    this.stateOf[c] = state;
    this.loOf[c] = this.lo;
    this.startOf[c] = this.poolSize;
    this.lengthOf[c] = length;
    this.pool.set(this.words.subarray(this.lo, this.lo + length), this.poolSize);
    this.poolSize += length;
    this.buckets.set(key, c);
    return true;
  }

  /** Takes `op` out of the current set (a backtrack); the configuration stays remembered. */
  remove(op: number): void {
    this.clear(op);
  }

  private sameWords(start: number, length: number): boolean {
    for (let i = 0; i < length; i++) if (this.pool[start + i] !== this.words[this.lo + i]) return false;
    return true;
  }

  private grow(): void {
    const bigger = (a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> => {
      const b = new Int32Array(a.length * 2);
      b.set(a);
      return b;
    };
    this.chain = bigger(this.chain);
    this.stateOf = bigger(this.stateOf);
    this.loOf = bigger(this.loOf);
    this.startOf = bigger(this.startOf);
    this.lengthOf = bigger(this.lengthOf);
  }

  private set(op: number): void {
    const w = op >>> 5;
    this.words[w]! |= 1 << (op & 31);
    this.hash ^= this.zobrist[op]!;
    if (w > this.hi) this.hi = w;
    while (this.words[this.lo] === 0xffffffff) this.lo++;
  }

  private clear(op: number): void {
    const w = op >>> 5;
    this.words[w]! &= ~(1 << (op & 31));
    this.hash ^= this.zobrist[op]!;
    if (w < this.lo) this.lo = w;
    while (this.hi >= this.lo && this.words[this.hi] === 0) this.hi--;
  }
}
