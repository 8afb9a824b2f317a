/**
 * The run-wide events oracle: every frame of every subscription the run opened (the run's watcher
 * among them) is judged against the ledger of the run's causes (event-ledger.ts), whichever area
 * opened the subscription or sent the write.
 *
 * - EV-7: every message is an InterfacesAdded or a PropertiesChanged.
 * - The filter (EV-1, EV-4, EV-5, EV-6): no message after the filter is one it never admits.
 * - EV-2, an event without a change: a PropertiesChanged of a written property that only a refused
 *   write, or a write of the value it already had, can explain.
 * - EV-8, duplicates: a second message for the one write that explains it.
 * - EV-8 and the filter, omissions: a change the run made and saw applied (an event elsewhere, or
 *   a later read), that a live subscription's filter must admit, never reached it. Lost when the
 *   subscription received other events of that object; its filter's fault when it received none.
 *
 * Only properties the run wrote are judged for causes, and only on objects no action, upload or
 * DELETE touched (nor a sibling, parent or child of one): a BMC changes much by itself (sensors,
 * host state, versions' priorities), none of which the run can attribute. A property that ever
 * shows a value no write of the run explains is set aside as changing by itself.
 */
import type { Exchange } from '../../client/evidence.js';
import { admission, changeOf, filterRequirement, isBelow, type Change } from '../../client/event-filter.js';
import type { ReceivedEvent } from '../../client/subscriber.js';
import { isMap, sameValue } from '../../client/values.js';
import { stringifyJson } from '../../client/json.js';
import { sameKind, type Cause, type LedgerSubscription } from './event-ledger.js';

export type EventOracleRequirement = 'EV-1' | 'EV-2' | 'EV-4' | 'EV-5' | 'EV-6' | 'EV-7' | 'EV-8';
export const EVENT_ORACLE_REQUIREMENTS: readonly EventOracleRequirement[] = ['EV-1', 'EV-2', 'EV-4', 'EV-5', 'EV-6', 'EV-7', 'EV-8'];

export interface EventFinding {
  requirement: EventOracleRequirement;
  problem: string;
  /** The requests that explain it (the write, when there is one). */
  exchanges: Exchange[];
}

export interface EventVerdicts {
  findings: EventFinding[];
  /** What each requirement was judged on (frames, or owed changes for omissions). */
  judged: Record<EventOracleRequirement, number>;
  /** Written properties set aside because something besides the run's writes changed them. */
  setAside: string[];
}

export interface OracleInput {
  subscriptions: readonly LedgerSubscription[];
  causes: readonly Cause[];
  /** How late an event may come (the run's event timeout). */
  boundMs: number;
  /** How late an event usually comes at most (the profile's latency bound; default a third of boundMs). */
  latencyMs?: number;
  /** Findings kept per requirement; beyond it only the count grows. */
  keep?: number;
}

const KEEP = 12;
const CLIP = 160;

function clip(text: string): string {
  return text.length > CLIP ? `${text.slice(0, CLIP)}…` : text;
}

function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

/** The same object, one above the other, or siblings: where one change may bring another. */
function related(a: string, b: string): boolean {
  return a === b || isBelow(a, b) || isBelow(b, a) || parentOf(a) === parentOf(b);
}

interface Write {
  cause: Cause;
  name: string;
  value: unknown;
  /** For an accepted write: did the value differ from what it was? */
  change: 'changed' | 'same' | 'unknown';
  /**
   * It may have set a value other than its own: its outcome is unknown (a 5xx, no answer), or it
   * was accepted with a value of another JSON type than the property's (a server that coerces).
   */
  transforms: boolean;
  /** A read after its answer, before the next write of the property, showed another value: not done. */
  refuted: boolean;
}

interface Frame {
  sub: LedgerSubscription;
  e: ReceivedEvent;
  value: unknown;
}

function described(s: LedgerSubscription): string {
  return s.role ?? `the subscription with the filter ${clip(s.filterText)}`;
}

function writeText(w: Write): string {
  return `${w.cause.x.method} ${clip(w.cause.x.url)} ${clip(w.cause.x.requestBody ?? '')} (answered ${w.cause.x.status ?? 'nothing'})`;
}

/** A PropertiesChanged's path, interface and properties; undefined for any other message. */
export function propsOf(data: unknown): { path: string; iface?: string; props: Record<string, unknown> } | undefined {
  if (!isMap(data) || data.event !== 'PropertiesChanged' || typeof data.path !== 'string' || !isMap(data.properties)) return undefined;
  return { path: data.path, ...(typeof data.interface === 'string' && { iface: data.interface }), props: data.properties };
}

/** The same event: path, interface and the same properties with the same values. */
function sameMessage(a: unknown, b: unknown): boolean {
  const x = propsOf(a);
  const y = propsOf(b);
  return x !== undefined && y !== undefined && x.path === y.path && x.iface === y.iface && sameValue(x.props, y.props);
}

/** Frames a subscription received once its filter was sent. */
function filtered(s: LedgerSubscription): ReceivedEvent[] {
  return s.subscriber.events.filter((e) => e.at >= s.filterSentAt);
}

export function judgeEvents(input: OracleInput): EventVerdicts {
  const keep = input.keep ?? KEEP;
  const judged: Record<EventOracleRequirement, number> = { 'EV-1': 0, 'EV-2': 0, 'EV-4': 0, 'EV-5': 0, 'EV-6': 0, 'EV-7': 0, 'EV-8': 0 };
  const findings: EventFinding[] = [];
  const counts = new Map<EventOracleRequirement, number>();
  const find = (requirement: EventOracleRequirement, problem: string, exchanges: Exchange[] = []): void => {
    const n = (counts.get(requirement) ?? 0) + 1;
    counts.set(requirement, n);
    if (n <= keep) findings.push({ requirement, problem, exchanges });
  };
  const late = input.boundMs * 2;
  /** How late an event usually comes at most. */
  const latency = input.latencyMs ?? input.boundMs / 3;

  // EV-7 and the filters, on every message of every subscription.
  for (const s of input.subscriptions) {
    for (const e of s.subscriber.events) {
      judged['EV-7']++;
      const kind = isMap(e.data) ? e.data.event : undefined;
      if (kind !== 'PropertiesChanged' && kind !== 'InterfacesAdded') {
        find('EV-7', `${described(s)} received a message that is neither event: ${clip(e.raw)}`, s.exchange ? [s.exchange] : []);
        continue;
      }
      if (!s.filter || e.at < s.filterSentAt) continue;
      const change = changeOf(e.data);
      if (!change) continue;
      const req = filterRequirement(s.filter) as EventOracleRequirement;
      judged[req]++;
      if (admission(s.filter, change) === 'never')
        find(req, `${described(s)} received an event its filter never admits: ${clip(e.raw)}`, s.exchange ? [s.exchange] : []);
    }
  }

  // The objects whose values the run cannot attribute: touched by an action, upload or DELETE, or new.
  // An action may change anything (a factory reset resets the whole tree): what was seen across one is no evidence.
  const actions = input.causes.filter((c) => (c.kind === 'action' || c.kind === 'other') && c.outcome !== 'refused');
  const actionBetween = (from: number, to: number) => actions.some((a) => a.answeredAt > from && a.sentAt < to);
  // Its own events come within the target's latency of its answer.
  const actionNear = (at: number) => actions.some((a) => a.sentAt <= at && at <= a.answeredAt + latency);
  // A refused action or DELETE changes nothing: an event it brings is judged like any other.
  const touched = input.causes
    // A request whose path names no object ('/') sets nothing aside: it is a boundary in time (actionBetween).
    .filter((c) => (c.kind === 'action' || c.kind === 'delete' || c.kind === 'other') && c.outcome !== 'refused' && c.path !== '/')
    .map((c) => c.path);
  for (const s of input.subscriptions)
    for (const e of s.subscriber.events)
      if (isMap(e.data) && e.data.event === 'InterfacesAdded' && typeof e.data.path === 'string') touched.push(e.data.path);
  const uploads = input.causes.some((c) => c.kind === 'upload' && c.outcome !== 'refused');
  const attributable = (path: string) => !touched.some((t) => related(path, t)) && !(uploads && /\/software(\/|$)/.test(path));

  // The written properties, with their writes in the order sent.
  const writes = new Map<string, Write[]>();
  for (const c of input.causes) {
    if (c.kind !== 'put-attr' && c.kind !== 'put-object') continue;
    if (!attributable(c.path)) continue;
    for (const [name, value] of Object.entries(c.values)) {
      const key = `${c.path} ${name}`;
      let list = writes.get(key);
      if (!list) writes.set(key, (list = []));
      list.push({ cause: c, name, value, change: 'unknown', transforms: false, refuted: false });
    }
  }
  // Every frame of each written property, on every subscription.
  const frames = new Map<string, Frame[]>();
  for (const s of input.subscriptions)
    for (const e of filtered(s)) {
      const p = propsOf(e.data);
      if (!p) continue;
      for (const [name, value] of Object.entries(p.props)) {
        const key = `${p.path} ${name}`;
        if (!writes.has(key)) continue;
        let list = frames.get(key);
        if (!list) frames.set(key, (list = []));
        list.push({ sub: s, e, value });
      }
    }
  const setAside: string[] = [];
  /** The kinds of change (put-attr, put-object) each subscription received an event of. */
  const delivered = new Map<LedgerSubscription, Set<string>>();
  /** Subscriptions that received nothing at all, with the changes owed them that others received. */
  const silent = new Map<LedgerSubscription, Map<Exchange, string>>();
  const misses: Miss[] = [];
  // Another write to the same object may change this property too: within the latency of its answer.
  const collateral = (path: string, name: string, at: number) =>
    input.causes.some(
      (c) =>
        c.outcome !== 'refused' &&
        c.path === path &&
        // A write of this very property explains its events directly, not as a side effect.
        !Object.hasOwn(c.values, name) &&
        c.sentAt <= at &&
        at <= c.answeredAt + latency,
    );

  for (const [key, ws] of writes) {
    const fs = frames.get(key) ?? [];
    const [path, name] = [ws[0]!.cause.path, ws[0]!.name];
    const sample = ws.find((w) => w.cause.before[name]?.read)?.cause.before[name]?.value;
    for (const w of ws)
      w.transforms =
        w.cause.outcome === 'unknown' || (w.cause.outcome === 'accepted' && sample !== undefined && !sameKind(sample, w.value));
    const transformed = (at: number) => ws.some((w) => w.transforms && w.cause.sentAt <= at && at <= w.cause.answeredAt + late);
    // A value no write of the run explains, while no write of it was on its way: the property changes by itself.
    // (One in a write's window is that write's doing, however the target read it: it is not judged.)
    const writing = (at: number) => ws.some((w) => w.cause.sentAt <= at && at <= w.cause.answeredAt + late);
    const unexplained = (f: Frame) =>
      !ws.some((w) => sameValue(w.value, f.value)) && !collateral(path, name, f.e.at) && !transformed(f.e.at);
    if (fs.some((f) => unexplained(f) && !writing(f.e.at))) {
      setAside.push(`${path} ${name}`);
      continue;
    }
    for (const w of ws) w.change = actionBetween(w.cause.before[name]?.at ?? 0, w.cause.sentAt) ? 'unknown' : changeMade(w, fs, ws);
    // Writes of the property in flight together take effect in an order no one knows: neither
    // whether each changed the value nor what a later read says of one is evidence.
    const concurrent = (w: Write) => ws.some((o) => o !== w && o.cause.sentAt < w.cause.answeredAt && w.cause.sentAt < o.cause.answeredAt);
    for (const w of ws) if (concurrent(w)) w.change = 'unknown';
    for (const [i, w] of ws.entries()) {
      if (concurrent(w)) continue;
      const next = ws[i + 1]?.cause.before[name];
      w.refuted =
        next?.read === true &&
        next.at > w.cause.answeredAt &&
        !sameValue(next.value, w.value) &&
        !actionBetween(w.cause.answeredAt, next.at);
    }
    const explained = new Map<Write, Frame[]>();
    for (const s of input.subscriptions) {
      const used = new Set<Write>();
      let lastSent = -Infinity;
      let prevAt = -Infinity;
      for (const f of fs) {
        if (f.sub !== s) continue;
        const before = prevAt;
        prevAt = f.e.at;
        // A write answered before the filter was sent signalled before the subscription existed.
        const inWindow = (w: Write) =>
          sameValue(w.value, f.value) &&
          w.cause.answeredAt >= s.filterSentAt &&
          w.cause.sentAt <= f.e.at &&
          f.e.at <= w.cause.answeredAt + late;
        const cands = ws.filter((w) => w.cause.outcome === 'accepted' && w.change !== 'same' && !w.refuted && inWindow(w));
        judged['EV-2']++;
        judged['EV-8']++;
        // Events come in the order written: after the last one's write, a write known to have changed the value first.
        const free = [
          (w: Write) => w.cause.sentAt >= lastSent && w.change === 'changed',
          (w: Write) => w.cause.sentAt >= lastSent,
          (w: Write) => w.change === 'changed',
          () => true,
        ]
          .map((pref) => cands.find((w) => !used.has(w) && pref(w)))
          .find((w) => w !== undefined);
        if (free) {
          lastSent = Math.max(lastSent, free.cause.sentAt);
          used.add(free);
          explained.set(free, [...(explained.get(free) ?? []), f]);
          continue;
        }
        if (collateral(path, name, f.e.at) || transformed(f.e.at) || actionNear(f.e.at)) continue;
        // A write that changed nothing, sent since the last event of the property here, is the likelier cause.
        const noChange = ws.find((w) => (w.cause.outcome === 'refused' || w.change === 'same') && inWindow(w) && w.cause.sentAt > before);
        if (noChange) {
          const why = noChange.cause.outcome === 'refused' ? 'the write was refused' : `the write gave ${name} the value it already had`;
          find(
            'EV-2',
            `${described(s)} received an event of a change that never happened: ${why}: ${writeText(noChange)}; event ${clip(f.e.raw)}`,
            [noChange.cause.x],
          );
        } else if (cands.length > 0) {
          const w = cands.at(-1)!;
          // Sent since the last event here and writing another value: this one reports the old value anew.
          const later = ws.find(
            (o) => o.cause.outcome === 'accepted' && o.cause.sentAt > before && o.cause.sentAt <= f.e.at && !sameValue(o.value, f.value),
          );
          if (later) {
            find(
              'EV-2',
              `${described(s)} received an event of a change that never happened: ${name} ${clip(stringifyJson(f.value))} again, the value it held before ${writeText(later)}: ${clip(f.e.raw)}`,
              [later.cause.x],
            );
            continue;
          }
          // A duplicate is the same message again, right after it (nothing of the property between) and
          // within the target's latency; anything less plain is not judged (a burst read by value can mislead).
          const previous = fs
            .slice(0, fs.indexOf(f))
            .filter((o) => o.sub === s)
            .at(-1);
          if (previous && sameMessage(previous.e.data, f.e.data) && f.e.at - previous.e.at <= latency)
            find('EV-8', `${described(s)} received the event of one write twice: ${writeText(w)}; again at ${clip(f.e.raw)}`, [w.cause.x]);
        }
      }
    }
    for (const [w, got] of explained) for (const f of got) kindsOn(delivered, f.sub).add(w.cause.kind);
    omissions(input, ws, fs, explained, silent, misses, judged);
  }
  // Judged once every property's events are attributed: whether a subscription delivers a kind of change at all.
  judgeMisses(misses, delivered, find);
  // A subscription that never received anything while two or more changes its filter must admit
  // reached subscriptions opened no later: its filter, not a lost event (one lost in three would not lose all).
  for (const [s, owed] of silent) {
    if (owed.size < 2 || !s.filter) continue;
    const req = filterRequirement(s.filter) as EventOracleRequirement;
    judged[req]++;
    find(
      req,
      `${described(s)} never received any event, though its filter must admit ${owed.size} changes others received: ${[...owed.values()].slice(0, 2).join('; ')}`,
      [...owed.keys()].slice(0, 4),
    );
  }
  return { findings, judged, setAside };
}

function kindsOn(delivered: Map<LedgerSubscription, Set<string>>, s: LedgerSubscription): Set<string> {
  let kinds = delivered.get(s);
  if (!kinds) delivered.set(s, (kinds = new Set()));
  return kinds;
}

/** Whether an accepted write changed the value, from what the run saw last before it was sent. */
function changeMade(w: Write, fs: readonly Frame[], ws: readonly Write[]): Write['change'] {
  if (w.cause.outcome !== 'accepted') return 'unknown';
  // What a write answered 200 set is no evidence (a target may acknowledge and not do it): reads and events are.
  const read = w.cause.before[w.name]?.read === true ? w.cause.before[w.name] : undefined;
  let seen = read && { value: read.value, at: read.at, since: read.at };
  // A later event tells the value better than an older read.
  for (const f of fs) {
    if (f.e.at >= w.cause.sentAt || (seen !== undefined && f.e.at <= seen.at)) continue;
    // What it shows may be older than its arrival (one socket read late): as old as the last write of
    // that value sent before it came, its likeliest cause.
    const cause = ws.filter((o) => o.cause.outcome !== 'refused' && o.cause.sentAt <= f.e.at && sameValue(o.value, f.value)).at(-1);
    seen = { value: f.value, at: f.e.at, since: Math.min(f.e.at, cause?.cause.sentAt ?? f.e.at) };
  }
  if (seen === undefined) return 'unknown';
  // A write taken since what was seen (its event maybe still on its way, or a value it set that no
  // one knows) leaves the value unknown, unless it wrote the value seen: its event may be what was seen.
  const known = seen;
  const unsettles = (o: Write) =>
    o !== w &&
    o.cause.outcome !== 'refused' &&
    o.cause.sentAt < w.cause.sentAt &&
    o.cause.answeredAt > known.since &&
    (o.transforms || !sameValue(o.value, known.value));
  if (ws.some(unsettles)) return 'unknown';
  return sameValue(seen.value, w.value) ? 'same' : 'changed';
}

function omissions(
  input: OracleInput,
  ws: readonly Write[],
  fs: readonly Frame[],
  explained: ReadonlyMap<Write, Frame[]>,
  silent: Map<LedgerSubscription, Map<Exchange, string>>,
  misses: Miss[],
  judged: Record<EventOracleRequirement, number>,
): void {
  // The property raises events at all: one of its writes was received somewhere.
  if (explained.size === 0) return;
  const iface = fs.map((f) => propsOf(f.e.data)?.iface).find((i) => i !== undefined);
  for (const [i, w] of ws.entries()) {
    if (w.cause.outcome !== 'accepted' || w.change !== 'changed' || w.refuted) continue;
    const got = explained.get(w) ?? [];
    // Applied: an event of it arrived somewhere, or the next write's read saw its value.
    const next = ws[i + 1]?.cause.before[w.name];
    const applied = got.length > 0 || (next?.read === true && next.at > w.cause.answeredAt && sameValue(next.value, w.value));
    if (!applied) continue;
    const change: Change = { no: 0, kind: 'PropertiesChanged', path: w.cause.path, name: w.name, value: w.value, ...(iface && { iface }) };
    for (const s of input.subscriptions) {
      if (!s.filter || s.anonymous) continue;
      const first = s.subscriber.events.find((e) => e.at >= s.filterSentAt);
      const live = first !== undefined && first.at < w.cause.sentAt;
      const open = s.subscriber.closedAt === undefined || s.subscriber.closedAt >= w.cause.answeredAt + input.boundMs;
      if (!open || admission(s.filter, change) !== 'must') continue;
      if (first === undefined && w.cause.sentAt > s.filterSentAt) {
        // Silent all along: owed what subscriptions opened no later than it received.
        const peers = got.filter((f) => f.sub !== s && f.sub.filterSentAt <= s.filterSentAt);
        if (peers.length > 0) {
          if (!silent.has(s)) silent.set(s, new Map());
          // By the write itself: two writes of one text (a value written twice) are two changes owed.
          silent.get(s)!.set(w.cause.x, `${writeText(w)}, which ${described(peers[0]!.sub)} received`);
        }
      }
      if (!live) continue;
      judged['EV-8']++;
      if (got.some((f) => f.sub === s)) continue;
      const elsewhere = [...new Set(got.map((f) => described(f.sub)))];
      misses.push({ s, w, elsewhere, ofObject: filtered(s).some((e) => propsOf(e.data)?.path === w.cause.path) });
    }
  }
}

interface Miss {
  s: LedgerSubscription;
  w: Write;
  /** The subscriptions that received it. */
  elsewhere: string[];
  /** Whether the subscription received any event of the object. */
  ofObject: boolean;
}

/**
 * Each change a live subscription never received. Lost (EV-8) where it delivers this object's and
 * this kind's changes otherwise; its filter's where others received it and it never delivers the
 * object, or missed two or more changes of a kind (put-attr, put-object) and delivered none: an
 * entry of the filter, or a kind of change, not honoured (one event lost in three would not lose both).
 */
function judgeMisses(
  misses: readonly Miss[],
  delivered: ReadonlyMap<LedgerSubscription, ReadonlySet<string>>,
  find: (r: EventOracleRequirement, problem: string, xs?: Exchange[]) => void,
): void {
  const missedOfKind = (s: LedgerSubscription, kind: string) => misses.filter((m) => m.s === s && m.w.cause.kind === kind).length;
  for (const { s, w, elsewhere, ofObject } of misses) {
    const kindDropped = delivered.get(s)?.has(w.cause.kind) !== true && missedOfKind(s, w.cause.kind) >= 2;
    const req: EventOracleRequirement =
      elsewhere.length > 0 && (!ofObject || kindDropped) ? (filterRequirement(s.filter!) as EventOracleRequirement) : 'EV-8';
    const where = elsewhere.length > 0 ? `, which ${elsewhere.join(', ')} received` : ', and no subscription received it';
    const never = !ofObject ? 'no event of that object' : `no change made by ${w.cause.kind}`;
    const why = req === 'EV-8' ? '' : ` (it received ${never} at all)`;
    find(req, `${described(s)} never received the event of ${writeText(w)}${where}${why}`, [w.cause.x]);
  }
}
