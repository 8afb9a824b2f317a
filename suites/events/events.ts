/**
 * Helpers of the events suite: subscriptions that close after the test, attribute writers that
 * always write a value differing from the current one, the priming that proves a subscription is
 * live (nothing acknowledges the filter), and the comparison of a received stream with the writes
 * that caused it.
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventSubscriber, type EventPredicate, type ReceivedEvent } from '../../client/subscriber.js';
import { sameValue } from '../../client/values.js';
import { fail, show } from '../harness/assert.js';
import type { CheckContext } from '../harness/check.js';
import { quietSince, quietWindow, recordLatency } from '../harness/pace.js';
import { putAttr, readValue, restoreAfter, writePlans, type WritePlan } from '../harness/writable.js';

/** How far above its original value an integer attribute is written. */
const INTEGER_STEPS = 4;

/** Priming writes tried before a subscription is declared not live. */
export const PRIME_ATTEMPTS = 3;

export const EVENT_KINDS = ['InterfacesAdded', 'PropertiesChanged'] as const;

export interface PropertiesChangedEvent {
  event: 'PropertiesChanged';
  path: string;
  interface: unknown;
  properties: Record<string, unknown>;
}

export interface InterfacesAddedEvent {
  event: 'InterfacesAdded';
  path: string;
  interfaces: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Loose recognition: the kind, a path and a properties map; the schema judges the rest. */
export function isPropertiesChanged(data: unknown): data is PropertiesChangedEvent {
  return isRecord(data) && data.event === 'PropertiesChanged' && typeof data.path === 'string' && isRecord(data.properties);
}

export function isInterfacesAdded(data: unknown): data is InterfacesAddedEvent {
  return isRecord(data) && data.event === 'InterfacesAdded' && typeof data.path === 'string';
}

/** Any message that presents itself as an event (it has an `event` member). */
export function isEventLike(data: unknown): boolean {
  return isRecord(data) && 'event' in data;
}

/** A message as one short line (servers pretty-print JSON; a reason is one line). */
export function brief(text: string, max = 160): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

const clip = brief;

/** The last few messages of a subscription, for failure texts. */
export function recent(sub: EventSubscriber, from = 0, max = 6): string {
  const seen = sub.events.slice(from);
  if (seen.length === 0) return 'nothing arrived';
  const shown = seen.slice(-max).map((e) => `#${e.seq} ${clip(e.raw)}`);
  return `${seen.length} message(s) arrived${seen.length > max ? ` (last ${max})` : ''}: ${shown.join(' ; ')}`;
}

// --- Subscriptions --------------------------------------------------------------------------

/** Every subscription this suite opened, in order: the kinds and shapes checks read them all. */
const ledger: EventSubscriber[] = [];

export function everythingReceived(): ReceivedEvent[] {
  return ledger.flatMap((s) => s.events);
}

/** Server pings seen by the suite's subscriptions (each answered by a pong). */
export function pingsSeen(): number {
  return ledger.reduce((n, sub) => n + sub.pings.length, 0);
}

/** A subscription with its filter and a name for messages. */
export interface Tap {
  sub: EventSubscriber;
  filter: unknown;
  what: string;
  /** Index of the priming event once the subscription is known to be live. */
  liveAt?: number;
}

/** Opens a subscription on the shared session, sends the filter, and closes it after the test. */
export async function subscribe(
  t: CheckContext,
  filter: unknown,
  what = 'the subscription',
  opts: { forSuite?: boolean; beforeFilter?: (sub: EventSubscriber) => Promise<void> } = {},
): Promise<Tap> {
  let sub: EventSubscriber;
  try {
    sub = await EventSubscriber.open(t.client, filter, opts.beforeFilter ? { beforeFilter: opts.beforeFilter } : {});
  } catch (err) {
    fail(`${what}: opening /subscribe with the filter ${show(filter)} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  ledger.push(sub);
  // A subscription the suite's checks share stays open until the suite ends.
  if (opts.forSuite) suiteScoped.push(sub);
  else t.cleanup(() => sub.close());
  return { sub, filter, what };
}

const suiteScoped: EventSubscriber[] = [];

/** Closes the subscriptions opened for the whole suite (its afterAll). */
export async function closeSuiteSubscriptions(): Promise<void> {
  await Promise.all(suiteScoped.splice(0).map((s) => s.close()));
}

// --- Writes ---------------------------------------------------------------------------------

export interface WriteRecord {
  value: unknown;
  /** performance.now() just before the PUT was sent (an event may beat the response). */
  at: number;
}

/**
 * Writes one declared attribute again and again, each time with a value that differs from the
 * current one (D-Bus signals real changes only), and restores the original after the test.
 */
export class AttrWriter {
  readonly path: string;
  readonly name: string;
  current: unknown;
  readonly writes: WriteRecord[] = [];
  private counter = 0;

  constructor(
    private readonly t: CheckContext,
    readonly plan: WritePlan,
    opts: { restore?: boolean } = {},
  ) {
    this.path = plan.attr.path;
    this.name = plan.attr.name;
    this.current = plan.original;
    // A writer only asked which values it would write needs no restore.
    if (opts.restore !== false) restoreAfter(t, plan);
  }

  get label(): string {
    return `${this.path} ${this.name}`;
  }

  /** A value different from the current one: the declared values in turn, fresh strings, or the two known values alternately. */
  nextValue(): unknown {
    const { values } = this.plan.attr;
    if (values && values.length > 0) {
      // Declared values only (with the original, which may not be among them): never invent one.
      const cycle = values.some((v) => sameValue(v, this.plan.original)) ? values : [this.plan.original, ...values];
      const start = cycle.findIndex((v) => sameValue(v, this.current));
      for (let k = 1; k <= cycle.length; k++) {
        const v = cycle[(start + k + cycle.length) % cycle.length];
        if (!sameValue(v, this.current)) return v;
      }
    }
    if (typeof this.plan.original === 'string' && typeof this.plan.next === 'string') {
      const stem = this.plan.original.replace(/-bmcc\d*$/, '').slice(0, 40);
      for (;;) {
        const v = `${stem}-bmcc${++this.counter}`;
        if (v !== this.current) return v;
      }
    }
    const o = this.plan.original;
    const integer = (typeof o === 'number' && Number.isInteger(o) && o !== 0 && o !== 1) || typeof o === 'bigint';
    if (integer && typeof this.plan.next === typeof o) {
      // Small steps above the original (original+1 … +4), so several writes can all differ.
      for (;;) {
        const step = (this.counter++ % INTEGER_STEPS) + 1;
        const v = typeof o === 'bigint' ? o + BigInt(step) : (o as number) + step;
        if (!sameValue(v, this.current)) return v;
      }
    }
    return sameValue(this.current, this.plan.next) ? this.plan.original : this.plan.next;
  }

  /** PUT the next value (or the one given); the event may arrive before the response. */
  async write(value: unknown = this.nextValue()): Promise<WriteRecord> {
    const record = { value, at: performance.now() };
    this.writes.push(record);
    await putAttr(this.t, this.path, this.name, value);
    this.current = value;
    return record;
  }

  /**
   * Values that differ from the current one and from each other, as many as the attribute has
   * (a boolean has one); for a burst of concurrent writes.
   */
  distinctValues(count: number): unknown[] {
    const out: unknown[] = [];
    const saved = this.current;
    for (let guard = 0; out.length < count && guard < count * 4; guard++) {
      const v = this.nextValue();
      if (sameValue(v, saved) || out.some((o) => sameValue(o, v))) break;
      out.push(v);
      this.current = v;
    }
    this.current = saved;
    return out;
  }

  /**
   * Sends PUTs of `values` at once, without waiting for one answer before the next request: the
   * target applies them in an order of its own, close together. Returns the value it kept (read
   * back once all were answered).
   */
  async burst(values: unknown[]): Promise<{ records: WriteRecord[]; final: unknown }> {
    const records = values.map((value) => ({ value, at: performance.now() }));
    this.writes.push(...records);
    await Promise.all(values.map((v) => putAttr(this.t, this.path, this.name, v)));
    const final = await readValue(this.t, this.path, this.name);
    this.current = final;
    return { records, final };
  }

  /** A PropertiesChanged of this attribute, whatever its value. */
  readonly changed: EventPredicate = (data) =>
    isPropertiesChanged(data) && data.path === this.path && Object.hasOwn(data.properties, this.name);

  /** A PropertiesChanged of this attribute carrying this value. */
  carrying(value: unknown): EventPredicate {
    return (data) => this.changed(data) && sameValue((data as PropertiesChangedEvent).properties[this.name], value);
  }

  valueIn(data: unknown): unknown {
    return (data as PropertiesChangedEvent).properties[this.name];
  }

  /** Whether a value was ever written by this writer (priming included). */
  wrote(value: unknown): boolean {
    return this.writes.some((w) => sameValue(w.value, value));
  }
}

/** Writers for the declared writable attributes, at most `max`. */
export async function writers(t: CheckContext, max = Infinity): Promise<AttrWriter[]> {
  return (await writePlans(t, max)).map((plan) => new AttrWriter(t, plan));
}

/** Plans on different objects, none of whose paths is a prefix of another (prefix-matching servers). */
export function onDistinctObjects(plans: WritePlan[]): WritePlan[] {
  const related = (a: string, b: string) => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
  const out: WritePlan[] = [];
  for (const p of plans) if (!out.some((o) => related(o.attr.path, p.attr.path))) out.push(p);
  return out;
}

export function fewerObjectsReason(found: number, needed: number): string {
  return `needs writable attributes on ${needed} different objects; the profile names ${found} (use --writable PATH:ATTR[=V1|V2] more than once)`;
}

// --- Priming --------------------------------------------------------------------------------

export interface NotLive {
  /** Why the subscription never delivered the priming change. */
  reason: string;
  /** Set when the cause is not the event channel (the write did not change anything). */
  notTested?: string;
}

/**
 * Nothing acknowledges the filter, so a subscription is live only once it delivered a change it
 * admits. Writes `writer`'s attribute until every tap received the change (at most PRIME_ATTEMPTS
 * writes, each waited for eventTimeoutMs). With `settle`, then waits out the quiet window of the
 * last write, so that stragglers of the priming land before anything is measured.
 */
export async function tryGoLive(
  t: CheckContext,
  taps: Tap[],
  writer: AttrWriter,
  opts: { settle?: boolean } = {},
): Promise<NotLive | undefined> {
  const pending = new Set(taps.filter((x) => x.liveAt === undefined));
  // Once a subscription of this write had the change, the event latency is known to be short.
  let anyArrived = false;
  for (let attempt = 0; attempt < PRIME_ATTEMPTS && pending.size > 0; attempt++) {
    const marks = new Map([...pending].map((x) => [x, x.sub.mark()]));
    const written = [await writer.write()];
    const carried = (d: unknown) => written.some((w) => writer.carrying(w.value)(d));
    const waitMs = anyArrived ? Math.min(t.cfg.eventTimeoutMs, quietWindow(t.cfg)) : t.cfg.eventTimeoutMs;
    const over = new AbortController();
    const timer = setTimeout(() => over.abort(), waitMs);
    // Once one subscription has the change, the others had it within the event latency too. A
    // lost event gets its second chance soon after: one more write, half a window on (those only
    // a moment late are in by then), whose window the ones still waiting share with the first
    // write's, instead of a window each, one after the other.
    let second: Promise<void> | undefined;
    let retried = false;
    let allIn: () => void = () => undefined;
    const everyoneIn = new Promise<void>((resolve) => (allIn = resolve));
    const othersArrived = (): void => {
      clearTimeout(timer);
      if (attempt > 0) {
        void sleep(quietWindow(t.cfg)).then(() => over.abort());
        return;
      }
      second = (async () => {
        await Promise.race([sleep(quietWindow(t.cfg) / 2), everyoneIn]);
        if (pending.size === 0) return;
        retried = true;
        const w = await writer.write().catch(() => undefined);
        if (!w) return over.abort();
        written.push(w);
        void quietSince(t.cfg, w.at).then(() => over.abort());
      })();
    };
    let first = true;
    await Promise.all(
      [...pending].map(async (x) => {
        try {
          const ev = await Promise.race([
            x.sub.waitFor(carried, waitMs + 2 * quietWindow(t.cfg), { from: marks.get(x) }),
            new Promise<never>((_, reject) => over.signal.addEventListener('abort', () => reject(new Error('waited enough')))),
          ]);
          const cause = written.find((w) => writer.carrying(w.value)(ev.data))!;
          recordLatency(ev.at - cause.at);
          x.liveAt = ev.seq;
          pending.delete(x);
          if (pending.size === 0) allIn();
          anyArrived = true;
          if (first) {
            first = false;
            othersArrived();
          }
        } catch {
          // not yet: the next priming write tries again
        }
      }),
    );
    clearTimeout(timer);
    // The second write's answer, at least (its window was waited out by whoever still waited).
    allIn();
    await second;
    if ([...pending].some((x) => x.sub.closed)) break;
    // Others had the change and these did not, twice: their filters exclude it (a lost event is
    // retried once).
    if ((attempt >= 1 || retried) && (anyArrived || taps.some((x) => x.liveAt !== undefined && !pending.has(x)))) break;
  }
  if (pending.size > 0) {
    const reason = [...pending]
      .map((x) => {
        const close = x.sub.closeInfo;
        if (close)
          return `the target closed ${x.what} (filter ${show(x.filter)}) with code ${close.code}${close.reason ? ` "${close.reason}"` : ''}`;
        return `${x.what} (filter ${show(x.filter)}) did not deliver the PropertiesChanged of ${writer.label} after ${writer.writes.length} write(s), ${t.cfg.eventTimeoutMs} ms each; ${recent(x.sub)}`;
      })
      .join('; ');
    const now = await readValue(t, writer.path, writer.name);
    if (!sameValue(now, writer.current)) {
      return {
        reason,
        notTested: `the write of ${writer.label} = ${show(writer.current)} did not take effect (it reads ${show(now)}): no change, no event (see EP-8)`,
      };
    }
    return { reason };
  }
  if (opts.settle) await quietSince(t.cfg, writer.writes.at(-1)!.at);
  return undefined;
}

export interface LiveOptions {
  settle?: boolean;
  /** A subscription that never goes live fails the check, or makes it NOT_TESTED when the filter is not what the check is about. */
  notLive?: 'fail' | 'notTested';
  because?: string;
}

/** As tryGoLive, with the outcome decided by `opts`. */
export async function goLive(t: CheckContext, taps: Tap[], writer: AttrWriter, opts: LiveOptions = {}): Promise<void> {
  const problem = await tryGoLive(t, taps, writer, opts);
  if (!problem) return;
  if (problem.notTested) t.notTested(problem.notTested);
  if (opts.notLive === 'notTested') t.notTested(`${opts.because ?? 'the subscription never went live'}: ${problem.reason}`);
  fail(problem.reason);
}

/** Opens a subscription and primes it with a change the filter admits. */
export async function openLive(
  t: CheckContext,
  filter: unknown,
  writer: AttrWriter,
  opts: LiveOptions & { what?: string } = {},
): Promise<Tap> {
  const tap = await subscribe(t, filter, opts.what);
  await goLive(t, [tap], writer, opts);
  return tap;
}

/**
 * Writes until `witness` received the change (a witness proves the change emitted an event);
 * returns the write it received. Without success: fails, or NOT_TESTED with `notDelivered`.
 */
export async function provoke(
  t: CheckContext,
  writer: AttrWriter,
  witness: Tap,
  opts: { notDelivered?: 'fail' | 'notTested'; because?: string } = {},
): Promise<ReceivedEvent> {
  for (let attempt = 0; attempt < PRIME_ATTEMPTS; attempt++) {
    const from = witness.sub.mark();
    const w = await writer.write();
    try {
      const ev = await witness.sub.waitFor(writer.carrying(w.value), t.cfg.eventTimeoutMs, { from });
      recordLatency(ev.at - w.at);
      return ev;
    } catch {
      if (witness.sub.closed) break;
    }
  }
  const reason = `${witness.what} (filter ${show(witness.filter)}) received no PropertiesChanged of ${writer.label} after ${PRIME_ATTEMPTS} writes; ${recent(witness.sub)}`;
  if (opts.notDelivered === 'notTested') t.notTested(`${opts.because ?? 'the change could not be observed'}: ${reason}`);
  fail(reason);
}

/**
 * Waits for `count` matching events from `from` (bounded), then out the quiet window of the writes
 * (answered by `writtenAt`) for extras; returns all matches.
 */
export async function collect(
  t: CheckContext,
  tap: Tap,
  pred: EventPredicate,
  count: number,
  from: number,
  writtenAt: number,
): Promise<ReceivedEvent[]> {
  await tap.sub.waitForCount(pred, count, t.cfg.eventTimeoutMs, { from }).catch(() => undefined);
  await quietSince(t.cfg, writtenAt);
  return matching(tap, pred, from);
}

function matching(tap: Tap, pred: EventPredicate, from: number): ReceivedEvent[] {
  return tap.sub.events.slice(from).filter((e) => {
    try {
      return pred(e.data);
    } catch {
      return false;
    }
  });
}

/**
 * `collect` for several subscriptions that watched the same writes: they all wait, but once one
 * has received what it waited for, the others get one quiet window more, not a whole event
 * timeout (the events left the target together); that window also catches extras for all.
 */
export async function collectTogether(
  t: CheckContext,
  watches: Array<{ tap: Tap; pred: EventPredicate; count: number; from: number }>,
): Promise<void> {
  const stop = new AbortController();
  // One listener per watched subscription, a dozen or more in the matrix: not a leak.
  setMaxListeners(Math.max(10, watches.length + 1), stop.signal);
  let first: Promise<void> | undefined;
  const waits = watches.map(async (w) => {
    try {
      await Promise.race([
        w.tap.sub.waitForCount(w.pred, w.count, t.cfg.eventTimeoutMs, { from: w.from }),
        new Promise<never>((_, reject) => stop.signal.addEventListener('abort', () => reject(new Error('the others are in')))),
      ]);
      first ??= sleep(quietWindow(t.cfg)).then(() => stop.abort());
    } catch {
      // short of its count: judged by the checks
    }
  });
  await Promise.all(waits);
  await (first ?? sleep(quietWindow(t.cfg)));
}

/** Fails when any event matching `pred` arrived since `from`, or arrives within the quiet window. */
export async function expectNone(t: CheckContext, tap: Tap, pred: EventPredicate, what: string, from = 0): Promise<void> {
  try {
    await tap.sub.expectQuiet(pred, quietWindow(t.cfg), { from });
  } catch {
    const hit = tap.sub.events.slice(from).find((e) => {
      try {
        return pred(e.data);
      } catch {
        return false;
      }
    });
    fail(`${tap.what} (filter ${show(tap.filter)}) received ${what}: ${hit ? clip(hit.raw) : 'an unexpected event'}`);
  }
}

// --- Streams --------------------------------------------------------------------------------

export interface StreamAnalysis {
  expected: unknown[];
  received: unknown[];
  /** Written values with no event (multiset difference). */
  missing: unknown[];
  /** Events beyond the writes: duplicates, or values never written. */
  extra: unknown[];
  /** The first event that arrived after an event of a later write, if any. */
  orderProblem?: string;
  /** Events matched to the write that caused them (in write order). */
  matched: Array<{ event: ReceivedEvent; write: number }>;
}

/**
 * Compares the events of one attribute with its writes. A repeat of the value just matched is a
 * duplicate, not a reordering; a value matched only by an earlier write is out of order.
 */
export function analyseStream(expected: unknown[], events: ReceivedEvent[], valueOf: (data: unknown) => unknown): StreamAnalysis {
  const received = events.map((e) => valueOf(e.data));
  const left = [...expected];
  const extra: unknown[] = [];
  for (const v of received) {
    const i = left.findIndex((x) => sameValue(x, v));
    if (i >= 0) left.splice(i, 1);
    else extra.push(v);
  }
  const matched: StreamAnalysis['matched'] = [];
  let next = 0;
  let last = -1;
  let orderProblem: string | undefined;
  for (const [n, event] of events.entries()) {
    const v = received[n];
    if (last >= 0 && sameValue(v, expected[last])) continue;
    let k = next;
    while (k < expected.length && !sameValue(expected[k], v)) k++;
    if (k < expected.length) {
      matched.push({ event, write: k });
      next = k + 1;
      last = k;
    } else if (!orderProblem && expected.some((x) => sameValue(x, v))) {
      orderProblem = `the event #${event.seq} carrying ${show(v)} arrived after the event of a later write (${show(expected[last])})`;
    }
  }
  return { expected, received, missing: left, extra, orderProblem, matched };
}

/** Percentile of a sorted list (nearest rank). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}
