/**
 * Value domains of writes: an enumerated attribute written with well-typed values outside its
 * enumeration (a member its family lacks, a member of another enumeration), judged beside its
 * positive twin (another member of its own enumeration takes), and read back on both read routes.
 */
import { sameValue } from '../../client/values.js';
import type { WritableAttribute } from '../../runner/config.js';
import { describeResponse, envelopeOf, notJudged, show } from '../harness/assert.js';
import type { CheckContext } from '../harness/check.js';
import { invalidateTreeCache } from '../harness/tree.js';
import { differentValue, readValue, restoreAfter, restoreValue, type WritePlan } from '../harness/writable.js';

/** The requirements that show an enumeration; a writable of no object the spec shows is WR-1's. */
export type DomainOwner = 'OBJ-4' | 'OBJ-5' | 'WR-1';

const HOST_ENUMERATIONS = ['BootProgress', 'CurrentHostState', 'OperatingSystemState', 'RequestedHostTransition'];

/**
 * OBJ-5 for the host object's enumerated attributes, OBJ-4 for the time objects'; any other is
 * WR-1's: the members of a D-Bus enumeration are its type, a string naming none cannot be converted.
 */
export function domainOwner(root: string, attr: WritableAttribute): DomainOwner {
  if (attr.path === `${root}/state/host0` && HOST_ENUMERATIONS.includes(attr.name)) return 'OBJ-5';
  const time = { TimeOwner: `${root}/time/owner`, TimeSyncMethod: `${root}/time/sync_method` } as Record<string, string>;
  return time[attr.name] === attr.path ? 'OBJ-4' : 'WR-1';
}

/**
 * A plan of an enumerated attribute: its value is an xyz.* enumeration string, and its members are
 * declared (only then has it a positive twin; a free string with declared values is no enumeration).
 */
export function isEnumerated(plan: WritePlan): boolean {
  return plan.attr.values !== undefined && typeof plan.original === 'string' && /^xyz\.[^.]+\./.test(plan.original);
}

/** One member of each enumeration the spec shows. */
function specMembers(ns: string): string[] {
  const x = `xyz.${ns}`;
  return [
    `${x}.State.Host.HostState.Off`,
    `${x}.State.Host.Transition.Off`,
    `${x}.Time.Owner.Owners.BMC`,
    `${x}.Time.Synchronization.Method.NTP`,
    `${x}.State.Boot.Progress.ProgressStages.Unspecified`,
    `${x}.State.OperatingSystem.Status.OSStatus.Inactive`,
  ];
}

const familyOf = (v: string) => v.slice(0, v.lastIndexOf('.') + 1);
const memberOf = (v: string) => v.slice(v.lastIndexOf('.') + 1);

/**
 * Well-typed values outside the attribute's enumeration: a member its family lacks, and a member of
 * another enumeration the spec shows, one with a member name of the attribute's own where there is
 * one (a check of the name after the last dot alone takes it).
 */
export function outsideValues(ns: string, plan: WritePlan): string[] {
  const members = [plan.original, plan.next, ...(plan.attr.values ?? [])].filter((v): v is string => typeof v === 'string');
  const family = familyOf(String(plan.original));
  const names = new Set(members.map(memberOf));
  const others = specMembers(ns).filter((v) => familyOf(v) !== family && !members.includes(v));
  const other = others.find((v) => names.has(memberOf(v))) ?? others[0]!;
  return [`${family}BmcConformanceSideways`, other];
}

/** RequestedHostTransition as a plan: the other of the two Transition members the spec shows. */
export async function hostTransitionPlan(t: CheckContext): Promise<WritePlan> {
  const attr = {
    path: `${t.root}/state/host0`,
    name: 'RequestedHostTransition',
    values: ['Off', 'On'].map((v) => `xyz.${t.ns}.State.Host.Transition.${v}`),
  };
  const original = await readValue(t, attr.path, attr.name);
  return { attr, original, next: differentValue(attr, original) };
}

/** The attribute as each read route shows it: the object's map (where it has it) and attr/{name}. */
async function routeValues(t: CheckContext, path: string, name: string): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  const object = envelopeOf(await t.client.get(path));
  const map = object?.data;
  if (map !== null && typeof map === 'object' && !Array.isArray(map) && Object.hasOwn(map, name))
    out.set(`GET ${path}`, (map as Record<string, unknown>)[name]);
  const attr = await t.client.get(`${path}/attr/${name}`);
  const env = envelopeOf(attr);
  if (attr.status === 200 && env && 'data' in env) out.set(`GET ${path}/attr/${name}`, env.data);
  return out;
}

async function putBack(t: CheckContext, plan: WritePlan, after: string): Promise<void> {
  try {
    await restoreValue(t, plan.attr.path, plan.attr.name, plan.original);
  } catch (err) {
    notJudged(`${plan.attr.path} ${plan.attr.name} could not be put back after ${after}: ${(err as Error).message}`);
  }
}

/**
 * Judges one enumerated attribute under `owner`: first its positive twin (another member takes,
 * read back, and is put back), then each value outside its enumeration, which must leave both read
 * routes answering as before. Whatever status the refusal has is recorded: the spec names none (a
 * 5xx is ERR-5's, judged elsewhere). Answers why the attribute could not be judged, if so.
 */
export async function judgeDomain(t: CheckContext, plan: WritePlan, owner: DomainOwner): Promise<string | undefined> {
  const { path, name } = plan.attr;
  restoreAfter(t, plan);
  invalidateTreeCache();
  const twin = `PUT ${path}/attr/${name} = ${show(plan.next)}`;
  const put = await t.client.put(`${path}/attr/${name}`, plan.next);
  const taken = put.status >= 200 && put.status < 300 && sameValue(await readValue(t, path, name), plan.next);
  await putBack(t, plan, twin);
  if (!taken) {
    const see = owner === 'OBJ-5' ? 'STATE-1' : 'EP-8';
    return `${twin}, another member of its enumeration, did not take (${describeResponse(put)}): a refusal of a value outside it would prove nothing (see ${see})`;
  }
  for (const bad of outsideValues(t.ns, plan)) {
    const command = `PUT ${path}/attr/${name} = ${show(bad)}`;
    const before = await routeValues(t, path, name);
    if (before.size === 0)
      notJudged(`neither GET ${path} nor GET ${path}/attr/${name} shows ${name}: nothing to read back (see EP-3, EP-4)`);
    invalidateTreeCache();
    const res = await t.client.put(`${path}/attr/${name}`, bad);
    const after = await routeValues(t, path, name);
    let kept = true;
    for (const [route, was] of before) {
      const now = after.has(route) ? `shows ${show(after.get(route))}` : 'shows no value';
      const same = after.has(route) && sameValue(after.get(route), was);
      kept =
        t.judge(
          owner,
          same,
          `${command}, outside its enumeration, answered ${describeResponse(res)} and ${route} now ${now}, not ${show(was)}`,
        ) && kept;
    }
    t.observe('status of a write outside the enumeration', { write: command, status: res.status }, 'ERR-6');
    if (!kept) await putBack(t, plan, command);
  }
  return undefined;
}
