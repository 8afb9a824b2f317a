/**
 * The views check's writes: PUT of one attribute or of its whole object, and the views that must
 * then show the new value (GET, attr/{name}, the enumerate of each ancestor) and still name the
 * object (its parent's listing, each ancestor's list).
 */
import { isMap, sameValue } from '../../client/values.js';
import { describeResponse, notJudged, show } from '../harness/assert.js';
import { differentValue } from '../harness/writable.js';
import type { Writable } from './world.js';
import type { Change } from '../events/engine/filters.js';
import { type Via, type ViewsWorld } from './views-world.js';
import { isSuccess } from '../../client/http.js';

/**
 * PUT of one attribute, or of the whole object with it changed. As a command's `step`, it is a step
 * of its own and every view must show it; a priming write or a repeat is neither.
 */
export async function write(world: ViewsWorld, w: Writable, via: Via, opts: { step: boolean }): Promise<Change | undefined> {
  const { path, name } = w.attr;
  const value = differentValue(w.attr, world.values.get(w.key));
  const what = via === 'attr' ? `PUT ${path}/attr/${name} = ${show(value)}` : `PUT ${path} with ${name} = ${show(value)}`;
  if (opts.step) world.rec.begin(via === 'attr' ? what : `PUT ${path} (as GET shows it) with ${name} = ${show(value)}`);
  world.noteWrite(w);
  const requirement = via === 'attr' ? 'EP-8' : 'EP-9';
  let res;
  const after = performance.now();
  if (via === 'attr') {
    res = await world.request('PUT', `${path}/attr/${name}`, { json: { data: value } });
  } else {
    // The body is the object as GET shows it now, with the one attribute changed (rule 2).
    const map = await world.readData(path);
    if (!isMap(map)) notJudged(`GET ${path} gives no attribute map to PUT back (see EP-3)`);
    res = await world.request('PUT', path, { json: { data: { ...map, [name]: value } } });
  }
  if (!isSuccess(res)) {
    world.find(requirement, `${what} answered ${describeResponse(res)}`);
    return undefined;
  }
  const change = world.apply({ kind: 'PropertiesChanged', path, name, value, iface: w.iface, after });
  world.values.set(w.key, value);
  if (opts.step && !(await viewsShowWrite(world, w, value, requirement, what))) {
    world.forget(change);
    return undefined;
  }
  return change;
}

/**
 * GET, attr/{name} and the enumerate of each ancestor must all show the written value. None
 * does: the write did not take (the endpoint's finding). Some do: each that does not is its own.
 * The object stays named by its parent's listing and by the list of each ancestor.
 */
async function viewsShowWrite(world: ViewsWorld, w: Writable, value: unknown, requirement: string, what: string): Promise<boolean> {
  const { path, name } = w.attr;
  const views: Array<{ view: string; requirement: string; value: unknown }> = [];
  const map = await world.readData(path);
  if (isMap(map)) views.push({ view: `GET ${path}`, requirement: 'EP-3', value: map[name] });
  const attr = await world.readData(`${path}/attr/${name}`);
  if (attr !== undefined) views.push({ view: `GET ${path}/attr/${name}`, requirement: 'EP-4', value: attr });
  // The ancestors' enumerates, sent together (each may cost seconds), judged in order.
  const enumerations = await Promise.all(world.ancestors(path).map(async (a) => ({ a, all: await world.readData(`${a}/enumerate`) })));
  for (const { a, all } of enumerations) {
    if (isMap(all) && isMap(all[path])) views.push({ view: `GET ${a}/enumerate`, requirement: 'EP-7', value: all[path][name] });
  }
  await stillNamed(world, path, what);
  if (views.length === 0) return true;
  const agree = views.filter((v) => sameValue(v.value, value));
  if (agree.length === 0) {
    world.values.set(w.key, views[0]!.value);
    world.find(
      requirement,
      `${what} answered success, but no view shows the new value: ${views.map((v) => `${v.view} shows ${show(v.value)}`).join('; ')}`,
    );
    return false;
  }
  for (const v of views.filter((x) => !sameValue(x.value, value))) {
    world.find(
      v.requirement,
      `after ${what}, ${v.view} shows ${show(v.value)} while ${agree.map((a) => a.view).join(' and ')} show${agree.length === 1 ? 's' : ''} it`,
    );
  }
  return true;
}

/** A written object is still named by its parent's children listing and by each ancestor's list. */
async function stillNamed(world: ViewsWorld, path: string, what: string): Promise<void> {
  const parent = path.slice(0, path.lastIndexOf('/'));
  const kids = parent.length > 0 ? await world.readList(`${parent}/`) : undefined;
  if (kids && !kids.includes(path)) world.find('EP-5', `after ${what}, GET ${parent}/ no longer names ${path}`);
  for (const a of world.ancestors(path)) {
    const listed = await world.readList(`${a}/list`);
    if (listed && !listed.includes(path)) world.find('EP-6', `after ${what}, GET ${a}/list no longer names ${path}`);
  }
}
