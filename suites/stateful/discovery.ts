/**
 * The model's starting point, read once per check: the declared writables with their objects and
 * values, the versions under software/, and (from events, the REST side never shows it) the
 * interface each writable property belongs to. Learning that writes each attribute once through
 * its attribute PUT and puts it back: that endpoint's signal is the reference the others must match.
 */
import { okData } from '../../client/answer.js';
import { isSuccess } from '../../client/http.js';
import { EventSubscriber, type EventPredicate } from '../../client/subscriber.js';
import { isMap } from '../../client/values.js';
import { profileAllows } from '../../runner/config.js';
import { notJudged, show } from '../harness/assert.js';
import { carries } from '../events/engine/judge.js';
import { interfaceKeys } from '../harness/tree.js';
import { differentValue } from '../harness/writable.js';
import { recordLatency } from '../harness/pace.js';
import { distinctPaths, usableInterface, type Change, type EventFilter } from '../events/engine/filters.js';
import { writableKey, type StatefulEnv, type Writable } from './world.js';

export interface ViewsDiscovery {
  writables: Writable[];
  softwareRoot: string;
  /** Version paths the target had before the check. */
  versionsBefore: ReadonlySet<string>;
  /** Events flow: the learning subscription received the writes. */
  events: boolean;
  eventsWhyNot?: string;
  /** The subscription every sequence watches all changes through: {} where it works. */
  witness: EventFilter;
}

const readData = async (env: StatefulEnv, path: string): Promise<unknown> => okData(await env.client.get(path));

/** An event that carries `value` for the writable, as the stream judge matches the model's changes. */
export function carrying(w: Writable, value: unknown): EventPredicate {
  const change: Change = { no: 0, kind: 'PropertiesChanged', path: w.attr.path, name: w.attr.name, value };
  return (d) => isMap(d) && carries(d, change);
}

/** The declared writables that answer, each with a value to change to. */
export async function declaredWritables(env: StatefulEnv): Promise<Writable[]> {
  const out: Writable[] = [];
  for (const attr of env.cfg.writable) {
    const key = writableKey(attr.path, attr.name);
    if (out.some((w) => w.key === key)) continue;
    const map = await readData(env, attr.path);
    if (!isMap(map)) continue;
    const interfaces = interfaceKeys(map);
    if (interfaces.length > 0)
      notJudged(`GET ${attr.path} maps interface names (${show(interfaces.slice(0, 2))}), not attributes (see EP-3)`);
    const original = Object.hasOwn(map, attr.name) ? map[attr.name] : await readData(env, `${attr.path}/attr/${attr.name}`);
    if (original === undefined || differentValue(attr, original) === undefined) continue;
    out.push({ attr, key, original });
  }
  return out;
}

/**
 * Writes each writable once and back, watching a subscription to their paths (every server takes
 * one) and one with {} (the witness where it works). Everything written is restored.
 */
async function learnInterfaces(env: StatefulEnv, list: Writable[]): Promise<Pick<ViewsDiscovery, 'events' | 'eventsWhyNot' | 'witness'>> {
  const byPath: EventFilter = { paths: distinctPaths(list.map((w) => w.attr.path)) };
  const subs: EventSubscriber[] = [];
  try {
    const paths = await EventSubscriber.open(env.client, byPath);
    subs.push(paths);
    const all = await EventSubscriber.open(env.client, {}).catch(() => undefined);
    if (all) subs.push(all);
    // Every writable at once: on a target whose events come seconds late the waits overlap.
    const seenByAll = await Promise.all(
      list.map(async (w) => {
        const value = differentValue(w.attr, w.original);
        const sent = performance.now();
        const res = await env.client.put(`${w.attr.path}/attr/${w.attr.name}`, value);
        if (!isSuccess(res)) return true;
        const carries = carrying(w, value);
        const ev = await paths.waitFor(carries, env.eventTimeoutMs, { from: 0 }).catch(() => undefined);
        await env.client.put(`${w.attr.path}/attr/${w.attr.name}`, w.original);
        if (ev) {
          recordLatency(ev.at - sent);
          const iface = (ev.data as { interface?: unknown }).interface;
          if (usableInterface(iface)) w.iface = iface;
        }
        if (!all) return false;
        return (await all.waitFor(carries, ev ? env.eventTimeoutMs : 1, { from: 0 }).catch(() => undefined)) !== undefined;
      }),
    );
    const everything = all !== undefined && seenByAll.every(Boolean);
    const events = paths.events.length > 0;
    return {
      events,
      eventsWhyNot: events ? undefined : `no change of the writable attributes arrived through ${show(byPath)} (see EP-14)`,
      witness: everything ? {} : byPath,
    };
  } finally {
    await Promise.all(subs.map((s) => s.close()));
    for (const w of list) await env.restore(w.attr.path, w.attr.name, w.original);
  }
}

export async function discoverViews(env: StatefulEnv): Promise<ViewsDiscovery | undefined> {
  const list = await declaredWritables(env);
  if (list.length === 0) return undefined;
  const softwareRoot = `${env.root}/software`;
  const kids = profileAllows(env.cfg.profile, 'destructive') ? await readData(env, `${softwareRoot}/`) : [];
  const versionsBefore = new Set(Array.isArray(kids) ? kids.filter((k): k is string => typeof k === 'string') : []);
  return { writables: list, softwareRoot, versionsBefore, ...(await learnInterfaces(env, list)) };
}
