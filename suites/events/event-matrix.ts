/**
 * The events suite's shared measurement. Every subscription the filter checks need is opened at
 * once, primed together, and watched through one interleaved write sequence of two objects and
 * one quiet window; EP-14, EV-1, EV-2, EV-4 … EV-10 then each judge their part of what arrived.
 * On a target whose events come seconds late, that is one wait where there were a dozen.
 *
 *   only      {paths: [A]}                         A's stream alone
 *   all       {}                                   everything
 *   onlyB     {paths: [B]}                         B's stream alone
 *   both      {paths: [A, B]}                      both streams
 *   byIface   {interfaces: [iA]}                   A's interface only
 *   bothIfaces {interfaces: [iB, iA]}              both streams, each by its interface
 *   either    {paths: [A], interfaces: [iB]}       A by path, B by interface (ORed)
 *   neither   {paths: [A], interfaces: [iA]}       A, never B
 *   nearPaths {paths: [B, near misses of A]}       B, never A (A's parent, A cut short, A in another case)
 *   nearSlash {paths: [B, A + '/']}                B, never A
 *   nearIface {interfaces: [iB, near misses of iA]} B, never A (iA cut short, extended, its namespace, another case)
 *   early     {paths: [B]}, sent after the writes  never A, not even before its filter arrived
 *
 * A subscription listing two entries (both, bothIfaces) that A's change does not show live is
 * primed once more by B's: it is live once any entry delivers, and then owes every entry's events.
 * The near-miss subscriptions list B exactly: B's change shows each is live (the positive twin
 * of the exact entry), and A's changes must never reach them.
 * The interfaces are learned from the priming events (the REST side never shows them).
 */
import type { ReceivedEvent } from '../../client/subscriber.js';
import { ensure, notJudged, show } from '../harness/assert.js';
import { evidenceMark, type CheckContext } from '../harness/check.js';
import { firstWritePlan, noWritableReason, writePlans } from '../harness/writable.js';
import { admission, onDistinctPaths, usableInterface, type Change, type EventFilter } from './engine/filters.js';
import { judgeStream, withEarlier, type StreamJudgement } from './engine/judge.js';
import { brief, described, matching, recent, type Subscription } from './engine/subscription.js';
import { collectTogether, eventTimes, quietSince } from './engine/waits.js';
import { AttrWriter, subscribe, tryGoLive, type NotLive, type WriteRecord } from './events.js';
import { forgetEachRun } from '../../client/run-scoped.js';
import { digestOf, PLAN_OBSERVATIONS } from '../../client/plan.js';

/** The subscriptions a matrix opens only where it can (see the table above); `only` and `all` it always has. */
const OPTIONAL = ['onlyB', 'both', 'byIface', 'bothIfaces', 'either', 'neither', 'nearPaths', 'nearSlash', 'nearIface', 'early'] as const;

export interface Matrix extends Partial<Record<(typeof OPTIONAL)[number], Subscription>> {
  a: AttrWriter;
  /** A writer on another object, when the profile names one. */
  b?: AttrWriter;
  /** The interfaces of A's and B's properties, when both are valid D-Bus names and differ. */
  interfaces?: { a: string; b: string };
  /** Interface names as the priming events gave them (for messages when no pair was found). */
  seenInterfaces: { a?: unknown; b?: unknown };
  only: Subscription;
  all: Subscription;
  /** Set when `only` never went live: EP-14's failure, and nothing to judge for the rest. */
  notLive?: NotLive;
  /** The measured writes, per writer (A, then B when there is one), in order: its keys are the measurement's writers. */
  written: Map<AttrWriter, WriteRecord[]>;
  /** Each subscription's mark before the measured writes, and after their events were collected. */
  from: Map<Subscription, number>;
  until: Map<Subscription, number>;
  /** Taps the target had closed when the measurement ended (the run closes them all later). */
  closedByTarget: Set<Subscription>;
  /** Seconds each phase took, for the record (EV-11). */
  phases: Record<string, number>;
  /** performance.now() as the measurement opened its first subscription. */
  openedAt: number;
}

/** The interface named by the event a subscription went live with. */
export function primingInterface(sub: Subscription): unknown {
  return sub.liveAt === undefined ? undefined : (sub.socket.events[sub.liveAt]?.data as { interface?: unknown } | undefined)?.interface;
}

/** The matrix's subscriptions outlive the check that opens them: later checks read and reuse them. */
const SUITE = { forSuite: true };

let built: Promise<Matrix> | undefined;

/** Where the shared measurement's requests and event messages begin in the run's evidence. */
let builtFrom = 0;
forgetEachRun(() => {
  built = undefined;
  builtFrom = 0;
});

/** The measurement, made by whichever check asks first (the others read it). */
export function eventMatrix(t: CheckContext): Promise<Matrix> {
  if (!built) {
    builtFrom = evidenceMark();
    built = measure(t);
  }
  // Every check judging the measurement shows it as its evidence.
  t.evidenceFrom(builtFrom);
  return built;
}

async function measure(t: CheckContext): Promise<Matrix> {
  const plans = onDistinctPaths(await writePlans(t), (p) => p.attr.path);
  if (plans.length === 0) t.notTested(noWritableReason());
  const a = new AttrWriter(t, plans[0]!);
  const openedAt = performance.now();
  const open = (filter: unknown, what: string) => subscribe(t, filter, `the subscription ${what}`, SUITE);
  const only = await open({ paths: [a.path] }, `to ${a.path}`);
  const all = await open({}, 'with {}');
  const m: Matrix = {
    a,
    only,
    all,
    seenInterfaces: {},
    written: new Map(),
    from: new Map(),
    until: new Map(),
    closedByTarget: new Set(),
    phases: {},
    openedAt,
  };
  let lap = performance.now();
  const phase = (name: string) => {
    m.phases[name] = Math.round(performance.now() - lap) / 1000;
    lap = performance.now();
  };
  // B: another object, preferably one whose property lives on another interface than A's, and
  // that takes several values (the burst check can then use its subscription). The first
  // candidate is primed together with A.
  const candidates = plans.slice(1).map((p) => new AttrWriter(t, p));
  candidates.sort((x, y) => Number(y.distinctValues(4).length === 4) - Number(x.distinctValues(4).length === 4));
  const firstSub = candidates[0] && (await open({ paths: [candidates[0].path] }, `to ${candidates[0].path}`));
  const [primedA] = await Promise.all([tryGoLive(t, [only, all], a), firstSub && tryGoLive(t, [firstSub], candidates[0]!)]);
  phase('priming A');
  if (only.liveAt === undefined) return { ...m, notLive: primedA };
  m.seenInterfaces.a = primingInterface(only);

  for (const [i, c] of candidates.slice(0, 3).entries()) {
    const sub = i === 0 ? firstSub! : await open({ paths: [c.path] }, `to ${c.path}`);
    if (i > 0) await tryGoLive(t, [sub], c);
    if (sub.liveAt === undefined) continue;
    const iface = primingInterface(sub);
    const distinct = usableInterface(iface) && usableInterface(m.seenInterfaces.a) && iface !== m.seenInterfaces.a;
    if (!m.b || distinct) {
      m.b = c;
      m.onlyB = sub;
      m.seenInterfaces.b = iface;
    }
    if (distinct) break;
  }
  phase('choosing B');
  const late: Subscription[] = [];
  if (m.b) late.push((m.both = await open({ paths: [a.path, m.b.path] }, 'to both paths')));
  const iA = m.seenInterfaces.a;
  const iB = m.seenInterfaces.b;
  if (m.b && usableInterface(iA) && usableInterface(iB) && iA !== iB) {
    m.interfaces = { a: iA, b: iB };
    late.push((m.byIface = await open({ interfaces: [iA] }, `to ${iA}`)));
    late.push((m.bothIfaces = await open({ interfaces: [iB, iA] }, `to ${iB} and ${iA}`)));
    late.push((m.either = await open({ paths: [a.path], interfaces: [iB] }, `to path ${a.path} or interface ${iB}`)));
    late.push((m.neither = await open({ paths: [a.path], interfaces: [iA] }, `to path ${a.path} or interface ${iA}`)));
  }
  // The near misses, primed by B (which each lists exactly) while A primes the late ones.
  const near: Subscription[] = [];
  if (m.b) {
    const b = m.b;
    const paths = nearPaths(a.path).filter((p) => p !== b.path);
    if (paths.length > 0) near.push((m.nearPaths = await open({ paths: [b.path, ...paths] }, `to ${b.path} and near misses of ${a.path}`)));
    near.push((m.nearSlash = await open({ paths: [b.path, `${a.path}/`] }, `to ${b.path} and ${a.path}/`)));
    if (m.interfaces) {
      const iB = m.interfaces.b;
      const names = nearInterfaces(m.interfaces.a).filter((i) => i !== iB);
      const what = `to ${iB} and near misses of ${m.interfaces.a}`;
      if (names.length > 0) near.push((m.nearIface = await open({ interfaces: [iB, ...names] }, what)));
    }
  }
  // One priming write of A reaches every late subscription (A matches each by path or interface).
  await Promise.all([late.length > 0 && tryGoLive(t, late, a), near.length > 0 && m.b && tryGoLive(t, near, m.b)]);
  // Liveness belongs to a subscription, not to one entry of its filter: one listing B too that A's
  // change did not show live gets B's (what it then lacks of A is its filter's finding).
  const dark = [m.both, m.bothIfaces].filter((s): s is Subscription => s !== undefined && s.liveAt === undefined && !s.socket.closed);
  if (dark.length > 0 && m.b) await tryGoLive(t, dark, m.b);
  phase('priming the filter subscriptions');
  // Stragglers of the priming land before anything is measured: within the last priming write's window.
  await quietSince(t.cfg, Math.max(...[a, ...candidates].map((w) => w.writes.at(-1)?.at ?? 0)));
  phase('settling');

  // A socket opened now sends its filter only once the writes are done: nothing may arrive before.
  let opened: () => void = () => undefined;
  let release: () => void = () => undefined;
  const isOpen = new Promise<void>((resolve) => (opened = resolve));
  const writesDone = new Promise<void>((resolve) => (release = resolve));
  const early = m.b
    ? subscribe(t, { paths: [m.b.path] }, `the subscription to ${m.b.path} whose filter followed the writes`, {
        ...SUITE,
        beforeFilter: () => {
          opened();
          return writesDone;
        },
      }).catch(() => undefined)
    : undefined;
  if (early) await Promise.race([isOpen, early]);
  const subs = [m.only, m.all, ...OPTIONAL.map((k) => m[k])].filter((x): x is Subscription => x !== undefined);
  // The filter shapes the target let the matrix open: their part of the run's coverage plan.
  const shapes = ['only', 'all', ...OPTIONAL.filter((k) => (k === 'early' ? early !== undefined : m[k] !== undefined))];
  t.observe(PLAN_OBSERVATIONS.filters, { cases: shapes.length, ran: shapes.length, names: shapes, digest: digestOf(shapes) });
  for (const sub of subs) m.from.set(sub, sub.socket.mark());
  const writers = m.b ? [a, m.b] : [a];
  for (const w of writers) m.written.set(w, []);
  for (let r = 0; r < t.cfg.eventWrites; r++) {
    for (const w of writers) m.written.get(w)!.push(await w.write());
  }
  release();
  m.early = await early;
  if (m.early) {
    m.from.set(m.early, 0);
    subs.push(m.early);
  }
  phase('writing');
  // Every subscription waits for what its filter admits at the same time: one quiet window for all. A subscription
  // that never went live waits for nothing (its check says why).
  await collectTogether(
    eventTimes(t.cfg),
    subs.map((sub) => {
      // Fixed for the subscription: worked out once, not at every message the predicate sees.
      const owed = admitted(m, sub);
      return {
        subscription: sub,
        pred: (d: unknown) => owed.some((w) => w.changed(d)),
        count: sub.liveAt === undefined ? 0 : owed.reduce((n, w) => n + (m.written.get(w)?.length ?? 0), 0),
        from: m.from.get(sub)!,
      };
    }),
  );
  phase('collecting');
  for (const sub of subs) {
    m.until.set(sub, sub.socket.mark());
    if (sub.socket.closed) m.closedByTarget.add(sub);
  }
  return m;
}

/** Paths a sloppy match takes for `path`: its parent, the path cut short, the path in another case. */
export function nearPaths(path: string): string[] {
  const parent = path.slice(0, path.lastIndexOf('/'));
  const last = path.slice(path.lastIndexOf('/') + 1);
  const cut = last.length > 1 ? path.slice(0, -Math.min(3, last.length - 1)) : undefined;
  const swapped = swapCase(path);
  return [parent, cut, swapped].filter((p): p is string => p !== undefined && p.length > 1 && p !== path);
}

/** Interfaces a sloppy match takes for `iface`: cut short, extended, its namespace, another case. */
export function nearInterfaces(iface: string): string[] {
  const ns = iface.slice(0, iface.lastIndexOf('.'));
  const out = [iface.slice(0, -1), `${iface}.Extra`, ns.includes('.') ? ns : undefined, swapCase(iface)];
  return [...new Set(out)].filter((i): i is string => i !== undefined && i !== iface);
}

function swapCase(text: string): string {
  return [...text].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
}

/** A write of `w` as the judge's change: filters.ts reads from it what a filter must admit. */
function changeOfWrite(w: AttrWriter, no: number, write?: WriteRecord, iface?: string): Change {
  return { no, kind: 'PropertiesChanged', path: w.path, name: w.name, value: write?.value, after: write?.at, iface };
}

/** The writers whose changes a subscription's filter must admit, each named with its interface once the priming showed one. */
function admitted(m: Matrix, sub: Subscription): AttrWriter[] {
  const iface = (w: AttrWriter) => (w === m.a ? m.interfaces?.a : m.interfaces?.b);
  return [...m.written.keys()].filter((w) => admission(sub.filter as EventFilter, changeOfWrite(w, 0, undefined, iface(w))) === 'must');
}

/** The measured events of `w` a subscription received (the restores after the measurement are not). */
export function measuredEvents(m: Matrix, sub: Subscription, w: AttrWriter): ReceivedEvent[] {
  return matching(sub.socket, w.changed, m.from.get(sub) ?? 0, m.until.get(sub));
}

/**
 * Fails when `sub` received none of the measured changes of `w` (`why`: what makes them its own). The
 * message counts the writes and shows what arrived since they began, or, `measured`, names them the
 * measured changes and shows all the subscription received.
 */
export function expectSomeOf(m: Matrix, sub: Subscription, w: AttrWriter, why = '', wording: 'counted' | 'measured' = 'counted'): void {
  const counted = wording === 'counted';
  const changes = counted ? `the ${m.written.get(w)!.length} changes` : 'the measured changes';
  const received = recent(sub.socket, counted ? m.from.get(sub) : 0);
  ensure(measuredEvents(m, sub, w).length > 0, `${sub.what} received none of ${changes} of ${w.label}${why}; ${received}`);
}

/**
 * Fails when any event of `w` reached the subscription up to the end of the measurement (priming
 * included): "`who` received a PropertiesChanged of `w`'s path`why`: the event".
 */
export function expectNoEventOf(m: Matrix, sub: Subscription, w: AttrWriter, why: string, who = described(sub)): void {
  const hit = matching(sub.socket, w.changed, 0, m.until.get(sub))[0];
  ensure(!hit, `${who} received a PropertiesChanged of ${w.path}${why}: ${brief(hit?.raw ?? '')}`);
}

// --- What the checks take from the measurement ---------------------------------------------

/** Whether a subscription of the measurement still serves a check: it went live and the target has not closed it. */
export function serves(sub: Subscription | undefined): sub is Subscription {
  return sub !== undefined && sub.liveAt !== undefined && !sub.socket.closed;
}

/** The measurement, or NOT_TESTED when no subscription delivers events at all (EP-14 is that FAIL). */
export async function liveMatrix(t: CheckContext): Promise<Matrix> {
  const m = await eventMatrix(t);
  if (m.notLive) t.notTested(m.notLive.notTested ?? `no event arrived, so there is nothing to judge (see EP-14): ${m.notLive.reason}`);
  return m;
}

/**
 * A writer of the first writable attribute, for a check that provokes its own events; NOT_TESTED
 * without one, or at once when no events flow at all (the shared measurement found none).
 */
export async function eventWriter(t: CheckContext): Promise<AttrWriter> {
  const plan = await firstWritePlan(t);
  await liveMatrix(t);
  return new AttrWriter(t, plan);
}

/** A measurement with a second object, and one whose two objects' properties name distinct interfaces. */
export type WithB = Matrix & { b: AttrWriter };
export type WithInterfaces = WithB & Required<Pick<Matrix, 'interfaces'>>;

/** The measurement with a second object, or NOT_TESTED. */
export async function withB(t: CheckContext): Promise<WithB> {
  const m = await liveMatrix(t);
  if (!m.b)
    t.notTested('needs writable attributes on 2 different objects; the profile names 1 (use --writable PATH:ATTR[=V1|V2] more than once)');
  return m as WithB;
}

/** The measurement with two distinct interfaces, or NOT_TESTED. */
export async function withInterfaces(t: CheckContext): Promise<WithInterfaces> {
  const m = await withB(t);
  if (!m.interfaces) {
    t.notTested(
      `the events of the writable attributes do not name two distinct interfaces (${show(m.seenInterfaces.a)} for ${m.a.label}, ${show(m.seenInterfaces.b)} for ${m.b.label}; see EV-2): an interfaces filter cannot separate them`,
    );
  }
  t.observe('interfaces used', { [m.a.label]: m.interfaces!.a, [m.b.label]: m.interfaces!.b }, 'EV-11');
  return m as WithInterfaces;
}

/**
 * NOT_JUDGED when `what` never arrived on a subscription of the measurement that lost some of the measured
 * changes too: one more event missing on it is that loss again (EV-8's), not proof that the target sent no such event.
 */
export function notJudgedIfLossy(m: Matrix, sub: Subscription, what: string): void {
  const lossy = m.until.has(sub) && [...m.written.keys()].some((w) => streamOf(m, sub, w).judgement.missing.length > 0);
  if (lossy) notJudged(`no ${what} arrived, but ${sub.what} also lost measured changes (see EV-8)`);
}

/** A writer's measured writes, what a subscription received of them, and the stream judge's verdict. */
export interface WriteStream {
  written: unknown[];
  received: unknown[];
  /** The writes as the judge's changes, numbered from 1. */
  changes: Change[];
  judgement: StreamJudgement;
}

/** A writer's measured events on a subscription, judged against its writes through the subscription's filter. */
export function streamOf(m: Matrix, sub: Subscription, w: AttrWriter): WriteStream {
  const records = m.written.get(w) ?? [];
  const changes = records.map((r, i) => changeOfWrite(w, i + 1, r));
  const filter = sub.filter as EventFilter;
  const events = measuredEvents(m, sub, w);
  // The writer's earlier writes (its priming) whose events had not come when the measurement began:
  // those sent after the last event of the writer the subscription had received (events come in
  // order). A late, bursty target sends them into the measurement; each is that write's.
  const first = records[0] ? w.writes.indexOf(records[0]) : -1;
  const from = m.from.get(sub) ?? 0;
  const lastBefore = matching(sub.socket, w.changed, 0, from).at(-1);
  const cutoff = lastBefore?.at ?? (sub.liveAt !== undefined ? sub.socket.events[sub.liveAt]?.at : undefined) ?? Infinity;
  const outstanding = (first < 0 ? [] : w.writes.slice(0, first)).filter((r) => r.at > cutoff);
  const earlier = outstanding.map((r, i, all) => changeOfWrite(w, i - all.length + 1, r));
  const judgement = judgeStream({
    what: w.label,
    filter,
    ...withEarlier(filter, earlier, changes),
    received: events,
    tracked: () => true,
  });
  return { written: records.map((r) => r.value), received: events.map((e) => w.valueIn(e.data)), changes, judgement };
}
