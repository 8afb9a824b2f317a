/** Events: the /subscribe channel, its filters, the two event kinds, order, isolation of subscribers. */
import { afterAll, beforeAll } from 'vitest';
import { EventSubscriber, type ReceivedEvent } from '../../client/subscriber.js';
import { okData } from '../../client/answer.js';
import { isMap, sameValue } from '../../client/values.js';
import { profileAllows } from '../../runner/config.js';
import { check as harnessCheck, evidenceMark, runConfig, type CheckContext, type CheckOptions } from '../harness/check.js';
import { asObject, CheckFailure, describeResponse, ensure, expectOk, fail, notJudged, show } from '../harness/assert.js';
import { addedUnion, admitsEverySignal } from './engine/judge.js';
import { admission, filterRequirement, interfaceProblem, isBelow, type EventFilter } from './engine/filters.js';
import { changeOf } from '../../client/event-filter.js';
import { expectSchema } from '../harness/schema.js';
import {
  eventMatrix,
  eventWriter,
  expectNoEventOf,
  expectSomeOf,
  liveMatrix,
  measuredEvents,
  notJudgedIfLossy,
  primingInterface,
  serves,
  streamOf,
  withB,
  type WithB,
  withInterfaces,
} from './event-matrix.js';
import { BREAKS, describeOutcome, expectPropertiesChanged, expectStreams, streamProblems } from './event-findings.js';
import { brief, closedBy, described, matching, neverLive, recent, type Subscription } from './engine/subscription.js';
import { quietSince, quietWindow, sleep, waitUntil } from './engine/waits.js';
import { percentile } from '../../client/percentile.js';
import { lastVersionRemoval, uploadAndTrack } from '../harness/software.js';
import { interfaceKeys, invalidateTreeCache } from '../harness/tree.js';
import { noWritableReason, putAttr, readValue, writePlans, type WritePlan } from '../harness/writable.js';
import {
  AttrWriter,
  closeSuiteSubscriptions,
  everythingReceived,
  isEventLike,
  isInterfacesAdded,
  isPropertiesChanged,
  openLive,
  pingsSeen,
  provoke,
  subscribe,
  tryGoLive,
} from './events.js';

const cfg = runConfig();

// The shared measurement's subscriptions are read by several checks: closed when the suite ends.
afterAll(() => closeSuiteSubscriptions(cfg));
/** Where the suite's requests and subscriptions begin in the run's evidence. */
let suiteStart = 0;
beforeAll(() => {
  suiteStart = evidenceMark();
});
/** Every wait is bounded by eventTimeoutMs or quietWindowMs; a check makes a few dozen of them at most. */
const WAITS = { timeoutMs: cfg.eventTimeoutMs * 24 + cfg.quietWindowMs * 8 + cfg.timeoutMs * 2 };
/** Uploads answer slowly on hardware (the image manager is polled). */
const UPLOADS = { timeoutMs: WAITS.timeoutMs + 4 * Math.max(cfg.eventTimeoutMs, 15_000) };
/** A check that only reads what the suite's subscriptions received: no profile, no wait of its own. */
const RECEIVED: CheckOptions = {};

/**
 * The harness's check(), but most of this suite's checks write to provoke their events: a check
 * given no options needs the safe profile and has the time of its event waits.
 */
function check(ids: string | readonly string[], title: string, body: (t: CheckContext) => Promise<void>, options?: CheckOptions): void {
  harnessCheck(ids, title, body, options ?? { profile: 'safe', ...WAITS });
}

check('EP-14', 'after login, /subscribe takes a filter and pushes the PropertiesChanged of each write', async (t) => {
  const m = await eventMatrix(t);
  if (m.notLive?.notTested) t.notTested(m.notLive.notTested);
  if (m.notLive) fail(`after login, ${m.notLive.reason}`);
  const got = measuredEvents(m, m.only, m.a);
  ensure(
    got.length > 0,
    `the subscription delivered the priming change of ${m.a.label} but none of the ${m.written.get(m.a)!.length} writes that followed; ${recent(m.only.socket)}`,
  );
});

check('EV-2', "each PropertiesChanged carries event, the path, the property's interface and the written value", async (t) => {
  const m = await liveMatrix(t);
  const priming = m.only.socket.events[m.only.liveAt!]!;
  for (const event of [priming, ...measuredEvents(m, m.only, m.a)]) expectPropertiesChanged(t, event, m.a);
  t.observe(`interface of ${m.a.label}`, primingInterface(m.only));
});

check('EV-8', 'K writes to one attribute yield K PropertiesChanged: none missing, none duplicated', async (t) => {
  const m = await liveMatrix(t);
  expectStreams(m, m.only, [m.a], 'EV-8');
});

check('EV-9', 'K writes to one attribute arrive in write order', async (t) => {
  const m = await liveMatrix(t);
  if (measuredEvents(m, m.only, m.a).length < 2) t.notTested(`fewer than two events of ${m.a.label} arrived: no order to judge (see EV-8)`);
  expectStreams(m, m.only, [m.a], 'EV-9');
});

/** A subscription of the measurement that still serves the check, else one of its own primed with `writer`'s change. */
async function sharedOrOwn(t: CheckContext, shared: Subscription | undefined, filter: unknown, writer: AttrWriter): Promise<Subscription> {
  if (serves(shared)) return shared;
  return openLive(t, filter, writer, { settle: true, because: 'the subscription never went live (see EP-14)' });
}

/** Writes in one burst: enough that a server swapping events emitted close together shows it. */
const BURST = 4;

check('EV-9', 'a burst of concurrent writes to one attribute: the last event carries the value the target kept', async (t) => {
  const plans = await writePlans(t);
  const capable = (p: WritePlan) => new AttrWriter(t, p, { restore: false }).distinctValues(BURST).length === BURST;
  const plan = plans.find(capable);
  if (!plan)
    return t.notTested(
      `needs a writable attribute with ${BURST} values besides its current one (a string or a number); the profile names ${plans.map((p) => `${p.attr.path} ${p.attr.name}`).join(', ') || 'none'}`,
    );
  const m = await liveMatrix(t);
  const writer = new AttrWriter(t, plan);
  // The shared measurement's live subscription to that path serves, when it has one.
  const onPath = [m.only, m.onlyB].find((sub) => serves(sub) && (sub.filter as { paths?: string[] }).paths?.[0] === writer.path);
  const sub = await sharedOrOwn(t, onPath, { paths: [writer.path] }, writer);
  const from = sub.socket.mark();
  const values = writer.distinctValues(BURST);
  // The target applies concurrent writes in an order of its own; whichever it applied last is
  // the value it keeps, and its event must be the last to arrive.
  const final = await writer.burst(values);
  // The burst's own events: a late event of an earlier change (the restore after the shared
  // measurement, on a slow target) carries a value the burst did not write.
  const ofBurst = (d: unknown) => values.some((v) => writer.carrying(v)(d));
  // Then the quiet window from the burst's answers, for extras.
  const answered = performance.now();
  await sub.socket.waitForCount(ofBurst, values.length, t.cfg.eventTimeoutMs, { from }).catch(() => undefined);
  await quietSince(t.cfg, answered);
  const events = matching(sub.socket, ofBurst, from);
  if (events.length !== values.length) {
    notJudged(
      `${events.length} PropertiesChanged of ${writer.label} carrying the ${values.length} values of the burst arrived: order cannot be judged (see EV-8); ${recent(sub.socket, from)}`,
    );
  }
  const last = writer.valueIn(events.at(-1)!.data);
  ensure(
    sameValue(last, final),
    `a burst of ${values.length} concurrent writes to ${writer.label}: the last PropertiesChanged carries ${show(last)}, but the target kept ${show(final)}; the events did not arrive in the order of the changes; ${recent(sub.socket, from)}`,
  );
});

check('EV-11', 'event latency (write to event) is recorded', async (t) => {
  const m = await liveMatrix(t);
  const { changes, judgement } = streamOf(m, m.only, m.a);
  const latencies = changes
    .flatMap((c) => (judgement.arrived.has(c.no) ? [judgement.arrived.get(c.no)! - c.after!] : []))
    .sort((a, b) => a - b);
  if (latencies.length === 0) t.notTested('no event of the measured writes arrived: no latency to record (see EP-14)');
  const ms = (x: number) => Math.round(x * 10) / 10;
  t.observe('event latency ms (PUT sent → event received)', {
    events: latencies.length,
    p50: ms(percentile(latencies, 50)),
    max: ms(latencies.at(-1)!),
  });
  t.observe('quiet window used ms', quietWindow(t.cfg));
  t.observe('shared measurement, seconds per phase', m.phases);
});

/** The stream judge's findings that break `requirement` on A's and B's streams through the subscription to both paths. */
async function expectInterleaved(t: CheckContext, requirement: 'EV-8' | 'EV-9'): Promise<void> {
  const m = await withB(t);
  if (m.both!.liveAt === undefined) t.notTested(`${neverLive(m.both!)} (see EV-4)`);
  // A listed path none of whose changes arrived is the filter's finding, not a lost event.
  const dropped = [m.a, m.b].filter((w) => measuredEvents(m, m.both!, w).length === 0);
  if (dropped.length > 0)
    t.notTested(`${described(m.both!)} received none of the changes of ${dropped.map((w) => w.label).join(', ')} (see EV-4)`);
  expectStreams(m, m.both!, [m.a, m.b], requirement);
}

check('EV-8', 'interleaved writes to two objects: every change arrives exactly once', (t) => expectInterleaved(t, 'EV-8'));

check('EV-9', "interleaved writes to two objects: each object's events arrive in its write order", (t) => expectInterleaved(t, 'EV-9'));

// --- Filters --------------------------------------------------------------------------------

check('EV-1', 'the empty filter {} delivers events of every path and interface', async (t) => {
  const m = await liveMatrix(t);
  ensure(m.all.liveAt !== undefined, neverLive(m.all));
  for (const w of m.written.keys()) expectSomeOf(m, m.all, w);
});

check('EV-4', "a paths filter delivers the listed path's events and never another path's", async (t) => {
  const m = await withB(t);
  expectSomeOf(m, m.only, m.a, '', 'measured');
  expectNoEventOf(m, m.only, m.b, ', a path it does not list');
  expectNoEventOf(m, m.onlyB!, m.a, ', a path it does not list');
});

check('EV-5', "an interfaces filter delivers events of the listed interface and never another's", async (t) => {
  const m = await withInterfaces(t);
  const sub = m.byIface!;
  ensure(sub.liveAt !== undefined, neverLive(sub));
  expectSomeOf(m, sub, m.a, ` (interface ${m.interfaces.a})`, 'measured');
  // An event involves iA when the filter, listing iA alone, must admit it (client/event-filter.ts).
  const foreign = (d: unknown) =>
    (isPropertiesChanged(d) || isInterfacesAdded(d)) && admission(sub.filter as EventFilter, changeOf(d)!) !== 'must';
  const hit = sub.socket.events.slice(0, m.until.get(sub)).find((e) => foreign(e.data));
  ensure(!hit, `${sub.what} received an event that does not involve ${m.interfaces.a}: ${brief(hit?.raw ?? '')}`);
});

/**
 * A filter listing two entries, A's and B's: once any entry delivered it is live, and it owes the
 * measured changes of each entry, whatever its position. One that received nothing while the
 * subscriptions to its entries did honours none of them; one the target closed refused the filter.
 */
function expectEveryEntry(t: CheckContext, m: WithB, sub: Subscription | undefined, peers: Array<Subscription | undefined>): void {
  if (!sub)
    t.notTested('the measurement could not open this subscription (it needs two objects whose properties name distinct interfaces)');
  if (sub.liveAt === undefined) {
    if (closedBy(sub)) t.notTested(`${neverLive(sub)}: the target refused the filter`);
    const live = peers.filter(serves);
    if (live.length < peers.length) t.notTested(`${neverLive(sub)}, and the subscriptions to its entries did not all go live either`);
    fail(`${neverLive(sub)}, while ${live.map(described).join(' and ')} did: it honours none of its entries`);
  }
  const entries = (sub.filter as { paths?: string[]; interfaces?: string[] }).paths ?? (sub.filter as { interfaces: string[] }).interfaces;
  const problems: string[] = [];
  for (const w of [m.a, m.b]) {
    if (measuredEvents(m, sub, w).length > 0) continue;
    const at = m.interfaces && !(sub.filter as { paths?: string[] }).paths ? (w === m.a ? m.interfaces.a : m.interfaces.b) : w.path;
    problems.push(
      `none of the ${m.written.get(w)!.length} changes of ${w.label} arrived, which its entry ${at} (position ${entries.indexOf(at) + 1} of ${entries.length}) lists; ${recent(sub.socket, m.from.get(sub))}`,
    );
  }
  ensure(problems.length === 0, `${described(sub)}: ${problems.join('; ')}`);
}

check('EV-4', 'a paths filter listing two paths delivers the events of each, whatever its position in the list', async (t) => {
  const m = await withB(t);
  expectEveryEntry(t, m, m.both, [m.only, m.onlyB]);
});

check('EV-5', 'an interfaces filter listing two interfaces delivers the events of each, whatever its position in the list', async (t) => {
  const m = await withInterfaces(t);
  expectEveryEntry(t, m, m.bothIfaces, [m.byIface, m.nearIface]);
});

check('EV-6', 'paths and interfaces together are ORed: an event matching either arrives, one matching neither never', async (t) => {
  const m = await withInterfaces(t);
  // A matches \`either\` by its path only: if it never arrives, the keys were not ORed.
  ensure(m.either!.liveAt !== undefined, `${neverLive(m.either!)}: a change of ${m.a.path} matches its path`);
  // B matches \`either\` by its interface only, and \`neither\` by nothing.
  expectSomeOf(m, m.either!, m.b, `, which match its interface ${m.interfaces.b}`);
  expectNoEventOf(m, m.neither!, m.b, ', which matches neither its path nor its interface', m.neither!.what);
});

/**
 * Near misses: each subscription lists B exactly (B's change arriving is the exact entry's twin:
 * the subscription is live) and entries a sloppy match would take for A; A's changes never arrive.
 */
function judgeNearMisses(t: CheckContext, m: WithB, subs: (Subscription | undefined)[], needs: string): void {
  const present = subs.filter((x): x is Subscription => x !== undefined);
  if (present.length === 0) t.notTested(needs);
  for (const sub of present) expectNoEventOf(m, sub, m.a, ', which it does not list');
  const unproven = present.filter((sub) => sub.liveAt === undefined);
  const why = unproven.map((sub) => neverLive(sub));
  unproven.forEach((sub, i) => t.observe(`near miss not judged: ${show(sub.filter)}`, why[i]));
  if (unproven.length === present.length)
    t.notTested(`no near-miss subscription was shown live by the change of ${m.b.label} it lists: ${why.join('; ')}`);
}

check(
  'EV-4',
  'a paths filter admits no near miss of a listed path: its parent, the path cut short, in another case, with a trailing slash',
  async (t) => {
    const m = await withB(t);
    judgeNearMisses(t, m, [m.nearPaths, m.nearSlash], 'no near miss of the path could be listed');
  },
);

check(
  'EV-5',
  'an interfaces filter admits no near miss of a listed interface: cut short, extended, its namespace, in another case',
  async (t) => {
    const m = await withInterfaces(t);
    judgeNearMisses(t, m, [m.nearIface], 'no near miss of the interface could be listed');
  },
);

check('EV-4', 'a socket admits nothing before its filter message: changes between its opening and its filter do not arrive', async (t) => {
  const m = await withB(t);
  const sub = m.early;
  if (!sub) return t.notTested(`the socket whose filter was to follow the writes could not be opened (see EP-14)`);
  // Every event before the filter is premature; A's are also excluded by the filter it then sent.
  expectNoEventOf(m, sub, m.a, '', `a socket opened before the writes, whose filter ${show(sub.filter)} followed them,`);
  if (m.closedByTarget.has(sub)) t.notTested(`${sub.what} was closed by the target (code ${sub.socket.closeInfo!.code}); see EV-10`);
});

/** The object's map, when GET of it answers 200 with one. */
async function shownMap(t: CheckContext, path: string): Promise<Record<string, unknown> | undefined> {
  const data = okData(await t.client.get(path));
  return isMap(data) ? data : undefined;
}

check('EV-2', 'a PropertiesChanged lists only the properties that changed', async (t) => {
  const m = await liveMatrix(t);
  const pairs: [Subscription, AttrWriter][] = [[m.only, m.a]];
  if (m.b && m.onlyB) pairs.push([m.onlyB, m.b]);
  for (const [sub, w] of pairs) {
    const events = measuredEvents(m, sub, w);
    const others = new Set(events.flatMap((e) => Object.keys((e.data as { properties: object }).properties).filter((k) => k !== w.name)));
    if (others.size === 0) continue;
    // A property listed beside the written one is padding when it holds the value the object
    // still shows in every event: it never changed.
    const now = await shownMap(t, w.path);
    if (!now) continue;
    const listed = (e: ReceivedEvent) => (e.data as { properties: Record<string, unknown> }).properties;
    const unchanged = [...others].filter((k) => Object.hasOwn(now, k) && events.every((e) => sameValue(listed(e)[k], now[k])));
    ensure(
      unchanged.length === 0,
      `the PropertiesChanged of writes to ${w.label} also list ${unchanged.join(', ')}, which kept the value ${w.path} shows (${unchanged.map((k) => show(now[k])).join(', ')}) in every one: ${brief(events[0]!.raw)}`,
    );
  }
});

/** The matrix's subscriptions, each by its name, for a check that walks every filter shape. */
function shapes(m: Awaited<ReturnType<typeof liveMatrix>>): Subscription[] {
  return [m.all, m.only, m.onlyB, m.both, m.byIface, m.bothIfaces, m.either, m.neither].filter(serves);
}

check(
  ['EV-1', 'EV-4', 'EV-5', 'EV-6', 'EV-8'],
  "two PUTs of a whole object reach every live subscription whose filter admits their changes, whatever the filter's shape",
  async (t) => {
    const m = await liveMatrix(t);
    const w = m.a;
    const iface = m.interfaces?.a ?? primingInterface(m.only);
    const changeTo = (value: unknown) => ({
      no: 0,
      kind: 'PropertiesChanged' as const,
      path: w.path,
      name: w.name,
      value,
      ...(typeof iface === 'string' && { iface }),
    });
    const owed = shapes(m).filter(
      (s) => s.liveAt !== undefined && !s.socket.closed && admission(s.filter as EventFilter, changeTo(w.current)) === 'must',
    );
    if (owed.length === 0) return t.notTested('not judged: no subscription of the measurement is live and must admit the change');
    const from = new Map(owed.map((s) => [s, s.socket.mark()]));
    // Two changes, so that one lost event (EV-8) is told from a filter that drops the kind (both lost).
    const values: unknown[] = [];
    for (let k = 0; k < 2; k++) {
      // The complete map, as rule 2 says (a partial one is refused: RULE-3).
      const now = await t.client.get(w.path);
      const map = isMap(now.json) ? now.json.data : undefined;
      if (now.status !== 200 || !isMap(map) || interfaceKeys(map).length > 0)
        return t.notTested(`not judged: GET ${w.path} gave no attribute map to put whole (see EP-3)`);
      const value = w.nextValue();
      const res = await t.client.request('PUT', w.path, { json: { data: { ...map, [w.name]: value } } });
      if (res.status !== 200)
        return t.notTested(`not judged: PUT ${w.path} of the whole object answered ${describeResponse(res)} (see EP-9)`);
      w.current = value;
      values.push(value);
    }
    const carries = (s: Subscription, value: unknown) =>
      matching(
        s.socket,
        (d) => isPropertiesChanged(d) && d.path === w.path && sameValue((d.properties as Record<string, unknown>)[w.name], value),
        from.get(s),
      ).length > 0;
    const missed = (s: Subscription) => values.filter((v) => !carries(s, v));
    const deadline = performance.now() + t.cfg.eventTimeoutMs;
    await waitUntil(
      () => owed.every((s) => missed(s).length === 0),
      () => deadline,
      owed.map((s) => s.socket),
    );
    const got = owed.filter((s) => missed(s).length === 0).map((s) => s.what);
    // A PUT answered 200 and not done is EP-9's finding: its missing events are no filter's.
    if (owed.some((s) => missed(s).length > 0) && !sameValue(await readValue(t, w.path, w.name), values.at(-1)))
      return t.notTested(
        `not judged: ${w.path} ${w.name} does not read ${show(values.at(-1))} after the PUTs of the whole object answered 200 (see EP-9)`,
      );
    for (const s of owed.filter((o) => missed(o).length > 0)) {
      const req = got.length > 0 && missed(s).length === values.length ? filterRequirement(s.filter as EventFilter) : 'EV-8';
      const where = got.length > 0 ? `, which ${got.join(', ')} received` : '';
      t.judge(
        req,
        false,
        `${described(s)} did not receive the PropertiesChanged of ${missed(s).length} of ${values.length} PUT(s) of ${w.path} whole (${w.name} = ${missed(s).map(show).join(', ')}) within ${t.cfg.eventTimeoutMs} ms${where}: ${recent(s.socket, from.get(s))}`,
      );
    }
  },
  WAITS,
);

// --- InterfacesAdded ------------------------------------------------------------------------

check(
  'EV-3',
  'an uploaded version is announced by InterfacesAdded with its path and interfaces in the ObjectManager shape',
  async (t) => {
    const writer = await eventWriter(t);
    const softwareRoot = `${t.root}/software`;
    // {} admits everything: the shared measurement's, when it went live. Where it delivers nothing
    // (see EV-1): the version interface by name, then the software tree by path, which admits the new
    // object only on prefix-matching servers (bmcweb).
    const m = await eventMatrix(t);
    const shared = serves(m.all);
    let sub = shared ? m.all : await subscribe(t, {}, 'the subscription with {}');
    let problem = shared ? undefined : await tryGoLive(t, [sub], writer, { settle: true });
    if (problem?.notTested) t.notTested(problem.notTested);
    let certain = true;
    if (problem) {
      const byPath = await openLive(t, { paths: [writer.path] }, writer, {
        what: `the subscription to ${writer.path}`,
        because: 'no subscription went live (see EP-14)',
      });
      const iface = primingInterface(byPath);
      sub = await subscribe(t, { interfaces: [iface, `xyz.${t.ns}.Software.Version`] }, 'the subscription to the version interface');
      problem = await tryGoLive(t, [sub], writer, { settle: true });
      if (problem) {
        certain = false;
        sub = await openLive(t, { paths: [writer.path, softwareRoot] }, writer, {
          what: 'the subscription to the software tree',
          settle: true,
          because: 'no filter that admits InterfacesAdded went live (see EV-1, EV-5)',
        });
      }
    }
    t.observe('filter used to watch for InterfacesAdded', sub.filter, 'EV-11');
    const from = sub.socket.mark();
    const { res, added } = await uploadAndTrack(t, { tag: 'events' });
    if (res.status !== 200) return t.notTested(`the upload was refused: ${describeResponse(res)} (see EP-12)`);
    if (added.length === 0) t.notTested(`the upload answered 200 but no version appeared under ${softwareRoot} (see RULE-7)`);
    const created = added[0]!;
    // On a BMC several services add interfaces to the new path, each in a signal of its own: every
    // one must be well-formed and name the new object; together, within the window, they carry
    // every property GET of the object shows.
    const signals = await announcements(t, sub, created, from);
    const ev = signals[0];
    if (!ev) notJudgedIfLossy(m, sub, `InterfacesAdded for ${created}`);
    if (!ev && !certain)
      t.notTested(
        `no InterfacesAdded for ${created} arrived through ${show(sub.filter)}, which admits it only where paths match by prefix; {} and an interfaces filter delivered nothing (see EV-1, EV-5)`,
      );
    ensure(ev, `no InterfacesAdded for ${created} arrived within ${t.cfg.eventTimeoutMs} ms of the upload; ${recent(sub.socket, from)}`);
    for (const e of signals) {
      const what = `InterfacesAdded #${e.seq} ${brief(e.raw, 160)}`;
      expectSchema(t, 'interfacesAdded', e.data, what);
      const { path, interfaces } = e.data as { path: string; interfaces: Record<string, unknown> };
      ensure(Object.keys(interfaces).length > 0, `${what}: names no interface of the new object`);
      // The spec: "path: the new D-Bus path that was created". An ancestor (the emitting ObjectManager,
      // as one field server sends) is a deviation for the platform's expectations file, not leniency here.
      ensure(path === created, `${what}: path names ${path}, an ancestor (the ObjectManager), not the new object ${created}`);
    }
    const first = ev.data as { path: string };
    t.observe('InterfacesAdded path', first.path === created ? 'the new object' : `an ancestor of the new object (${first.path})`);
    t.observe(
      'InterfacesAdded interfaces',
      signals.map((e) => Object.keys((e.data as { interfaces: Record<string, unknown> }).interfaces)),
    );
    if (!admitsEverySignal(sub.filter as EventFilter)) {
      t.observe('InterfacesAdded coverage', `not judged: ${show(sub.filter)} admits only the signals that name its interfaces`);
      return;
    }
    const lacking = await lackedProperties(t, created, signals);
    ensure(
      lacking.length === 0,
      `GET ${created} shows ${lacking.join(', ')}, which none of the ${signals.length} InterfacesAdded of the path within ${t.cfg.eventTimeoutMs} ms of the first carried: ${signals.map((e) => brief(e.raw, 120)).join('; ')}`,
    );
  },
  { profile: 'destructive', ...UPLOADS },
);

/** Which of `names` none of the signals carried (the stream judge's union of one new object's signals). */
function uncarried(names: readonly string[], signals: readonly ReceivedEvent[]): string[] {
  const have = addedUnion(signals.map((e) => e.data)).properties;
  return names.filter((n) => !Object.hasOwn(have, n));
}

/**
 * The InterfacesAdded signals announcing the new object from `from` on, none if the first does not come
 * within an event timeout; then until together they carry every property GET of the object shows, or an
 * event timeout after the first (a later service adds its interfaces a little later, in a signal of its own).
 */
async function announcements(t: CheckContext, sub: Subscription, created: string, from: number): Promise<ReceivedEvent[]> {
  const announces = (d: unknown) => isInterfacesAdded(d) && (d.path === created || isBelow(created, d.path));
  const first = await sub.socket.waitFor(announces, t.cfg.eventTimeoutMs, { from }).catch(() => undefined);
  if (!first) return [];
  const seen = () => matching(sub.socket, announces, from);
  const names = Object.keys((await shownMap(t, created)) ?? {});
  const done = () => sub.socket.closed || uncarried(names, seen()).length === 0;
  await waitUntil(done, () => first.at + t.cfg.eventTimeoutMs, [sub.socket]);
  return seen();
}

/** What GET of the object shows that none of the signals carried (GET read again: a service may have been slower than them). */
async function lackedProperties(t: CheckContext, created: string, signals: readonly ReceivedEvent[]): Promise<string[]> {
  const map = asObject(expectOk(await t.client.get(created), `GET ${created}`, 'EP-3'), `GET ${created}`, 'EP-3');
  // A map keyed by interfaces has no properties to look for: EP-3's failure, judged there.
  const interfaces = interfaceKeys(map);
  ensure(interfaces.length === 0, `GET ${created} maps interface names, not attribute names: ${show(interfaces.slice(0, 3))}`, 'EP-3');
  return uncarried(Object.keys(map), signals);
}

// --- Several subscribers --------------------------------------------------------------------

check(
  ['EV-10', 'EV-8', 'EV-9', 'EV-4'],
  'subscribers with different filters each receive exactly their own stream, in order',
  async (t) => {
    const m = await withB(t);
    // Each problem is its own requirement's: a missing or extra event EV-8's, order EV-9's, another
    // path's event EV-4's, a subscriber closed under another's feet EV-10's.
    const judge = (sub: Subscription, mine: AttrWriter[], foreign: AttrWriter[]): void => {
      for (const w of mine) {
        const p = streamProblems(streamOf(m, sub, w), `${sub.what}, ${w.label}`);
        for (const [kind, message] of Object.entries(p)) t.judge(BREAKS[kind as keyof typeof BREAKS], false, message);
      }
      for (const w of foreign) {
        const hit = measuredEvents(m, sub, w)[0];
        if (hit) t.judge('EV-4', false, `${sub.what} received an event of ${w.path}, which its filter excludes: ${brief(hit.raw, 160)}`);
      }
      if (m.closedByTarget.has(sub)) t.judge('EV-10', false, `${sub.what} was closed by the target (code ${sub.socket.closeInfo!.code})`);
    };
    judge(m.only, [m.a], [m.b]);
    judge(m.onlyB!, [m.b], [m.a]);
    // A listed path none of whose changes arrived is the filter's finding (EV-4, judged on its own), not lost events.
    if (m.both!.liveAt !== undefined)
      judge(
        m.both!,
        [m.a, m.b].filter((w) => measuredEvents(m, m.both!, w).length > 0),
        [],
      );
  },
);

check(
  'EV-10',
  'neither a malformed filter on another socket nor the closing of another subscriber to the same path disturbs a subscriber or the service',
  async (t) => {
    const m = await liveMatrix(t);
    const a = new AttrWriter(t, m.a.plan);
    const b = m.b && serves(m.onlyB) ? new AttrWriter(t, m.b.plan) : a;
    // Subscribers of its own: one closes, and the shared measurement's are read by later checks.
    const leaving = await subscribe(t, { paths: [a.path] }, 'the subscriber that closes');
    const staying = await subscribe(t, { paths: [a.path] }, 'the subscriber that stays');
    const other = await subscribe(t, { paths: [b.path] }, `the subscriber to ${b.path}`);
    await tryGoLive(t, a === b ? [leaving, staying, other] : [leaving, staying], a, { notLive: 'fail' });
    if (a !== b) await tryGoLive(t, [other], b, { notLive: 'fail' });
    const malformed = ['not json', '{"paths": "x"}'];
    // Both malformed sockets at once: their own answers, then one window for the others to be
    // (wrongly) closed too.
    const outcomes = await Promise.all(
      malformed.map((raw) => EventSubscriber.tryOpen(t.client, undefined, { raw, settleMs: quietWindow(t.cfg) })),
    );
    for (const outcome of outcomes) if (outcome.kind === 'open') t.cleanup(() => outcome.subscriber.close());
    t.observe('answer to a malformed filter', Object.fromEntries(outcomes.map((o, i) => [malformed[i], describeOutcome(o)])), 'EV-11');
    // Another socket closed because of them would be closed by now, give or take a moment.
    await sleep(200);
    for (const sub of [leaving, staying, other]) {
      const close = sub.socket.closeInfo;
      ensure(
        !close,
        `after sockets sent the malformed filters ${show(malformed)}, the target closed ${sub.what} too (code ${close?.code}${close?.reason ? ` "${close.reason}"` : ''})`,
      );
    }
    await leaving.socket.close();
    ensure(!staying.socket.closed, `closing ${leaving.what} also closed ${staying.what} (code ${staying.socket.closeInfo?.code})`);
    // Both still receive: the one beside the closed subscriber, the other beside the malformed
    // filters (two objects: their changes waited for together).
    const context = `after the malformed filters and the closing of ${leaving.what}, which also admits ${a.label}`;
    const provoked = (writer: AttrWriter, sub: Subscription): Promise<unknown> =>
      provoke(t, writer, sub).catch((err: unknown) => {
        if (err instanceof CheckFailure) fail(`${context}: ${err.message}`);
        throw err;
      });
    // One writer provokes both in turn; two provoke at once.
    const provoking = a === b ? [provoked(a, staying).then(() => provoked(b, other))] : [provoked(a, staying), provoked(b, other)];
    const failed = (await Promise.allSettled(provoking)).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    expectOk(await t.client.get(`${t.root}/`), `GET ${t.root}/ after the malformed filters and a subscriber closed`);
  },
);

// --- Host transitions -----------------------------------------------------------------------

check(
  'EV-9',
  'the PropertiesChanged of RequestedHostTransition arrives before the CurrentHostState change it causes',
  async (t) => {
    const writer = await eventWriter(t);
    const host = `${t.root}/state/host0`;
    const requested = await readValue(t, host, 'RequestedHostTransition');
    const current = await readValue(t, host, 'CurrentHostState');
    const prefix = `xyz.${t.ns}.State.Host.Transition.`;
    const next = requested === `${prefix}On` ? `${prefix}Off` : `${prefix}On`;
    // {} admits the host's changes: the shared measurement's, when it is live.
    const m = await liveMatrix(t);
    const sub = await sharedOrOwn(t, m.all, { paths: [host, writer.path] }, writer);
    t.cleanup(async () => {
      invalidateTreeCache();
      if (!sameValue(await readValue(t, host, 'RequestedHostTransition'), requested)) {
        await putAttr(t, host, 'RequestedHostTransition', requested);
      }
      // Let the host settle back, so the next check does not see its CurrentHostState change.
      const deadline = Date.now() + t.cfg.eventTimeoutMs;
      while (Date.now() < deadline && !sameValue(await readValue(t, host, 'CurrentHostState'), current)) {
        await sleep(100);
      }
    });
    const from = sub.socket.mark();
    invalidateTreeCache();
    const res = await t.client.put(`${host}/attr/RequestedHostTransition`, next);
    if (res.status !== 200) return t.notTested(`PUT RequestedHostTransition = ${next} answered ${describeResponse(res)} (see STATE-1)`);
    // A request that was answered but not set causes no change to order (STATE-1's deviation).
    const set = await readValue(t, host, 'RequestedHostTransition');
    if (!sameValue(set, next))
      notJudged(`PUT RequestedHostTransition = ${next} answered 200, but it still reads ${show(set)} (see STATE-1)`);
    // What a message carries for one of the host's properties: the value of its PropertiesChanged, nothing from any other.
    const carried = (d: unknown, name: string): unknown[] =>
      isPropertiesChanged(d) && d.path === host && Object.hasOwn(d.properties, name) ? [d.properties[name]] : [];
    const isRequested = (d: unknown) => carried(d, 'RequestedHostTransition').some((v) => v === next);
    const isCurrent = (d: unknown) => carried(d, 'CurrentHostState').some((v) => !sameValue(v, current));
    const req = await sub.socket.waitFor(isRequested, t.cfg.eventTimeoutMs, { from }).catch(() => undefined);
    if (!req) notJudgedIfLossy(m, sub, `PropertiesChanged of RequestedHostTransition = ${next}`);
    ensure(
      req,
      `no PropertiesChanged of RequestedHostTransition = ${next} arrived within ${t.cfg.eventTimeoutMs} ms; ${recent(sub.socket, from)}`,
    );
    const cur = await sub.socket.waitFor(isCurrent, t.cfg.eventTimeoutMs, { from }).catch(() => undefined);
    const after = await readValue(t, host, 'CurrentHostState');
    t.observe(
      'CurrentHostState after a requested transition',
      { before: current, requested: next, after, eventArrived: cur !== undefined },
      'STATE-2',
    );
    if (cur) {
      ensure(
        cur.seq > req.seq,
        `CurrentHostState's PropertiesChanged (#${cur.seq} ${brief(cur.raw, 120)}) arrived before RequestedHostTransition's (#${req.seq}) that caused it`,
      );
    } else if (!sameValue(after, current)) {
      t.warn(
        `CurrentHostState changed to ${show(after)} (GET) but no PropertiesChanged of it arrived within ${t.cfg.eventTimeoutMs} ms: order not judged`,
      );
    }
  },
  { profile: 'destructive', ...WAITS },
);

// --- Refusal without a session --------------------------------------------------------------

check(
  'AUTH-3',
  'a socket opened without credentials receives no event, even when a change happens',
  async (t) => {
    const outcome = await EventSubscriber.tryOpen(t.client, {}, { auth: false, settleMs: Math.min(quietWindow(t.cfg), 2000) });
    if (outcome.kind !== 'open') return;
    const anonymous = outcome.subscriber;
    t.cleanup(() => anonymous.close());
    if (!profileAllows(t.cfg.profile, 'safe'))
      t.notTested('the socket without credentials stayed open; provoking a change needs the safe profile');
    const writer = await eventWriter(t);
    const witness = await openLive(t, { paths: [writer.path] }, writer, {
      what: 'the logged-in subscription',
      because: 'no change could be observed (see EP-14)',
    });
    await provoke(t, writer, witness);
    await anonymous.expectQuiet(isEventLike, quietWindow(t.cfg), { from: 0 }).catch(() => undefined);
    const hit = anonymous.events.find((e) => isEventLike(e.data));
    ensure(!hit, `the socket opened without credentials received an event: ${brief(hit?.raw ?? '', 160)}`);
  },
  WAITS,
);

// --- Everything received --------------------------------------------------------------------

check(
  'EV-7',
  'only InterfacesAdded and PropertiesChanged messages are pushed',
  async (t) => {
    const plans = profileAllows(t.cfg.profile, 'safe') ? await writePlans(t, 1) : [];
    // Own traffic when events can be provoked (the shared measurement made plenty); otherwise a
    // passive {} subscription and what arrives within a quiet window. What the suite's
    // subscriptions receive after the check is the run-wide oracle's EV-7: they stay open for the
    // quiet window of the run's last change (events.ts closeSuiteSubscriptions).
    const m = plans.length > 0 ? await eventMatrix(t) : undefined;
    if (m && !m.notLive) {
      // An object that appears and disappears: InterfacesRemoved is a D-Bus signal the spec does
      // not push. The version EV-3 uploaded was removed while the suite watched; else one of its own.
      const removed = lastVersionRemoval();
      if (profileAllows(t.cfg.profile, 'destructive') && !(removed !== undefined && removed > m.openedAt)) {
        const { added } = await uploadAndTrack(t, { tag: 'kinds' });
        for (const path of added) {
          invalidateTreeCache();
          await t.client.delete(path);
        }
      }
    } else {
      const since = performance.now();
      await subscribe(t, {}, 'the subscription with {}');
      await quietSince(t.cfg, since);
    }
    const all = everythingReceived();
    if (all.length === 0) {
      const why = !profileAllows(t.cfg.profile, 'safe')
        ? 'writes need the safe profile'
        : plans.length === 0
          ? noWritableReason()
          : 'see EP-14';
      t.notTested(`no message arrived in this run of the events suite, and none could be provoked (${why})`);
    }
    // The change a message reports is undefined for anything but the two kinds (client/event-filter.ts).
    const odd = all.filter((e) => changeOf(e.data) === undefined);
    t.observe('messages received by the events suite', all.length, 'EV-11');
    const pings = pingsSeen();
    t.observe('server pings seen by the events suite', pings, 'EV-11');
    ensure(
      odd.length === 0,
      `${odd.length} of ${all.length} message(s) are neither InterfacesAdded nor PropertiesChanged: ${odd
        .slice(0, 3)
        .map((e) => brief(e.raw, 120))
        .join(' ; ')}`,
    );
  },
  UPLOADS,
);

/** Every PropertiesChanged the suite's subscriptions received (they are the check's evidence); NOT_TESTED without one. */
function receivedPropertiesChanged(t: CheckContext): ReceivedEvent[] {
  t.evidenceFrom(suiteStart);
  const all = everythingReceived().filter((e) => changeOf(e.data)?.kind === 'PropertiesChanged');
  if (all.length === 0) t.notTested('no PropertiesChanged arrived in this run of the events suite');
  return all;
}

check(
  'EV-2',
  "every PropertiesChanged received by the events suite has the spec's shape",
  async (t) => {
    for (const e of receivedPropertiesChanged(t)) {
      const what = `PropertiesChanged #${e.seq} ${brief(e.raw, 160)}`;
      expectSchema(t, 'propertiesChanged', e.data, what);
      const problem = interfaceProblem((e.data as { interface?: unknown }).interface);
      ensure(!problem, `${what}: ${problem}`);
    }
  },
  RECEIVED,
);

/** The JSON kind of a value; a boolean and the integer 0 or 1 are one D-Bus boolean in two encodings. */
function jsonKind(v: unknown): string {
  if (typeof v === 'boolean' || v === 0 || v === 1) return 'boolean-or-bit';
  if (typeof v === 'number' || typeof v === 'bigint') return 'number';
  return Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v;
}

check(
  'EV-2',
  'the values a PropertiesChanged carries keep the JSON type GET shows for them',
  async (t) => {
    const all = receivedPropertiesChanged(t);
    const paths = [...new Set(all.map((e) => (e.data as { path?: unknown }).path).filter((p): p is string => typeof p === 'string'))];
    let compared = 0;
    for (const path of paths.slice(0, 10)) {
      const now = await shownMap(t, path);
      if (!now) continue;
      for (const e of all.filter((x) => (x.data as { path?: unknown }).path === path)) {
        const properties = (e.data as { properties?: unknown }).properties;
        if (properties === null || typeof properties !== 'object') continue; // the shape is the check above's
        for (const [k, v] of Object.entries(properties)) {
          if (!Object.hasOwn(now, k)) continue;
          const shown = now[k];
          compared += 1;
          // A number sent as its text (or the reverse) loses the D-Bus type the property has.
          if (jsonKind(v) === 'string' || jsonKind(shown) === 'string')
            ensure(
              jsonKind(v) === jsonKind(shown),
              `PropertiesChanged #${e.seq} carries ${k} = ${show(v)} (${jsonKind(v)}), GET ${path} shows ${show(shown)} (${jsonKind(shown)}): ${brief(e.raw, 160)}`,
            );
        }
      }
    }
    if (compared === 0) t.notTested('no property a PropertiesChanged carried is shown by GET of its path');
  },
  RECEIVED,
);
