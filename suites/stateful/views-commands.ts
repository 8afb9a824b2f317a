/**
 * The commands of the views check, and the check as a stateful property. Within the profile: PUT of
 * a declared attribute or of its whole object, subscriptions with each kind of filter and their
 * closing (safe); uploads by POST and by PUT with a name (new versions, and again while a version
 * exists or after its deletion), DELETE of a version the sequence uploaded, and DownloadViaTFTP
 * when a TFTP server is given (destructive). Parameters are indexes, resolved against the model
 * when the command runs, so that a sequence replays the same on the same target.
 */
import fc from 'fast-check';
import { VALUE_REQUIREMENTS, VERSION_REQUIREMENTS } from '../../catalogue/requirements.js';
import { describeResponse, show } from '../harness/assert.js';
import { profileAllows } from '../../runner/config.js';
import type { ViewsDiscovery } from './discovery.js';
import { distinctPaths, type EventFilter, type FilterKind } from '../events/engine/filters.js';
import { Command, pick, statefulProperty, type StatefulSpec } from './property.js';
import { finish, settle, subscribe } from './views-events.js';
import { appeared, deleteOwnVersions, remove, upload, versionAdded, versionsNow } from './views-versions.js';
import { MAX_SUBSCRIPTIONS, ViewsWorld, type VersionRecord, type Via } from './views-world.js';
import { write } from './views-writes.js';
import type { StatefulEnv, Writable } from './world.js';
import { isSuccess } from '../../client/http.js';
import { slowestRefusedUploadMs } from '../harness/software.js';

type ViewsCommand = Command<ViewsWorld>;

const writeCommand = (i: number, via: Via): ViewsCommand =>
  new Command(`write(${i}, ${via})`, async (world) => {
    await write(world, pick(world.d.writables, i)!, via, { step: true });
    await settle(world);
  });

/** A filter of the given kind over the writables (and, for an interfaces filter, the version interface). */
export function filterOf(world: ViewsWorld, kind: FilterKind, a: number, b: number): { filter: EventFilter; prime: Writable } {
  const all = world.d.writables;
  const named = all.filter((w) => w.iface !== undefined);
  const first = pick(all, a)!;
  const withIface = pick(named, a);
  const destructive = profileAllows(world.env.cfg.profile, 'destructive');
  switch (kind) {
    case 'empty':
      return { filter: {}, prime: first };
    case 'interfaces':
      if (withIface)
        return { filter: { interfaces: [withIface.iface!, ...(destructive ? [world.versionInterface] : [])] }, prime: withIface };
      break;
    case 'overlapping':
    case 'either': {
      // Either: the interface of another writable, on another object, where there is one.
      const others = named.filter((w) => w.iface !== withIface?.iface && w.attr.path !== withIface?.attr.path);
      const other = kind === 'either' ? pick(others, b) : undefined;
      if (withIface) return { filter: { paths: [withIface.attr.path], interfaces: [(other ?? withIface).iface!] }, prime: withIface };
      break;
    }
    case 'paths':
      break;
  }
  return { filter: { paths: distinctPaths([first.attr.path]) }, prime: first };
}

const subscribeCommand = (kind: FilterKind, a: number, b: number): ViewsCommand =>
  new Command(`subscribe(${kind}, ${a}, ${b})`, async (world) => {
    const label = world.label('S');
    if (!world.d.events) return world.rec.begin(`subscribe ${label}: not sent, events are not judged (${world.d.eventsWhyNot})`);
    const open = world.opened.length;
    if (open >= MAX_SUBSCRIPTIONS) return world.rec.begin(`subscribe ${label}: not sent, ${open} subscriptions are open`);
    const { filter, prime } = filterOf(world, kind, a, b);
    world.rec.begin(`subscribe ${label} with ${show(filter)} (${kind}), live once a PUT of ${prime.attr.path} ${prime.attr.name} arrives`);
    if (await subscribe(world, label, filter, prime)) await settle(world);
  });

const unsubscribeCommand = (i: number): ViewsCommand =>
  new Command(`unsubscribe(${i})`, async (world) => {
    const s = pick(world.opened, i);
    if (!s) return world.rec.begin('close a subscription: none is open');
    world.rec.begin(`close ${s.what} ${show(s.filter)}`);
    // What it was owed arrives (or is judged missing) before it goes.
    await settle(world);
    await world.unsubscribe(s);
  });

export type UploadState = 'new' | 'existing' | 'deleted';

/** A version this sequence uploaded in the given state, made so first (as steps of their own) when there is none. */
async function versionIn(world: ViewsWorld, state: Exclude<UploadState, 'new'>, i: number): Promise<VersionRecord | undefined> {
  const inState = (v: VersionRecord) => v.version !== undefined && (state === 'existing' ? v.exists : v.deleted && !v.exists);
  const found = pick(world.versions.filter(inState), i);
  if (found) return found;
  const rec = world.newVersion();
  world.rec.begin(`POST /upload/image of ${rec.label} (a new version, to have one ${state === 'existing' ? 'that exists' : 'to delete'})`);
  await upload(world, rec, 'POST');
  await settle(world);
  if (!rec.exists) return undefined;
  if (state === 'existing') return rec;
  await deleteStep(world, rec);
  return rec.deleted ? rec : undefined;
}

async function deleteStep(world: ViewsWorld, rec: VersionRecord): Promise<void> {
  world.rec.begin(`DELETE ${rec.path} (${rec.label})`);
  await remove(world, rec);
  await settle(world);
}

const uploadCommand = (state: UploadState, via: 'POST' | 'PUT', i: number): ViewsCommand =>
  new Command(
    `upload(${state}, ${via}, ${i})`,
    async (world) => {
      const rec = state === 'new' ? world.newVersion() : await versionIn(world, state, i);
      if (!rec) return;
      const how =
        state === 'new' ? 'a new version' : state === 'existing' ? `again, while it exists as ${rec.path}` : 'again, after its deletion';
      world.rec.begin(`${via === 'POST' ? 'POST /upload/image' : 'PUT /upload/image/{name}'} of ${rec.label} (${how})`);
      await upload(world, rec, via);
      await settle(world);
    },
    // A version uploaded again while it exists is refused, as slowly as the upload area's refusals were.
    { kind: `upload(${state})`, leastMs: state === 'existing' ? slowestRefusedUploadMs : undefined },
  );

const deleteCommand = (i: number): ViewsCommand =>
  new Command(`delete(${i})`, async (world) => {
    const rec = await versionIn(world, 'existing', i);
    if (rec) await deleteStep(world, rec);
  });

const downloadCommand = (): ViewsCommand =>
  new Command('download()', async (world) => {
    const { file, server } = world.env.cfg.tftp!;
    const action = `${world.d.softwareRoot}/action/DownloadViaTFTP`;
    const existing = world.versions.find((v) => v.version === undefined && v.exists);
    world.rec.begin(`POST ${action} [${show(file)}, ${show(server)}]${existing ? ` (its version exists as ${existing.path})` : ''}`);
    const before = await versionsNow(world);
    const after = performance.now();
    const res = await world.request('POST', action, { json: { data: [file, server] } });
    // Whether the image's version existed before the check is unknown (it may be the running one):
    // a refusal is not judged, a success must show its version everywhere.
    if (existing || !isSuccess(res)) return world.rec.note(`DownloadViaTFTP answered ${describeResponse(res)}: not judged`);
    const rec: VersionRecord = { label: 'T', exists: false, deleted: false };
    world.versions.push(rec);
    const path = await appeared(world, rec, before, undefined, `POST ${action}`, 'ACT-1');
    if (path) versionAdded(world, path, after);
    await settle(world);
  });

export const MAX_VALUE_COMMANDS = 8;
/** Fewer: every upload is a tarball the target extracts. */
export const MAX_VERSION_COMMANDS = 6;
/** Requests of a sequence of `commands`, for time budgets. */
export const requestsPerRun = (commands: number): number => commands * 8 + 10;

type Weighted = fc.WeightedArbitrary<ViewsCommand>;

function subscribeArb(kinds: readonly FilterKind[], weight: number): Weighted {
  return { weight, arbitrary: fc.tuple(fc.constantFrom(...kinds), fc.nat(), fc.nat()).map(([k, a, b]) => subscribeCommand(k, a, b)) };
}

/** A views check as a property; every sequence of both starts with the witness, live. */
function viewsProperty(
  env: StatefulEnv,
  d: ViewsDiscovery,
  check: Pick<StatefulSpec<ViewsWorld>, 'key' | 'requirements' | 'maxCommands'>,
  commands: Weighted[],
) {
  return statefulProperty<ViewsWorld>({
    ...check,
    command: fc.oneof(...commands),
    requestsPerRun: requestsPerRun(check.maxCommands),
    open: async (judge, notes) => {
      const world = new ViewsWorld(env, judge, notes, d);
      if (d.events) {
        world.rec.begin(`subscribe the witness W with ${show(d.witness)} (every sequence starts so)`);
        await subscribe(world, 'W', d.witness, d.writables[0]!, true);
      }
      return world;
    },
    finish,
    close: async (world) => {
      world.rec.begin('put the target back');
      world.closeAll();
      await world.restoreWrites();
      await deleteOwnVersions(world);
    },
  });
}

/** The values check: attribute and whole-object PUTs of the declared writables, watched by subscriptions of every kind. */
export function valuesProperty(env: StatefulEnv, d: ViewsDiscovery) {
  return viewsProperty(env, d, { key: 'stateful-values', requirements: VALUE_REQUIREMENTS, maxCommands: MAX_VALUE_COMMANDS }, [
    { weight: 2, arbitrary: fc.nat().map((w) => writeCommand(w, 'attr')) },
    { weight: 2, arbitrary: fc.nat().map((w) => writeCommand(w, 'object')) },
    subscribeArb(['empty', 'paths', 'interfaces', 'overlapping', 'either'], 2),
    { weight: 1, arbitrary: fc.nat().map(unsubscribeCommand) },
  ]);
}

/**
 * The versions check: uploads (new, again while the version exists, again after its deletion; by
 * POST and by PUT), deletes, DownloadViaTFTP, watched by subscriptions whose filters admit
 * InterfacesAdded by interface (closing them is the values check's).
 */
export function versionsProperty(env: StatefulEnv, d: ViewsDiscovery) {
  return viewsProperty(env, d, { key: 'stateful-versions', requirements: VERSION_REQUIREMENTS, maxCommands: MAX_VERSION_COMMANDS }, [
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.constantFrom<UploadState>('new', 'existing', 'deleted'), fc.constantFrom<'POST' | 'PUT'>('POST', 'PUT'), fc.nat())
        .map(([state, via, i]) => uploadCommand(state, via, i)),
    },
    { weight: 1, arbitrary: fc.nat().map(deleteCommand) },
    // InterfacesAdded must reach a subscription through its interfaces filter (through paths it may).
    subscribeArb(['interfaces'], 2),
    ...(env.cfg.tftp ? [{ weight: 1, arbitrary: fc.constant(null).map(downloadCommand) }] : []),
  ]);
}
