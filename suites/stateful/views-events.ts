/**
 * The views check's subscriptions: opening one (proved live by a write its filter admits), and
 * the waits after each command until every subscription received what its filter must admit or
 * its deadline passed. What arrived wrong is reported as it is seen; what is missing at the end,
 * through missed-events.ts.
 */
import { isMap } from '../../client/values.js';
import { EventSubscriber } from '../../client/subscriber.js';
import { notJudged, show } from '../harness/assert.js';
import { isInterfacesAdded } from '../events/events.js';
import { admission, filterRequirement, type Change, type EventFilter } from '../events/engine/filters.js';
import { addedContentProblem, admitsEverySignal, carries, owed } from '../events/engine/judge.js';
import { prime } from '../events/engine/prime.js';
import { described } from '../events/engine/subscription.js';
import { nextMessage, waitUntil } from '../events/engine/waits.js';
import type { Writable } from './world.js';
import { missed } from './missed-events.js';
import type { JudgedSubscription, ViewsWorld } from './views-world.js';
import { write } from './views-writes.js';
import { messageOf } from '../../client/errors.js';

/** When the last InterfacesAdded of `path` reached `s`, or 0. */
function lastAddedAt(s: JudgedSubscription, path: string): number {
  let last = 0;
  for (const e of s.socket.events.slice(s.from)) {
    if (isInterfacesAdded(e.data) && e.data.path === path) last = e.at;
  }
  return last;
}

/**
 * Waits until every subscription received the changes its filter must admit (each at most its
 * deadline), and every new object's InterfacesAdded signals together carry what GET of it shows
 * (at most an event timeout from its upload), reporting what arrived wrong; then judges what is
 * still missing.
 */
export async function settle(world: ViewsWorld): Promise<void> {
  const start = performance.now();
  let missing: Array<[JudgedSubscription, Change[]]> = [];
  for (;;) {
    missing = [];
    const deadlines: number[] = [];
    for (const s of world.subs) {
      const j = world.judgeSub(s);
      for (const p of j.problems) {
        if (s.reported.has(p.key)) continue;
        s.reported.add(p.key);
        world.find(p.requirement, p.message);
      }
      if (j.missing.length > 0) missing.push([s, j.missing]);
      for (const c of j.missing) deadlines.push(world.deadlineFor(s, c, start));
      // A later service may still add interfaces to the path: within an event timeout of the
      // object's existing (its request answered) or of the path's last signal, whichever is later.
      for (const c of j.incomplete) {
        if (!s.reported.has(`added#${c.no}`))
          deadlines.push(Math.max(c.after ?? start, start, lastAddedAt(s, c.path)) + world.env.eventTimeoutMs);
      }
    }
    const next = Math.max(0, ...deadlines);
    if (performance.now() >= next) break;
    await nextMessage(world.sockets(), next);
  }
  for (const [s, changes] of missing) for (const c of changes) await missed(world, s, c);
  await judgeAdded(world);
}

/**
 * EV-3 for each new object, once its window is over: the InterfacesAdded signals of its path
 * together carry what GET of it shows (every property, where the filter admits every signal). A
 * disagreement is checked against GET once more: a service may have added its interface between
 * the model's GET and the signal.
 */
async function judgeAdded(world: ViewsWorld): Promise<void> {
  const fresh = new Map<string, Readonly<Record<string, unknown>> | undefined>();
  for (const s of world.subs) {
    for (const [no, union] of world.judgeSub(s).added) {
      const key = `added#${no}`;
      const change = world.log.find((c) => c.no === no);
      if (s.reported.has(key) || change?.kind !== 'InterfacesAdded') continue;
      const complete = admitsEverySignal(s.filter);
      if (!addedContentProblem(union, change.map, complete)) continue;
      if (!fresh.has(change.path)) {
        const now = await world.readData(change.path);
        fresh.set(change.path, isMap(now) ? now : change.map);
      }
      const problem = addedContentProblem(union, fresh.get(change.path), complete);
      if (!problem) continue;
      s.reported.add(key);
      world.find('EV-3', `${described(s)}: InterfacesAdded of ${change.path}: ${problem}`);
    }
  }
}

/**
 * The sequence's end: everything judged once more, once what each subscription is owed has come.
 * What a target sends later still is the run-wide oracle's: the sockets stay open for the last
 * change's quiet window when the sequence closes them (views-world.ts closeAll).
 */
export const finish = settle;

/**
 * Opens a subscription and proves it live with a write its filter admits (nothing acknowledges a
 * filter). One that never goes live while the witness receives the writes breaks its filter's
 * requirement; when nothing receives them, the subscription is not judged.
 */
export async function subscribe(
  world: ViewsWorld,
  label: string,
  filter: EventFilter,
  primer: Writable,
  witness = false,
): Promise<JudgedSubscription | undefined> {
  let socket: EventSubscriber;
  try {
    socket = await EventSubscriber.open(world.env.client, filter);
  } catch (err) {
    notJudged(`${label}: opening /subscribe with ${show(filter)} failed: ${messageOf(err)} (see EP-14)`);
  }
  const s: JudgedSubscription = { socket, filter, what: label, since: 0, from: 0, expected: [], reported: new Set(), witness };
  const writes: Change[] = [];
  const { path, name } = primer.attr;
  const admitting = world.subs.filter(
    (o) => admission(o.filter, { no: 0, kind: 'PropertiesChanged', path, name, value: undefined, iface: primer.iface }) !== 'never',
  );
  const { cut } = await prime(world.env, [s], {
    write: async () => {
      const change = await write(world, primer, 'attr', { step: false });
      if (!change) return undefined;
      writes.push(change);
      return { at: change.after!, carries: (d) => isMap(d) && carries(d, change) };
    },
    bystanders: admitting.map((o) => o.socket),
    // Another priming write would end past the check's time budget: the sequence ends here, the
    // subscription not judged (a filter that excludes the write takes every round).
    budget: () => world.fitsBudget(0),
  });
  if (s.liveAt !== undefined) {
    const live = writes.find((c) => carries(socket.events[s.liveAt!]!.data as Record<string, unknown>, c))!;
    s.since = live.no;
    s.from = s.liveAt;
    const sinceLive = world.log.filter((c) => c.no >= live.no);
    s.expected = owed(filter, sinceLive);
    world.subs.push(s);
    return s;
  }
  await socket.close();
  if (cut) {
    world.cut = true;
    return undefined;
  }
  // A target that closes the socket at once answers before the others' events of the write arrive.
  const last = writes.at(-1);
  const waitFrom = performance.now();
  if (last)
    await waitUntil(
      () => world.subs.some((o) => world.received(o, last)),
      () => waitFrom + world.env.eventTimeoutMs,
      world.sockets(),
    );
  const how = socket.closeInfo
    ? `the target closed it (code ${socket.closeInfo.code}${socket.closeInfo.reason ? ` "${socket.closeInfo.reason}"` : ''})`
    : `${writes.length} write(s) of ${path} ${name} arrived nowhere on it`;
  const seen = world.subs.filter((o) => writes.some((c) => world.received(o, c))).map((o) => o.what);
  if (witness || seen.length === 0)
    notJudged(`${label} with ${show(filter)} never went live: ${how}, and no other subscription received the writes (see EP-14)`);
  world.find(
    filterRequirement(filter),
    `${label} with the filter ${show(filter)} never went live: ${how}, while ${seen.join(', ')} received them`,
  );
  return undefined;
}
