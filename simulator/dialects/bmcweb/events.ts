/**
 * bmcweb's /subscribe (include/dbus_monitor.hpp):
 *
 * - every message is a filter and adds to what came before: interfaces accumulate, each message
 *   adds D-Bus matches;
 * - unparsable JSON closes with "Unable to parse json request", a filter without `paths` with
 *   "Unable to find paths in json data"; a path that is not a string or fails
 *   ^/([A-Za-z0-9_]+/?)*$, or an interface name that fails the D-Bus rules, closes with the
 *   default reason "quit";
 * - per path: one PropertiesChanged match per interface (arg0) or one for all, and one
 *   InterfacesAdded match, all with path_namespace: a prefix match on the object path of the signal,
 *   which for InterfacesAdded is the ObjectManager's path, and that is also the `path` sent;
 *   overlapping matches deliver more than once;
 * - InterfacesAdded lists only the interfaces named in the filter, and no `interfaces` member at all
 *   when the filter named none; it is sent whatever the interfaces filter;
 * - messages are nlohmann dump(2, ' ', true): indented, sorted keys, booleans true/false;
 * - a new version's interfaces come in two signals, the image manager's and the updater's (services.ts).
 */
import type { BusEvent, PublishMeta, Subscriber } from '../../events.js';
import { dumpJson, NLOHMANN_PRETTY } from '../json-out.js';
import { SD_BUS_STANDARD_INTERFACES } from '../phosphor/events.js';
import { ServicesHub } from '../services.js';
import { decodeUtf8, JsonObject, parseTypedJson, type TypedJson } from '../typed-json.js';

/**
 * bmcweb's `^/([A-Za-z0-9_]+/?)*$`, written so that a word cannot be split in two: the original's
 * optional slash lets a long path that fails at its end take exponential time (22 letters: 0.3 s).
 */
const VALID_PATH = /^\/([A-Za-z0-9_]+\/)*[A-Za-z0-9_]*$/;
const VALID_INTERFACE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$/;
/** What the D-Bus daemon accepts as path_namespace: a valid object path. */
const OBJECT_PATH = /^\/$|^(\/[A-Za-z0-9_]+)+$/;

interface Match {
  kind: 'pc' | 'ia';
  namespace: string;
  arg0?: string;
}

interface MonitorSession {
  matches: Match[];
  interfaces: Set<string>;
}

/** nlohmann iteration: an array's items, an object's values, a scalar itself, null nothing. */
function each(v: TypedJson): TypedJson[] {
  if (Array.isArray(v)) return v;
  if (v instanceof JsonObject) return [...v.map.values()];
  return v === null ? [] : [v];
}

export class BmcwebHub extends ServicesHub {
  protected override onMessage(sub: Subscriber, data: Buffer): void {
    const session = (sub.filter as MonitorSession | null) ?? { matches: [], interfaces: new Set<string>() };
    const text = decodeUtf8(data);
    let j: TypedJson;
    try {
      if (text === undefined) throw new Error('not UTF-8');
      j = parseTypedJson(text, 'strict');
    } catch {
      this.rejectFilter(sub, 1000, 'Unable to parse json request');
      return;
    }
    const obj = j instanceof JsonObject ? j : undefined;
    const interfaces = obj?.get('interfaces');
    if (interfaces !== undefined) for (const i of each(interfaces)) if (typeof i === 'string') session.interfaces.add(i);
    const paths = obj?.get('paths');
    if (paths === undefined) {
      this.rejectFilter(sub, 1000, 'Unable to find paths in json data');
      return;
    }
    for (const p of each(paths)) {
      // A path the regex admits but the D-Bus daemon refuses ('/a/') makes sdbusplus throw; the socket goes.
      if (typeof p !== 'string' || !VALID_PATH.test(p) || !OBJECT_PATH.test(p)) {
        this.rejectFilter(sub, 1000, 'quit');
        return;
      }
      if (session.interfaces.size === 0) {
        session.matches.push({ kind: 'pc', namespace: p });
      } else {
        for (const i of session.interfaces) {
          if (!VALID_INTERFACE.test(i)) {
            this.rejectFilter(sub, 1000, 'quit');
            return;
          }
          session.matches.push({ kind: 'pc', namespace: p, arg0: i });
        }
      }
      session.matches.push({ kind: 'ia', namespace: p });
    }
    if (!sub.filter) this.accept(sub, session, shown(text ?? ''));
  }

  protected override matches(sub: Subscriber, event: BusEvent, meta: PublishMeta): number {
    const session = sub.filter as MonitorSession;
    const anyPath = this.faults.has('filter-paths-ignored');
    const anyInterface = this.faults.has('filter-interfaces-ignored');
    const signalPath = event.event === 'InterfacesAdded' ? (meta.emitter ?? event.path) : event.path;
    let n = 0;
    for (const m of session.matches) {
      if (m.kind !== (event.event === 'PropertiesChanged' ? 'pc' : 'ia')) continue;
      if (!anyPath && !inNamespace(m.namespace, signalPath)) continue;
      if (event.event === 'PropertiesChanged' && m.arg0 !== undefined && !anyInterface && m.arg0 !== event.interface) continue;
      n++;
    }
    return n;
  }

  protected override render(sub: Subscriber, event: BusEvent, meta: PublishMeta): string {
    if (event.event === 'PropertiesChanged') {
      const iface = this.faults.has('wrong-interface-name') ? 'org.freedesktop.DBus.Properties' : event.interface;
      return dumpJson({ event: event.event, path: event.path, interface: iface, properties: event.properties }, NLOHMANN_PRETTY);
    }
    const wanted = (sub.filter as MonitorSession).interfaces;
    const all: Record<string, unknown> = {};
    for (const i of SD_BUS_STANDARD_INTERFACES) all[i] = {};
    Object.assign(all, event.interfaces);
    const shownInterfaces: Record<string, unknown> = {};
    for (const [name, props] of Object.entries(all)) if (wanted.has(name)) shownInterfaces[name] = props;
    const out: Record<string, unknown> = { event: event.event, path: meta.emitter ?? event.path };
    if (Object.keys(shownInterfaces).length > 0) out.interfaces = shownInterfaces;
    return dumpJson(out, NLOHMANN_PRETTY);
  }
}

/** D-Bus path_namespace='ns': the path itself or anything below it. */
export function inNamespace(ns: string, path: string): boolean {
  return ns === '/' || path === ns || path.startsWith(ns + '/');
}

function shown(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
