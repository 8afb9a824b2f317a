/**
 * The event scenario: N WebSocket subscribers, each with a paths filter, while writes of the
 * declared attributes run at a steady rate. Every write is matched with the event each subscriber
 * received for it: write → event latency, lost events (none arrived) and duplicates (two arrived).
 */
import type { BmcClient } from '../client/http.js';
import { EventSubscriber, type ReceivedEvent } from '../client/subscriber.js';
import { LatencyHistogram, type LatencySummary, type PercentilePoint } from './histogram.js';
import { Recorder, type Progress, type RunFigures, type StopReason } from './recorder.js';
import { attrPath } from './write-mix.js';
import { sameValue, type ValueCycle } from './values.js';

export interface EventScenarioOptions {
  client: BmcClient;
  cycles: readonly ValueCycle[];
  subscribers: number;
  /** Writes per second (all attributes together). */
  writeRate: number;
  durationS: number;
  maxWrites: number;
  /** How long an event may take before it counts as lost. */
  eventTimeoutMs: number;
  abortErrorRate: number;
  onSecond?: (p: Progress) => void;
  signal?: AbortSignal;
}

export interface SubscriberFigures {
  index: number;
  paths: string[];
  /** Received the priming write: the subscription was live before measuring. */
  live: boolean;
  expected: number;
  delivered: number;
  lost: number;
  duplicated: number;
  /** Events for a watched attribute that no write of the run explains, or outside the filter. */
  unexpected: number;
  latency: LatencySummary;
}

export interface EventSecond {
  t: number;
  delivered: number;
  p50: number;
  p99: number;
}

export interface EventFigures {
  subscribers: number;
  live: number;
  writes: number;
  expected: number;
  delivered: number;
  lost: number;
  duplicated: number;
  unexpected: number;
  latency: LatencySummary;
  curve: PercentilePoint[];
  histogram: string;
  series: EventSecond[];
  perSubscriber: SubscriberFigures[];
}

export interface EventScenarioResult {
  /** The writes as HTTP requests: their throughput and latency. */
  writes: RunFigures;
  events: EventFigures;
}

interface Write {
  attr: number;
  value: unknown;
  sentAt: number;
  ok: boolean;
}

interface Watched {
  path: string;
  name: string;
}

const OPEN_BATCH = 10;

export async function runEventScenario(opts: EventScenarioOptions): Promise<EventScenarioResult> {
  const attrs: Watched[] = opts.cycles.map((c) => ({ path: c.path, name: c.name }));
  const objects = [...new Set(attrs.map((a) => a.path))];
  // Odd subscribers watch only the first object (when there are several), so filtering is exercised too.
  const filterOf = (i: number): string[] => (i % 2 === 1 && objects.length > 1 ? [objects[0]!] : objects);
  const subs: EventSubscriber[] = [];
  try {
    for (let i = 0; i < opts.subscribers; i += OPEN_BATCH) {
      const batch = Array.from({ length: Math.min(OPEN_BATCH, opts.subscribers - i) }, (_, k) =>
        EventSubscriber.open(opts.client, { paths: filterOf(i + k) }),
      );
      subs.push(...(await Promise.all(batch)));
    }
    const live = await prime(opts, subs, attrs, filterOf);
    const marks = subs.map((s) => s.mark());
    const started = performance.now();
    const { writes, figures } = await writeSteadily(opts);
    await waitForEvents(subs, marks, writes, attrs, filterOf, opts.eventTimeoutMs);
    const events = account(subs, marks, writes, attrs, filterOf, live, started);
    return { writes: figures, events };
  } finally {
    await Promise.all(subs.map((s) => s.close()));
  }
}

/** One write per attribute that every subscriber watching it must see: the subscriptions are live. */
async function prime(
  opts: EventScenarioOptions,
  subs: EventSubscriber[],
  attrs: Watched[],
  filterOf: (i: number) => string[],
): Promise<boolean[]> {
  const live = subs.map(() => true);
  for (const [a, cycle] of opts.cycles.entries()) {
    const marks = subs.map((s) => s.mark());
    const value = cycle.next();
    const res = await opts.client.put(attrPath(cycle.path, cycle.name), value);
    if (res.status !== 200) throw new Error(`The priming write of ${cycle.path} ${cycle.name} answered ${res.statusLine}.`);
    await Promise.all(
      subs.map(async (s, i) => {
        if (!filterOf(i).includes(attrs[a]!.path)) return;
        try {
          await s.waitFor((d) => isChangeOf(d, attrs[a]!) && sameValue(changedValue(d, attrs[a]!), value), opts.eventTimeoutMs, {
            from: marks[i],
          });
        } catch {
          live[i] = false;
        }
      }),
    );
  }
  return live;
}

/** Writes at the planned rate, attributes in turn; writes of one attribute never overlap (their events keep their order). */
async function writeSteadily(opts: EventScenarioOptions): Promise<{ writes: Write[]; figures: RunFigures }> {
  const writes: Write[] = [];
  const tails = opts.cycles.map(() => Promise.resolve());
  const intervalMs = 1000 / opts.writeRate;
  let stopNote: string | undefined;
  let stoppedBy: StopReason = 'duration';
  const recorder = new Recorder({
    abortErrorRate: opts.abortErrorRate,
    onSecond: opts.onSecond,
    onAbort: (note) => {
      stoppedBy = 'error-rate';
      stopNote = note;
    },
  });
  recorder.start();
  const start = performance.now();
  for (let n = 0; start + n * intervalMs < start + opts.durationS * 1000; n++) {
    if (stoppedBy !== 'duration') break;
    if (opts.signal?.aborted) {
      stoppedBy = 'interrupted';
      stopNote = 'interrupted by the user';
      break;
    }
    if (n >= opts.maxWrites) {
      stoppedBy = 'request-cap';
      stopNote = recorder.capNote(opts.maxWrites, 'writes', opts.durationS);
      break;
    }
    await sleepUntil(start + n * intervalMs);
    const a = n % opts.cycles.length;
    const cycle = opts.cycles[a]!;
    tails[a] = tails[a]!.then(async () => {
      const value = cycle.next();
      const write: Write = { attr: a, value, sentAt: performance.now(), ok: false };
      writes.push(write);
      try {
        const res = await opts.client.put(attrPath(cycle.path, cycle.name), value, { max503Retries: 0 });
        write.ok = res.status === 200;
        recorder.record({ latencyMs: performance.now() - write.sentAt, status: res.status, bytes: res.text.length });
      } catch {
        recorder.record({ latencyMs: performance.now() - write.sentAt, bytes: 0, error: 'network' });
      }
    });
  }
  await Promise.all(tails);
  return { writes, figures: recorder.finish(stoppedBy, stopNote) };
}

async function sleepUntil(at: number): Promise<void> {
  const ms = at - performance.now();
  if (ms > 0) await new Promise((r) => setTimeout(r, ms));
}

/** Waits until every subscriber has at least as many events as it is owed, or the event timeout passed. */
async function waitForEvents(
  subs: EventSubscriber[],
  marks: number[],
  writes: Write[],
  attrs: Watched[],
  filterOf: (i: number) => string[],
  timeoutMs: number,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  const owed = subs.map((_, i) => writes.filter((w) => w.ok && filterOf(i).includes(attrs[w.attr]!.path)).length);
  while (performance.now() < deadline) {
    if (subs.every((s, i) => s.events.length - marks[i]! >= owed[i]! || s.closed)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

function account(
  subs: EventSubscriber[],
  marks: number[],
  writes: Write[],
  attrs: Watched[],
  filterOf: (i: number) => string[],
  live: boolean[],
  started: number,
): EventFigures {
  const all = new LatencyHistogram();
  const arrivals: { at: number; ms: number }[] = [];
  const perSubscriber = subs.map((s, i): SubscriberFigures => {
    const paths = filterOf(i);
    const owed = writes.filter((w) => w.ok && paths.includes(attrs[w.attr]!.path));
    const matched = new Set<Write>();
    const mine = new LatencyHistogram();
    let duplicated = 0;
    let unexpected = 0;
    for (const e of s.events.slice(marks[i])) {
      const a = attrs.findIndex((w) => isChangeOf(e.data, w));
      if (a < 0) continue;
      const value = changedValue(e.data, attrs[a]!);
      if (!paths.includes(attrs[a]!.path)) {
        unexpected++;
        continue;
      }
      const match = firstUnmatched(owed, matched, a, value, e);
      if (match) {
        matched.add(match);
        const ms = e.at - match.sentAt;
        mine.recordMs(ms);
        all.recordMs(ms);
        arrivals.push({ at: e.at, ms });
      } else if (owed.some((w) => matched.has(w) && w.attr === a && sameValue(w.value, value))) duplicated++;
      else unexpected++;
    }
    return {
      index: i,
      paths,
      live: live[i]!,
      expected: owed.length,
      delivered: matched.size,
      lost: owed.length - matched.size,
      duplicated,
      unexpected,
      latency: mine.summary(),
    };
  });
  const sum = (k: 'expected' | 'delivered' | 'lost' | 'duplicated' | 'unexpected'): number => perSubscriber.reduce((n, s) => n + s[k], 0);
  return {
    subscribers: subs.length,
    live: live.filter(Boolean).length,
    writes: writes.length,
    expected: sum('expected'),
    delivered: sum('delivered'),
    lost: sum('lost'),
    duplicated: sum('duplicated'),
    unexpected: sum('unexpected'),
    latency: all.summary(),
    curve: all.curve(),
    histogram: all.encode(),
    series: perSecond(arrivals, started),
    perSubscriber,
  };
}

/** The earliest write of this attribute and value, sent before the event arrived, not yet matched. */
function firstUnmatched(owed: Write[], matched: Set<Write>, attr: number, value: unknown, e: ReceivedEvent): Write | undefined {
  return owed.find((w) => w.attr === attr && !matched.has(w) && w.sentAt <= e.at && sameValue(w.value, value));
}

function perSecond(arrivals: { at: number; ms: number }[], started: number): EventSecond[] {
  const buckets = new Map<number, LatencyHistogram>();
  for (const a of arrivals) {
    const second = Math.floor((a.at - started) / 1000) + 1;
    let h = buckets.get(second);
    if (!h) buckets.set(second, (h = new LatencyHistogram()));
    h.recordMs(a.ms);
  }
  return [...buckets.entries()]
    .sort(([x], [y]) => x - y)
    .map(([t, h]) => ({ t, delivered: h.count, p50: h.percentileMs(50), p99: h.percentileMs(99) }));
}

function isChangeOf(data: unknown, w: Watched): boolean {
  const d = data as { event?: unknown; path?: unknown; properties?: unknown } | undefined;
  return (
    d?.event === 'PropertiesChanged' &&
    d.path === w.path &&
    typeof d.properties === 'object' &&
    d.properties !== null &&
    Object.hasOwn(d.properties, w.name)
  );
}

function changedValue(data: unknown, w: Watched): unknown {
  return (data as { properties: Record<string, unknown> }).properties[w.name];
}
