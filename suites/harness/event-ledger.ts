/**
 * The run-wide ledger the events oracle judges from: every subscription any area opens (with what
 * it received), and every request of the run that can change the tree (its cause), with what the
 * run last saw of each written property before it was sent. Whichever area opened a subscription
 * or sent a write, its frames and its causes meet here (suites/oracle, events-oracle.ts).
 */
import type { Exchange } from '../../client/evidence.js';
import { outcomeOf, pathOf, routeOf } from '../../client/answer-site.js';
import { EventSubscriber, type OpenedSubscription } from '../../client/subscriber.js';
import { forgetEachRun } from '../../client/run-scoped.js';
import { isMap } from '../../client/values.js';
import { parseJson } from '../../client/json.js';
import type { EventFilter } from '../../client/event-filter.js';

export type CauseKind = 'put-attr' | 'put-object' | 'action' | 'upload' | 'delete' | 'other';

/** A request that can change the tree, as the run sent it. */
export interface Cause {
  kind: CauseKind;
  /** The object it addressed (the attribute's object for put-attr; for an upload, /upload/image). */
  path: string;
  /** What a PUT wrote, by property name. */
  values: Record<string, unknown>;
  /** performance.now() when the request was sent and when its answer came. */
  sentAt: number;
  answeredAt: number;
  /** 2xx, 4xx, or anything else (5xx, no answer: whether it changed something is unknown). */
  outcome: 'accepted' | 'refused' | 'unknown';
  /** For a PUT: what the run had last seen of each written property before sending it. */
  before: Record<string, Seen | undefined>;
  x: Exchange;
}

/** A value the run saw: read by a GET (`read`) or written by an accepted PUT. */
export interface Seen {
  value: unknown;
  at: number;
  read: boolean;
}

export interface LedgerSubscription extends OpenedSubscription {
  /** The filter when the text is one the spec describes (an object of paths and interfaces string arrays). */
  filter?: EventFilter;
}

const subscriptions: LedgerSubscription[] = [];
const causes: Cause[] = [];
/** The last value the run saw of each property, by object path (GET answers and accepted PUTs). */
const known = new Map<string, Map<string, Seen>>();

forgetEachRun(() => {
  subscriptions.length = 0;
  causes.length = 0;
  known.clear();
});

EventSubscriber.onOpened((s) => {
  const filter = filterOf(s.filterText);
  subscriptions.push(filter ? { ...s, filter } : { ...s });
});

/** A filter as the spec describes it, or undefined for anything else (the malformed filters of EV-10). */
export function filterOf(text: string): EventFilter | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
  if (!isMap(v)) return undefined;
  const out: EventFilter = {};
  for (const [key, list] of Object.entries(v)) {
    if (key !== 'paths' && key !== 'interfaces') return undefined;
    if (!Array.isArray(list) || !list.every((e) => typeof e === 'string')) return undefined;
    out[key] = list as string[];
  }
  return out;
}

function decoded(path: string): string | undefined {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
}

function dataOf(body: string | undefined): { ok: boolean; data?: unknown } {
  if (body === undefined) return { ok: false };
  try {
    // A leading byte order mark is read past by the field's parsers (nlohmann::json, Python on bytes).
    // Parsed as the client parses answers and events (an integer beyond 2^53 stays exact), so that they compare.
    const v = parseJson(body.replace(/^\ufeff/, ''));
    return isMap(v) && Object.hasOwn(v, 'data') ? { ok: true, data: v.data } : { ok: false };
  } catch {
    return { ok: false };
  }
}

/** Values of one JSON kind (a boolean and 0/1 are one: a D-Bus boolean in either encoding). */
export function sameKind(a: unknown, b: unknown): boolean {
  const bit = (v: unknown) => typeof v === 'boolean' || v === 0 || v === 1;
  // A property shown as 0/1 may be a boolean: another number written to it may be coerced.
  if (bit(a) || bit(b)) return bit(a) && bit(b);
  // An integer too large for a double is parsed as a bigint: a number all the same.
  const kind = (v: unknown) => (typeof v === 'bigint' ? 'number' : typeof v);
  return kind(a) === kind(b);
}

/**
 * A read counts from when it was sent, a write from when it was answered: a read that overlapped
 * a write may show the value before it, so the write's value stays the newer.
 */
function see(path: string, name: string, value: unknown, at: number, read = true): void {
  let m = known.get(path);
  if (!m) known.set(path, (m = new Map()));
  const was = m.get(name);
  if (was === undefined || at >= was.at) m.set(name, { value, at, read });
}

/** What a successful GET showed of the tree's values. */
function noteRead(route: string, path: string, data: unknown, at: number): void {
  if (route === 'object' && isMap(data)) for (const [k, v] of Object.entries(data)) see(path, k, v, at);
  else if (route === 'attr') {
    const i = path.lastIndexOf('/attr/');
    see(path.slice(0, i), path.slice(i + 6), data, at);
  } else if (route === 'enumerate' && isMap(data))
    for (const [p, props] of Object.entries(data)) if (isMap(props)) for (const [k, v] of Object.entries(props)) see(p, k, v, at);
}

const CAUSE_ROUTES: Readonly<Record<string, CauseKind>> = {
  'put-attr': 'put-attr',
  'put-object': 'put-object',
  action: 'action',
  upload: 'upload',
  'upload-named': 'upload',
  delete: 'delete',
  other: 'other',
};

/** A request of no route of the interface that a target did not refuse (a PATCH taken): it may have changed anything. */
function otherChange(x: Readonly<Exchange>): 'other' | undefined {
  const m = x.method.toUpperCase();
  if (m === 'GET' || m === 'HEAD' || m === 'OPTIONS' || x.url.startsWith('/subscribe')) return undefined;
  return x.status !== undefined && x.status >= 400 && x.status < 500 ? undefined : 'other';
}

/** Notes one exchange of the run (a listener on the run's evidence log, beside the answers oracle). */
export function noteCause(x: Readonly<Exchange>, json?: unknown): void {
  // No answer at all (a restart, a dropped connection): what the target holds after it is no longer what was seen.
  const lost = x.status === undefined && x.error !== undefined;
  const route = lost ? 'other' : (routeOf(x.method, x.url) ?? otherChange(x));
  if (!route) return;
  const answeredAt = performance.now();
  // When it was sent: its wall-clock start (cut to the millisecond, so never late), on this clock.
  // answeredAt - durationMs would be late by the listeners before this one, and an event of it may be earlier.
  const startedAt = Date.parse(x.at);
  const sentAt = Number.isNaN(startedAt)
    ? answeredAt - x.durationMs
    : Math.min(answeredAt - x.durationMs, answeredAt - (Date.now() - startedAt));
  // A path no decoding reads (a stray %) names no object the ledger knows; a target may still read it
  // its own way and write: a change the run cannot place, like an action's.
  const path = lost ? '' : (decoded(pathOf(x.url)) ?? (otherChange(x) && route !== 'login' && route !== 'logout' ? '' : undefined));
  if (path === undefined) return;
  if (path === '') {
    const status = x.status ?? 0;
    const taken = status >= 200 && status < 300 ? 'accepted' : 'unknown';
    causes.push({ kind: 'other', path: '/', values: {}, sentAt, answeredAt, outcome: taken, before: {}, x: { ...x } });
    return;
  }
  const outcome = x.status === undefined ? undefined : outcomeOf(x.status);
  if (route === 'object' || route === 'attr' || route === 'enumerate') {
    if (outcome !== 'ok') return;
    const data = isMap(json) ? json.data : undefined;
    noteRead(route, route === 'enumerate' ? path.slice(0, -'/enumerate'.length) : path, data, sentAt);
    return;
  }
  const kind = CAUSE_ROUTES[route];
  if (!kind) return;
  const status = x.status ?? 0;
  const cause: Cause = {
    kind,
    path,
    values: {},
    sentAt,
    answeredAt,
    outcome: status >= 200 && status < 300 ? 'accepted' : status >= 400 && status < 500 ? 'refused' : 'unknown',
    before: {},
    x: { ...x },
  };
  if (kind === 'put-attr' || kind === 'put-object') {
    const body = dataOf(x.requestBody);
    const i = path.lastIndexOf('/attr/');
    if (kind === 'put-attr') cause.path = path.slice(0, i);
    if (body.ok && kind === 'put-attr') cause.values = { [path.slice(i + 6)]: body.data };
    else if (body.ok && isMap(body.data)) cause.values = { ...body.data };
    else {
      // A body the ledger cannot read that the target took anyway set something no one knows.
      if (cause.outcome !== 'refused') causes.push({ ...cause, kind: 'other' });
      return;
    }
    // Only what was seen before it was sent: a read overlapping it may show either value.
    for (const name of Object.keys(cause.values)) {
      const was = known.get(cause.path)?.get(name);
      cause.before[name] = was !== undefined && was.at <= cause.sentAt ? was : undefined;
    }
    // An accepted value of another JSON type may have been coerced: what it became is unknown.
    for (const [k, v] of Object.entries(cause.values)) {
      const was = cause.before[k];
      if (cause.outcome === 'refused') continue;
      if (cause.outcome === 'accepted' && was !== undefined && sameKind(was.value, v)) see(cause.path, k, v, answeredAt, false);
      else known.get(cause.path)?.delete(k);
    }
  }
  causes.push(cause);
}

/** What the ledger holds now. */
export function eventLedger(): { subscriptions: readonly LedgerSubscription[]; causes: readonly Cause[] } {
  return { subscriptions, causes };
}
