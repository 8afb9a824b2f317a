/**
 * phosphor-rest-server's /subscribe (rest_dbus.py EventHandler, EventNotifier):
 *
 * - only the first message is read (`filters = wsock.receive()`); json.loads and filters.get()
 *   failing, or dbus-python refusing a match path, ends the handler, and gevent-websocket then
 *   closes the socket (1000, no reason);
 * - one D-Bus signal receiver per entry of `paths` (or one for all when it is empty), each matching
 *   the signal's object path exactly: PropertiesChanged comes from the object itself,
 *   InterfacesAdded from its ObjectManager, while the message's `path` is the new object; a path
 *   listed twice delivers twice;
 * - `interfaces` is tested in the handlers (`interface in self.interfaces`, and for
 *   InterfacesAdded `not set(iprops).isdisjoint(self.interfaces)`), so it is ANDed with paths and
 *   keeps Python's semantics for odd values (a string matches substrings);
 * - the notifier polls its GLib context and sleeps between polls: events leave in order, late
 *   (the hub's latency);
 * - messages are plain json.dumps (insertion order, ', ' separators), booleans 1/0;
 * - a new version's interfaces come in two signals, the image manager's and the updater's (services.ts).
 */
import type { BusEvent, PublishMeta, Subscriber } from '../../events.js';
import { dumpJson, PY_COMPACT } from '../json-out.js';
import { ServicesHub } from '../services.js';
import { JsonObject, parseTypedJson, type TypedJson } from '../typed-json.js';

/** sd-bus puts the standard interfaces of every object into its InterfacesAdded signal. */
export const SD_BUS_STANDARD_INTERFACES = [
  'org.freedesktop.DBus.Peer',
  'org.freedesktop.DBus.Introspectable',
  'org.freedesktop.DBus.Properties',
];

const OBJECT_PATH = /^\/$|^(\/[A-Za-z0-9_]+)+$/;

interface PhosphorFilter {
  /** One entry per signal receiver; null receives from every path. */
  paths: (string | null)[];
  /** `interface in self.interfaces`; undefined when the filter has none (falsy). */
  interfaceTest?: (name: string) => boolean;
  /** `not set(iprops).isdisjoint(self.interfaces)`. */
  addedTest?: (names: string[]) => boolean;
  empty: boolean;
}

/** Python's membership tests against whatever `interfaces` held. */
function interfaceTests(v: TypedJson): Pick<PhosphorFilter, 'interfaceTest' | 'addedTest'> {
  if (typeof v === 'string')
    return { interfaceTest: (n) => v.includes(n), addedTest: (names) => names.some((n) => n.length === 1 && v.includes(n)) };
  if (Array.isArray(v)) return { interfaceTest: (n) => v.includes(n), addedTest: (names) => names.some((n) => v.includes(n)) };
  if (v instanceof JsonObject) return { interfaceTest: (n) => v.has(n), addedTest: (names) => names.some((n) => v.has(n)) };
  // A number or true: the handler raises TypeError on every signal; nothing is ever sent.
  return { interfaceTest: () => false, addedTest: () => false };
}

const falsy = (v: TypedJson | undefined): boolean =>
  v === undefined ||
  v === null ||
  v === false ||
  v === '' ||
  v === 0n ||
  (Array.isArray(v) && v.length === 0) ||
  (v instanceof JsonObject && v.map.size === 0);

/** EventNotifier.__init__ with the parsed filter; undefined when it raises. */
export function parsePhosphorFilter(text: string): PhosphorFilter | undefined {
  let filters: TypedJson;
  try {
    filters = parseTypedJson(text, 'python');
  } catch {
    return undefined;
  }
  if (!(filters instanceof JsonObject)) return undefined; // filters.get: AttributeError
  const rawPaths = filters.has('paths') ? filters.get('paths')! : [];
  let entries: TypedJson[];
  if (Array.isArray(rawPaths) && rawPaths.length === 0)
    entries = [null]; // self.paths.append(None)
  else if (falsy(rawPaths))
    return undefined; // None/''/0/{} .append: AttributeError
  else if (Array.isArray(rawPaths)) entries = rawPaths;
  else if (typeof rawPaths === 'string') entries = [...rawPaths];
  else if (rawPaths instanceof JsonObject) entries = [...rawPaths.map.keys()];
  else return undefined; // iterating a number: TypeError
  const paths: (string | null)[] = [];
  for (const p of entries) {
    if (p === null) paths.push(null);
    else if (typeof p === 'string' && OBJECT_PATH.test(p)) paths.push(p);
    else return undefined; // dbus-python refuses the match rule
  }
  const rawInterfaces = filters.has('interfaces') ? filters.get('interfaces')! : [];
  const tests = falsy(rawInterfaces) ? {} : interfaceTests(rawInterfaces);
  return { paths, ...tests, empty: !filters.has('paths') && !filters.has('interfaces') };
}

export class PhosphorHub extends ServicesHub {
  /** Subscribers whose one message was already read. */
  private readonly heard = new WeakSet<Subscriber>();

  protected override onMessage(sub: Subscriber, data: Buffer): void {
    if (this.heard.has(sub)) return; // the server never reads a second message
    this.heard.add(sub);
    const text = data.toString('utf8');
    const filter = parsePhosphorFilter(text);
    if (!filter) {
      this.rejectFilter(sub, 1000);
      return;
    }
    this.accept(sub, filter, shown(text));
  }

  protected override matches(sub: Subscriber, event: BusEvent, meta: PublishMeta): number {
    const f = sub.filter as PhosphorFilter;
    if (this.faults.has('empty-filter-drops') && f.empty) return 0;
    const emitter = event.event === 'InterfacesAdded' ? (meta.emitter ?? event.path) : event.path;
    const receivers = this.faults.has('filter-paths-ignored') ? 1 : f.paths.filter((p) => p === null || p === emitter).length;
    if (receivers === 0) return 0;
    if (!this.faults.has('filter-interfaces-ignored')) {
      if (event.event === 'PropertiesChanged' && f.interfaceTest && !f.interfaceTest(event.interface)) return 0;
      if (event.event === 'InterfacesAdded' && f.addedTest && !f.addedTest(addedInterfaces(event))) return 0;
    }
    return receivers;
  }

  protected override render(_sub: Subscriber, event: BusEvent): string {
    if (event.event === 'PropertiesChanged') {
      const iface = this.faults.has('wrong-interface-name') ? 'org.freedesktop.DBus.Properties' : event.interface;
      return dumpJson({ event: event.event, path: event.path, interface: iface, properties: event.properties }, PY_COMPACT);
    }
    return dumpJson({ event: event.event, path: event.path, interfaces: withStandard(event) }, PY_COMPACT);
  }
}

/** The filter as the extra-event-kind fault echoes it. */
function shown(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function addedInterfaces(event: BusEvent): string[] {
  return event.event === 'InterfacesAdded' ? [...SD_BUS_STANDARD_INTERFACES, ...Object.keys(event.interfaces)] : [];
}

export function withStandard(event: BusEvent & { event: 'InterfacesAdded' }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const i of SD_BUS_STANDARD_INTERFACES) out[i] = {};
  return { ...out, ...event.interfaces };
}
