/**
 * The read plan: which objects a run reads attribute by attribute, decided by the target's tree and
 * never by the seed, so that the same firmware gets the same verdict at every seed.
 *
 * Objects are grouped in strata: one stratum is the objects with one set of attribute names, which
 * is what the interfaces they implement make them (every sensor, every log entry, every CPU). From each stratum the plan takes the
 * object whose values are the likeliest to trip a serializer first (empty arrays and maps, empty
 * strings, integers beyond a double, fractions), then the next objects that bring an attribute in a
 * shape not yet planned in that stratum (an empty array where the first had a full one), up to
 * PER_STRATUM objects, or EXTRA_PER_STRATUM for new shapes. Strata are served in turns (every
 * stratum's first object before any second) up to MAX_OBJECTS objects: on a tree of thousands of
 * objects the plan stays bounded and still meets every kind of object the target has (the first
 * MAX_OBJECTS kinds by their attribute names, on a tree of more kinds than that).
 */
import { createHash } from 'node:crypto';

/** Objects planned from one stratum before shapes alone decide. */
export const PER_STRATUM = 2;
/** Objects planned from one stratum at most, each bringing an attribute shape the stratum's others lack. */
export const EXTRA_PER_STRATUM = 4;
/** Objects planned in all. */
export const MAX_OBJECTS = 200;

export type Enumeration = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

export interface PlannedObject {
  path: string;
  /** The attribute names the enumeration gives it, sorted. */
  names: string[];
}

export interface ReadPlan {
  objects: PlannedObject[];
  /** Objects with attributes in the enumeration, and how many strata they make. */
  objectsInTree: number;
  strata: number;
  /** Strata with at least one object planned (all of them unless MAX_OBJECTS cut the plan). */
  strataCovered: number;
  /** Attribute reads the plan makes (one per planned attribute). */
  attributes: number;
  /** sha256 of the planned (path, names) list, first 16 hex digits: two runs with one digest read the same. */
  digest: string;
}

/** The shape of a value as a serializer meets it. */
export function valueShape(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return v.length === 0 ? 'empty-array' : 'array';
  if (typeof v === 'bigint') return v > 2n ** 53n || v < -(2n ** 53n) ? 'big-integer' : 'integer';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'fraction';
  if (typeof v === 'string') return v === '' ? 'empty-string' : 'string';
  if (typeof v === 'object') return Object.keys(v).length === 0 ? 'empty-map' : 'map';
  return typeof v;
}

const RISK: Readonly<Record<string, number>> = {
  'empty-array': 4,
  'empty-map': 4,
  'empty-string': 4,
  null: 4,
  'big-integer': 4,
  fraction: 2,
  array: 1,
  map: 1,
};

function risk(attrs: Readonly<Record<string, unknown>>): number {
  return Object.values(attrs).reduce<number>((n, v) => n + (RISK[valueShape(v)] ?? 0), 0);
}

function stratumOf(attrs: Readonly<Record<string, unknown>>): string {
  return Object.keys(attrs).sort().join('\u0000');
}

/** The plan for a tree, given as the namespace root's enumeration. */
export function readPlan(enumeration: Enumeration, maxObjects = MAX_OBJECTS): ReadPlan {
  const strata = new Map<string, string[]>();
  for (const path of Object.keys(enumeration).sort()) {
    const attrs = enumeration[path]!;
    if (Object.keys(attrs).length === 0) continue;
    const key = stratumOf(attrs);
    strata.set(key, [...(strata.get(key) ?? []), path]);
  }
  // Each stratum's own order: riskiest first, then each object that brings a shape not yet planned.
  const queues = [...strata.keys()].sort().map((key) => {
    const members = strata
      .get(key)!
      .map((path) => ({ path, risk: risk(enumeration[path]!) }))
      .sort((a, b) => b.risk - a.risk || a.path.localeCompare(b.path));
    const seen = new Set<string>();
    const shapes = (path: string) => Object.entries(enumeration[path]!).map(([n, v]) => `${n}\u0000${valueShape(v)}`);
    const chosen: string[] = [];
    for (const { path } of members) {
      const fresh = shapes(path).some((s) => !seen.has(s));
      if (chosen.length < PER_STRATUM || (fresh && chosen.length < EXTRA_PER_STRATUM)) {
        chosen.push(path);
        for (const s of shapes(path)) seen.add(s);
      }
    }
    return chosen;
  });
  const planned: string[] = [];
  for (let turn = 0; planned.length < maxObjects; turn++) {
    const round = queues.map((q) => q[turn]).filter((p): p is string => p !== undefined);
    if (round.length === 0) break;
    planned.push(...round.slice(0, maxObjects - planned.length));
  }
  planned.sort();
  const objects = planned.map((path) => ({ path, names: Object.keys(enumeration[path]!).sort() }));
  const covered = new Set(planned.map((p) => stratumOf(enumeration[p]!)));
  const digest = createHash('sha256')
    .update(objects.map((o) => `${o.path}:${o.names.join(',')}`).join('\n'))
    .digest('hex')
    .slice(0, 16);
  return {
    objects,
    objectsInTree: [...strata.values()].reduce((n, s) => n + s.length, 0),
    strata: strata.size,
    strataCovered: covered.size,
    attributes: objects.reduce((n, o) => n + o.names.length, 0),
    digest,
  };
}
