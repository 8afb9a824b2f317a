/**
 * What an event filter must, may or must not admit, and which requirement a filter that gets it
 * wrong breaks; shared by the events suites and the load verifier, so that a target is judged by
 * one reading of the filter idle and under load. Where the field servers read the spec
 * differently, the prediction is "may":
 *
 * - a paths filter and InterfacesAdded: the D-Bus signal comes from the ObjectManager above the new
 *   object while the message names the new object, so a filter naming either may admit it;
 * - a paths filter and a change below a listed path: prefix-matching servers admit it.
 */

export interface EventFilter {
  paths?: string[];
  interfaces?: string[];
}

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

/** The change an event message reports, for `admission`; undefined for a message that is no event of the two kinds. */
export function changeOf(data: unknown): Change | undefined {
  if (data === null || typeof data !== 'object') return undefined;
  const e = data as { event?: unknown; path?: unknown; interface?: unknown; interfaces?: unknown };
  const path = String(e.path);
  if (e.event === 'PropertiesChanged') {
    const iface = typeof e.interface === 'string' ? e.interface : undefined;
    return { no: 0, kind: 'PropertiesChanged', path, name: '', value: undefined, ...(iface !== undefined && { iface }) };
  }
  if (e.event === 'InterfacesAdded') {
    const interfaces = e.interfaces !== null && typeof e.interfaces === 'object' ? Object.keys(e.interfaces) : [];
    return { no: 0, kind: 'InterfacesAdded', path, interfaces };
  }
  return undefined;
}

/** The requirement a filter breaks when it admits or drops what it should not. */
export function filterRequirement(filter: EventFilter): string {
  const { paths, interfaces } = filter;
  if (paths !== undefined && interfaces !== undefined) return 'EV-6';
  if (paths !== undefined) return 'EV-4';
  if (interfaces !== undefined) return 'EV-5';
  return 'EV-1';
}
