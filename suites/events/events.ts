/**
 * Helpers of the events suite: subscriptions that close after the test, attribute writers that
 * always write a value differing from the current one, and the suite's use of the event engine
 * (engine/): priming with a writer's changes, and what it says when a subscription never went live.
 */
import { EventSubscriber, type EventPredicate, type OpenOptions, type ReceivedEvent } from '../../client/subscriber.js';
import { isMap, sameValue } from '../../client/values.js';
import { fail, show } from '../harness/assert.js';
import type { CheckContext } from '../harness/check.js';
import { putAttr, readValue, restoreAfter, type WritePlan } from '../harness/writable.js';
import { prime, type PrimeWrite } from './engine/prime.js';
import { described, neverLive, recent, type Subscription } from './engine/subscription.js';
import { eventTimes, quietSince, quietWindow } from './engine/waits.js';
import { closeAfterQuietWindow } from '../harness/lingering.js';
import { eventLedger } from '../harness/event-ledger.js';
import type { RunConfig } from '../../runner/config.js';
import { messageOf } from '../../client/errors.js';
import { forgetEachRun } from '../../client/run-scoped.js';

/** How far above its original value an integer attribute is written. */
const INTEGER_STEPS = 4;

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

/** Loose recognition: the kind, a path and a properties map; the schema judges the rest. */
export function isPropertiesChanged(data: unknown): data is PropertiesChangedEvent {
  return isMap(data) && data.event === 'PropertiesChanged' && typeof data.path === 'string' && isMap(data.properties);
}

export function isInterfacesAdded(data: unknown): data is InterfacesAddedEvent {
  return isMap(data) && data.event === 'InterfacesAdded' && typeof data.path === 'string';
}

/** Any message that presents itself as an event (it has an `event` member). */
export function isEventLike(data: unknown): boolean {
  return isMap(data) && 'event' in data;
}

// --- Subscriptions --------------------------------------------------------------------------

/** Every subscription this suite opened, in order: the kinds and shapes checks read them all. */
const ledger: EventSubscriber[] = [];
forgetEachRun(() => (ledger.length = 0));

export function everythingReceived(): ReceivedEvent[] {
  return ledger.flatMap((s) => s.events);
}

/** Server pings seen by the suite's subscriptions (each answered by a pong). */
export function pingsSeen(): number {
  return ledger.reduce((n, sub) => n + sub.pings.length, 0);
}

/** Opens a subscription on the shared session, sends the filter, and closes it after the test. */
export async function subscribe(
  t: CheckContext,
  filter: unknown,
  what = 'the subscription',
  opts: Pick<OpenOptions, 'beforeFilter'> & { forSuite?: boolean } = {},
): Promise<Subscription> {
  let socket: EventSubscriber;
  try {
    socket = await EventSubscriber.open(t.client, filter, { beforeFilter: opts.beforeFilter });
  } catch (err) {
    fail(`${what}: opening /subscribe with the filter ${show(filter)} failed: ${messageOf(err)}`);
  }
  ledger.push(socket);
  // A subscription the suite's checks share stays open until the suite ends.
  if (!opts.forSuite) t.cleanup(() => socket.close());
  return { socket, filter, what };
}

/**
 * Closes the subscriptions opened for the whole suite (its afterAll) once the quiet window of the
 * run's last change is over, without waiting for it: what they receive late is the run-wide events
 * oracle's to judge (harness/lingering.ts). Those of a test were closed after it.
 */
export function closeSuiteSubscriptions(cfg: Pick<RunConfig, 'quietWindowMs' | 'eventLatency'>): void {
  closeAfterQuietWindow(ledger, quietWindow(cfg), Math.max(0, ...eventLedger().causes.map((c) => c.sentAt)));
}

// --- Writes ---------------------------------------------------------------------------------

/** A write: its value, and as a priming change (engine/prime.ts) when its PUT was sent (an event may beat the response). */
export interface WriteRecord extends PrimeWrite {
  value: unknown;
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
    const record = { value, at: performance.now(), carries: this.carrying(value) };
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
  async burst(values: unknown[]): Promise<unknown> {
    await Promise.all(values.map((v) => this.write(v)));
    this.current = await readValue(this.t, this.path, this.name);
    return this.current;
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

// --- Priming --------------------------------------------------------------------------------

export interface NotLive {
  /** Why the subscription never delivered the priming change. */
  reason: string;
  /** Set when the cause is not the event channel (the write did not change anything). */
  notTested?: string;
}

export interface LiveOptions {
  settle?: boolean;
  /** A subscription that never goes live fails the check, or makes it NOT_TESTED when the filter is not what the check is about. */
  notLive?: 'fail' | 'notTested';
  because?: string;
}

/**
 * Primes `subscriptions` with changes of `writer`'s attribute (engine/prime.ts). With `settle`,
 * then waits out the quiet window of the last write, so that stragglers of the priming land
 * before anything is measured. Says why when one never went live; with `notLive`, that decides
 * the check instead.
 */
export async function tryGoLive(
  t: CheckContext,
  subscriptions: Subscription[],
  writer: AttrWriter,
  opts: LiveOptions = {},
): Promise<NotLive | undefined> {
  const { notLive } = await prime(eventTimes(t.cfg), subscriptions, { write: () => writer.write() });
  if (notLive.length === 0) {
    if (opts.settle) await quietSince(t.cfg, writer.writes.at(-1)!.at);
    return undefined;
  }
  const missed = `did not deliver the PropertiesChanged of ${writer.label} after ${writer.writes.length} write(s), ${t.cfg.eventTimeoutMs} ms each`;
  const reason = notLive.map((s) => neverLive(s, missed)).join('; ');
  const now = await readValue(t, writer.path, writer.name);
  const notTested = sameValue(now, writer.current)
    ? undefined
    : `the write of ${writer.label} = ${show(writer.current)} did not take effect (it reads ${show(now)}): no change, no event (see EP-8)`;
  if (opts.notLive && notTested) t.notTested(notTested);
  if (opts.notLive === 'notTested') t.notTested(`${opts.because ?? 'the subscription never went live'}: ${reason}`);
  if (opts.notLive === 'fail') fail(reason);
  return { reason, notTested };
}

/**
 * Opens a subscription and primes it with a change the filter admits; one that never goes live
 * makes the check NOT_TESTED (its filter is not what the check is about) unless `notLive` says otherwise.
 */
export async function openLive(
  t: CheckContext,
  filter: unknown,
  writer: AttrWriter,
  opts: LiveOptions & { what?: string } = {},
): Promise<Subscription> {
  const s = await subscribe(t, filter, opts.what);
  await tryGoLive(t, [s], writer, { notLive: 'notTested', ...opts });
  return s;
}

/**
 * Writes until `witness` received the change (a witness proves the change emitted an event): the
 * witness primed once more. Fails when it never does.
 */
export async function provoke(t: CheckContext, writer: AttrWriter, witness: Subscription): Promise<void> {
  const again: Subscription = { ...witness, liveAt: undefined };
  const { writes } = await prime(eventTimes(t.cfg), [again], { write: () => writer.write() });
  if (again.liveAt === undefined)
    fail(`${described(witness)} received no PropertiesChanged of ${writer.label} after ${writes.length} writes; ${recent(witness.socket)}`);
}
