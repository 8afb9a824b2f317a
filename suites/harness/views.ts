/**
 * Three reads the spec makes equal: an attribute in its object's map (EP-3), its own attr/{name}
 * (EP-4) and its entry in the parent's enumerate (EP-7). When two of them disagree, the third
 * says which is wrong: a map that drops or rounds what attr/ and enumerate agree on is EP-3's
 * failure, not EP-4's or EP-7's.
 */
import { compareValues, isMap } from '../../client/values.js';
import { envelopeOf, show } from './assert.js';
import type { CheckContext } from './check.js';

export type View = 'map' | 'attr' | 'enumerate';

/** The view answered, without the attribute. */
export const ABSENT: unique symbol = Symbol('absent');
/** The view gave no usable answer: it has no vote. */
export const UNAVAILABLE: unique symbol = Symbol('unavailable');

export type ViewValue = unknown;
export type Views = Record<View, ViewValue>;

function member(map: unknown, name: string): ViewValue {
  if (!isMap(map)) return UNAVAILABLE;
  return Object.hasOwn(map, name) ? map[name] : ABSENT;
}

/** The object's map and attr/ reads of `name` on `path`, sent together. */
export async function readMapAndAttr(t: CheckContext, path: string, name: string): Promise<Pick<Views, 'map' | 'attr'>> {
  const [object, attr] = await Promise.all([t.client.get(path), t.client.get(`${path}/attr/${name}`)]);
  const map = object.status === 200 ? member(envelopeOf(object)?.data, name) : UNAVAILABLE;
  const bare = attr.status === 200 ? (envelopeOf(attr)?.data ?? UNAVAILABLE) : attr.status === 404 ? ABSENT : UNAVAILABLE;
  return { map, attr: bare };
}

/** The three reads of `name` on `path`, one request each, sent together. */
export async function readViews(t: CheckContext, path: string, name: string): Promise<Views> {
  const parent = path.slice(0, path.lastIndexOf('/'));
  const [both, listing] = await Promise.all([readMapAndAttr(t, path, name), t.client.get(`${parent}/enumerate`)]);
  const entries = listing.status === 200 ? envelopeOf(listing)?.data : undefined;
  const entry = !isMap(entries) ? UNAVAILABLE : Object.hasOwn(entries, path) ? member(entries[path], name) : ABSENT;
  return { ...both, enumerate: entry };
}

/** Two views agree: both answered, and with the same value (or both without the attribute). */
export function agree(a: ViewValue, b: ViewValue): boolean {
  if (a === UNAVAILABLE || b === UNAVAILABLE) return false;
  if (a === ABSENT || b === ABSENT) return a === b;
  return compareValues(a, b) !== 'different';
}

/** The one view that disagrees with the two others when those two agree; undefined otherwise. */
export function oddView(views: Views): View | undefined {
  const all: View[] = ['map', 'attr', 'enumerate'];
  for (const odd of all) {
    const [a, b] = all.filter((v) => v !== odd) as [View, View];
    if (views[odd] !== UNAVAILABLE && agree(views[a], views[b]) && views[a] !== ABSENT && !agree(views[odd], views[a])) return odd;
  }
  return undefined;
}

/**
 * The odd view of `name` on `path` when two readings name the same one: a counter that moves
 * between the requests cannot make a view look wrong.
 */
export async function stableOddView(t: CheckContext, path: string, name: string): Promise<{ odd?: View; views: Views }> {
  const first = await readViews(t, path, name);
  const odd = oddView(first);
  if (odd === undefined) return { views: first };
  const second = await readViews(t, path, name);
  return oddView(second) === odd ? { odd, views: second } : { views: second };
}

/** One view's value for a message. */
export function showView(v: ViewValue): string {
  if (v === ABSENT) return 'nothing (no such attribute)';
  if (v === UNAVAILABLE) return 'no answer';
  return show(v);
}

/** "the map says X, attr/ says Y, enumerate says Z". */
export function describeViews(path: string, name: string, views: Views): string {
  return `GET ${path} gives ${name} = ${showView(views.map)}, GET ${path}/attr/${name} ${showView(views.attr)}, its parent's enumerate ${showView(views.enumerate)}`;
}
