/**
 * What an event filter must, may or must not admit, and which requirement a filter that gets it
 * wrong breaks. Where the field servers read the spec differently, the prediction is "may":
 *
 * - a paths filter and InterfacesAdded: the D-Bus signal comes from the ObjectManager above the new
 *   object while the message names the new object, so a filter naming either may admit it;
 * - a paths filter and a change below a listed path: prefix-matching servers admit it.
 *
 * Also which names an interfaces filter can list: the interface a property belongs to, as a
 * PropertiesChanged must name it.
 */
import { show } from '../../harness/assert.js';

export interface EventFilter {
  paths?: string[];
  interfaces?: string[];
}

export type FilterKind = 'empty' | 'paths' | 'interfaces' | 'overlapping' | 'either';

export type Admission = 'must' | 'may' | 'never';

/** A change as the model knows it: the event it must raise. */
export type Change = (
  | { no: number; kind: 'PropertiesChanged'; path: string; name: string; value: unknown; iface?: string }
  | { no: number; kind: 'InterfacesAdded'; path: string; interfaces: readonly string[]; map?: Readonly<Record<string, unknown>> }
) & {
  /** performance.now() just before the request that made it: no event that arrived earlier is its own. */
  after?: number;
};

/** A change before the model numbers it. */
export type NewChange = Change extends infer C ? (C extends Change ? Omit<C, 'no'> : never) : never;

const rank: Record<Admission, number> = { never: 0, may: 1, must: 2 };

function either(a: Admission, b: Admission): Admission {
  return rank[a] >= rank[b] ? a : b;
}

/** Whether `path` lies below `ancestor` (every path lies below `/`). */
export function isBelow(path: string, ancestor: string): boolean {
  return path.startsWith(`${ancestor === '/' ? '' : ancestor}/`);
}

function byPath(paths: readonly string[], change: Change): Admission {
  if (paths.includes(change.path)) return change.kind === 'InterfacesAdded' ? 'may' : 'must';
  return paths.some((p) => isBelow(change.path, p)) ? 'may' : 'never';
}

function byInterface(interfaces: readonly string[], change: Change): Admission {
  if (change.kind === 'InterfacesAdded') return change.interfaces.some((i) => interfaces.includes(i)) ? 'must' : 'never';
  if (change.iface === undefined) return 'may';
  return interfaces.includes(change.iface) ? 'must' : 'never';
}

/** What the spec's filter semantics say about `change` (the keys ORed, {} admitting all). */
export function admission(filter: EventFilter, change: Change): Admission {
  const { paths, interfaces } = filter;
  if (paths === undefined && interfaces === undefined) return 'must';
  const p: Admission = paths === undefined ? 'never' : byPath(paths, change);
  const i: Admission = interfaces === undefined ? 'never' : byInterface(interfaces, change);
  return either(p, i);
}

/** The requirement a filter breaks when it admits or drops what it should not. */
export function filterRequirement(filter: EventFilter): string {
  const { paths, interfaces } = filter;
  if (paths !== undefined && interfaces !== undefined) return 'EV-6';
  if (paths !== undefined) return 'EV-4';
  if (interfaces !== undefined) return 'EV-5';
  return 'EV-1';
}

/** Paths none of which is a prefix of another: prefix-matching servers would deliver twice. */
export function distinctPaths(paths: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of [...new Set(paths)].sort((a, b) => a.length - b.length)) {
    if (!out.some((o) => o === p || isBelow(p, o))) out.push(p);
  }
  return out;
}

/** The interface of a PropertiesChanged is that of the property: never the signal's own interface. */
const DBUS_INTERFACE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$/;
export function interfaceProblem(iface: unknown): string | undefined {
  if (typeof iface !== 'string' || iface === '') return `interface is ${show(iface)}, not a D-Bus interface name`;
  if (iface === 'org.freedesktop.DBus.Properties') {
    return 'interface is org.freedesktop.DBus.Properties, the interface of the signal itself, not the interface the changed property belongs to';
  }
  if (!DBUS_INTERFACE.test(iface) || iface.length > 255) return `interface ${show(iface)} is not a D-Bus interface name`;
  return undefined;
}

/** An interface an interfaces filter can name: a D-Bus interface name, not the signal's own. */
export function usableInterface(iface: unknown): iface is string {
  return interfaceProblem(iface) === undefined;
}
