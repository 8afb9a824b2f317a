/**
 * The views check's versions: uploads (by POST and by PUT with a name), the version each
 * registers, DELETE of one, and the sequence's end, which deletes every version it registered.
 * A registered version must show in every view: GET, the listing of software/, and list and
 * enumerate of software/ and each of its ancestors.
 */
import { dataOf, descriptionOf } from '../../client/answer.js';
import { isSuccess, type BmcResponse } from '../../client/http.js';
import { buildImage, defaultPurpose } from '../../client/image.js';
import { isMap, sameValue } from '../../client/values.js';
import { describeResponse, show } from '../harness/assert.js';
import type { Change } from '../events/engine/filters.js';
import { type VersionRecord, type ViewsWorld } from './views-world.js';
import { pollFor } from '../harness/poll.js';

/** Versions this area uploads start so (freshVersion('stateful')); nothing else is deleted at a sequence's end. */
const OWN_VERSION_PREFIX = 'bmc-conformance-stateful-';

/**
 * Version paths under software/ before a registration: the model's, and what the listing shows
 * now (a version a failed DELETE left behind is not new).
 */
export async function versionsNow(world: ViewsWorld): Promise<Set<string>> {
  const out = new Set(world.d.versionsBefore);
  for (const v of world.versions) if (v.exists && v.path) out.add(v.path);
  for (const k of (await world.readList(`${world.d.softwareRoot}/`)) ?? []) out.add(k);
  return out;
}

/** The InterfacesAdded a registered version raises, with what GET of it showed. */
export function versionAdded(world: ViewsWorld, path: string, after: number): Change {
  return world.apply({ kind: 'InterfacesAdded', path, interfaces: [world.versionInterface], map: world.objects.get(path), after });
}

/**
 * Uploads `rec`'s image. A version that exists must be refused (ERR-3); any other must answer
 * the id of the version that appears, and appear in every view (InterfacesAdded included).
 */
export async function upload(world: ViewsWorld, rec: VersionRecord, via: 'POST' | 'PUT'): Promise<Change | undefined> {
  const { ns } = world.env;
  rec.image ??= await buildImage({ version: rec.version!, namespace: ns, purpose: defaultPurpose(ns) });
  const file = `${rec.label}.tar`;
  world.rec.note(`${file}: an image tarball whose MANIFEST reads version=${rec.version}, purpose=${defaultPurpose(ns)}`);
  const remote = `${rec.version}.tar`;
  const what = via === 'POST' ? `POST /upload/image of ${rec.label}` : `PUT /upload/image/${remote} of ${rec.label}`;
  const before = rec.exists ? undefined : await versionsNow(world);
  const after = performance.now();
  const res = await world.request(via, via === 'POST' ? '/upload/image' : `/upload/image/${remote}`, {
    image: { bytes: rec.image, file },
  });
  if (rec.exists) return void duplicateRefused(world, res, `${what}, which exists as ${rec.path}`, via);
  const requirement = via === 'POST' ? 'EP-12' : 'EP-13';
  if (!isSuccess(res)) {
    // Refused as existing when it was deleted: the registration outlived the version (rule 7).
    const description = descriptionOf(res);
    if (rec.deleted && res.status === 400 && typeof description === 'string' && /already exists/i.test(description)) {
      world.find(
        'RULE-7',
        `${what}, uploaded again after its deletion, answered ${describeResponse(res)} ${show(description)}: no such version exists`,
      );
    } else {
      world.find(requirement, `${what}${rec.deleted ? ', uploaded again after its deletion,' : ''} answered ${describeResponse(res)}`);
    }
    return undefined;
  }
  const data = dataOf(res);
  const id = typeof data === 'string' && data !== '' ? data : undefined;
  // Where the version is, first: whatever is judged, the sequence's end must find it to delete it.
  const path = await appeared(world, rec, before!, id, what, 'RULE-7');
  if (id === undefined) world.find(requirement, `${what} answered data ${show(data)}, not a version id string`);
  if (!path) return undefined;
  const change = versionAdded(world, path, after);
  if (id !== undefined && path.slice(path.lastIndexOf('/') + 1) !== id) {
    world.find(requirement, `${what} answered the id ${show(id)}, but the version that appeared is ${path}`);
  }
  return change;
}

/**
 * An upload of a version that exists: 400, with a description (where there is one) saying so.
 * Another refusal of the channel (405, 415…) is the channel's own answer, not judged here.
 */
function duplicateRefused(world: ViewsWorld, res: BmcResponse, what: string, via: 'POST' | 'PUT'): void {
  if (res.status >= 400 && res.status < 500 && res.status !== 400)
    return world.rec.note(
      `${what.split(',')[0]} answered ${describeResponse(res)}: the ${via} upload channel refuses it whatever it carries (not judged here)`,
    );
  if (res.status !== 400) return world.find('ERR-3', `${what} answered ${describeResponse(res)}, not 400`);
  const description = descriptionOf(res);
  if (typeof description === 'string' && !/already exists|extract/i.test(description)) {
    world.find('ERR-3', `${what} answered 400 with the description ${show(description)}, which does not say the version exists`);
  }
}

/**
 * The version an upload (or DownloadViaTFTP) registered as `rec`: new in the children of software/
 * (waited for), else the object the answered id names. Every view must show it.
 */
export async function appeared(
  world: ViewsWorld,
  rec: VersionRecord,
  before: ReadonlySet<string>,
  id: string | undefined,
  what: string,
  requirement: string,
): Promise<string | undefined> {
  const software = world.d.softwareRoot;
  const listing = async () => {
    const kids = await world.readList(`${software}/`);
    return { kids, added: (kids ?? []).filter((k) => !before.has(k) && k.startsWith(`${software}/`)) };
  };
  const { kids, added } = await pollFor(listing, (l) => l.added.length > 0, world.env.uploadWaitMs, 200);
  let path = added.find((p) => id !== undefined && p.endsWith(`/${id}`)) ?? added[0];
  if (!path && id !== undefined && (await world.readData(`${software}/${id}`)) !== undefined) path = `${software}/${id}`;
  if (!path) {
    world.find(requirement, `${what} answered success, but no version appeared under ${software}`);
    return undefined;
  }
  // Known before anything is judged: whatever is found, the sequence's end deletes it.
  rec.path = path;
  rec.exists = true;
  const map = await world.readData(path);
  if (isMap(map)) world.objects.set(path, map);
  else world.find('EP-3', `after ${what}, ${path} appeared, but GET ${path} gives no attribute map`);
  if (kids && !kids.includes(path)) world.find('EP-5', `after ${what}, GET ${software}/ does not name ${path}, which GET answers`);
  await membership(world, path, true, what);
  return path;
}

/**
 * list and enumerate of software/ and of each of its ancestors up to the namespace root name
 * `path` exactly when it exists; enumerate with GET's map. The reads of one state are sent
 * together (an enumerate may cost seconds), and judged in order.
 */
async function membership(world: ViewsWorld, path: string, exists: boolean, what: string): Promise<void> {
  const ancestors = world.ancestors(path);
  const reads = await Promise.all(
    ancestors.map(async (a) => ({ a, listed: await world.readList(`${a}/list`), all: await world.readData(`${a}/enumerate`) })),
  );
  for (const { a, listed, all } of reads) {
    if (listed && listed.includes(path) !== exists)
      world.find('EP-6', `after ${what}, GET ${a}/list ${exists ? 'does not name' : 'still names'} ${path}`);
    if (!isMap(all)) continue;
    if (Object.hasOwn(all, path) !== exists) {
      world.find('EP-7', `after ${what}, GET ${a}/enumerate ${exists ? 'does not map' : 'still maps'} ${path}`);
      continue;
    }
    const map = world.objects.get(path);
    if (exists && map && !sameValue(all[path], map))
      world.find('EP-7', `after ${what}, GET ${a}/enumerate maps ${path} to ${show(all[path])}; GET of it answers ${show(map)}`);
  }
}

/** DELETE of a version the sequence created: gone from GET, the listing, list and enumerate. */
export async function remove(world: ViewsWorld, rec: VersionRecord): Promise<void> {
  const path = rec.path!;
  const what = `DELETE ${path}`;
  const res = await world.request('DELETE', path);
  if (!isSuccess(res)) return world.find('EP-11', `${what} (${rec.label}, which this sequence uploaded) answered ${describeResponse(res)}`);
  const software = world.d.softwareRoot;
  const get = await world.request('GET', path);
  // GET is the object itself: while it answers, the DELETE did not remove it.
  if (get.status === 200) return world.find('EP-11', `${what} answered ${res.status}, but GET ${path} still answers 200`);
  rec.exists = false;
  rec.deleted = true;
  world.objects.delete(path);
  const kids = await world.readList(`${software}/`);
  if (kids?.includes(path)) world.find('EP-5', `after ${what}, GET ${software}/ still names ${path}, which GET answers ${get.status}`);
  await membership(world, path, false, what);
}

/**
 * Deletes every version the sequence registered: those the model knows, and any other new one
 * whose version string is this run's own (a sequence stopped by a finding may not have seen it).
 */
export async function deleteOwnVersions(world: ViewsWorld): Promise<void> {
  const { softwareRoot, versionsBefore } = world.d;
  const paths = new Set(world.versions.filter((v) => v.exists && v.path).map((v) => v.path!));
  for (const k of (await world.readList(`${softwareRoot}/`)) ?? []) {
    if (paths.has(k) || versionsBefore.has(k) || !k.startsWith(`${softwareRoot}/`)) continue;
    const map = await world.readData(k);
    if (isMap(map) && typeof map.Version === 'string' && map.Version.startsWith(OWN_VERSION_PREFIX)) paths.add(k);
  }
  for (const path of paths) {
    const res = await world.request('DELETE', path);
    const after = await world.request('GET', path);
    if (!isSuccess(res) || after.status === 200) {
      world.notes.restoreFailures.push({
        requirement: 'EP-11',
        message: `${path}, uploaded by the sequence, could not be deleted: DELETE answered ${describeResponse(res)}, GET then ${after.status}`,
      });
    }
  }
}
