/**
 * Event filters: what a filter must, may or must not admit (client/event-filter.ts, one reading of
 * the spec for the events suites and the load verifier), the kinds the stateful area sends, and
 * which names an interfaces filter can list: the interface a property belongs to, as a
 * PropertiesChanged must name it.
 */
import { isBelow } from '../../../client/event-filter.js';
import { show } from '../../harness/assert.js';

export {
  admission,
  filterRequirement,
  isBelow,
  type Admission,
  type Change,
  type EventFilter,
  type NewChange,
} from '../../../client/event-filter.js';

export type FilterKind = 'empty' | 'paths' | 'interfaces' | 'overlapping' | 'either';

/** The items whose paths are none of them a prefix of another (prefix-matching servers would deliver twice), the first of each kept. */
export function onDistinctPaths<T>(items: readonly T[], pathOf: (item: T) => string): T[] {
  const related = (a: string, b: string) => a === b || isBelow(a, b) || isBelow(b, a);
  const out: T[] = [];
  for (const x of items) if (!out.some((o) => related(pathOf(o), pathOf(x)))) out.push(x);
  return out;
}

/** Paths none of which is a prefix of another, the shortest of each kept. */
export function distinctPaths(paths: readonly string[]): string[] {
  return onDistinctPaths(
    [...paths].sort((a, b) => a.length - b.length),
    (p) => p,
  );
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
