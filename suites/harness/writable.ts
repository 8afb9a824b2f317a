/**
 * Writes in the safe profile touch only attributes the user declared safe (or the simulator's own
 * list), always with a value that differs from the current one (D-Bus signals only real changes),
 * and always restored afterwards, checked by reading back.
 *
 * Values are read from the object's map (endpoint 3) where it has the attribute, and from
 * attr/{name} (endpoint 4) otherwise: a target whose attr route misreports is EP-4's failure, and
 * must not turn every write check into a false one.
 */
import type { WritableAttribute } from '../../runner/config.js';
import { sameValue } from '../../client/values.js';
import { envelopeOf, expectEqual, expectSuccess, show } from './assert.js';
import type { CheckContext } from './check.js';
import { getAttr, invalidateTreeCache } from './tree.js';

export interface WritePlan {
  attr: WritableAttribute;
  original: unknown;
  /** A value of the same type, different from the original. */
  next: unknown;
}

/** Another value of the same JSON type, or undefined when none can be guessed. */
export function differentValue(attr: WritableAttribute, original: unknown): unknown {
  if (attr.values) return attr.values.find((v) => !sameValue(v, original));
  if (typeof original === 'boolean') return !original;
  if (typeof original === 'bigint') return original + 1n;
  if (typeof original === 'number') {
    if (!Number.isInteger(original)) return original + 0.5;
    // 0/1 may be a D-Bus boolean shown as an integer: stay inside {0, 1}.
    if (original === 0 || original === 1) return 1 - original;
    return original + 1;
  }
  if (typeof original === 'string') {
    // Enumerated values cannot be guessed: they need --writable PATH:ATTR=V1|V2.
    if (/^xyz\.[^.]+\./.test(original)) return undefined;
    return original.endsWith('-bmcc') ? original.slice(0, -5) : `${original}-bmcc`.slice(-64);
  }
  return undefined;
}

export function noWritableReason(): string {
  return 'no safely writable attribute is named for this target (use --writable PATH:ATTR[=V1|V2])';
}

/** The attribute's value: from the object's map when it has it, else from attr/{name}. */
export async function readValue(t: CheckContext, path: string, name: string): Promise<unknown> {
  const res = await t.client.get(path);
  const map = res.status === 200 ? envelopeOf(res)?.data : undefined;
  if (map !== null && typeof map === 'object' && !Array.isArray(map) && Object.hasOwn(map, name)) {
    return (map as Record<string, unknown>)[name];
  }
  return getAttr(t.client, path, name);
}

/** Plans for the declared writable attributes that exist and have a guessable second value. */
export async function writePlans(
  t: CheckContext,
  max = Infinity,
  accept: (plan: WritePlan) => Promise<boolean> | boolean = () => true,
): Promise<WritePlan[]> {
  const plans: WritePlan[] = [];
  for (const attr of t.cfg.writable) {
    if (plans.length >= max) break;
    const probe = await t.client.get(`${attr.path}/attr/${attr.name}`);
    if (probe.status !== 200) continue;
    const original = await readValue(t, attr.path, attr.name);
    const next = differentValue(attr, original);
    if (next === undefined) continue;
    const plan = { attr, original, next };
    if (await accept(plan)) plans.push(plan);
  }
  return plans;
}

/** The first declared writable that suits the check (`accept`), or NOT_TESTED with `why`. */
export async function firstWritePlan(
  t: CheckContext,
  accept?: (plan: WritePlan) => Promise<boolean> | boolean,
  why?: string,
): Promise<WritePlan> {
  const plans = await writePlans(t, 1, accept);
  if (plans.length === 0)
    t.notTested(
      accept && why
        ? `${why} (named writables: ${t.cfg.writable.map((w) => `${w.path}:${w.name}`).join(', ') || 'none'})`
        : noWritableReason(),
    );
  return plans[0]!;
}

/** Registers the restore of a plan's attribute: PUT the original back and read it back equal. */
export function restoreAfter(t: CheckContext, plan: WritePlan): void {
  t.cleanup(async () => restore(t, plan));
}

export async function restore(t: CheckContext, plan: WritePlan): Promise<void> {
  await restoreValue(t, plan.attr.path, plan.attr.name, plan.original);
}

/**
 * Puts an attribute back to `original`: by its own PUT, and where that does not take (a target
 * may answer success and change nothing), by a PUT of the whole object with that one value.
 * Throws when neither brings the value back: the run must say it left the target changed.
 */
export async function restoreValue(t: CheckContext, path: string, name: string, original: unknown): Promise<void> {
  invalidateTreeCache();
  if (sameValue(await readValue(t, path, name), original)) return;
  const res = await t.client.put(`${path}/attr/${name}`, original);
  if (res.status >= 200 && res.status < 300 && sameValue(await readValue(t, path, name), original)) return;
  const map = envelopeOf(await t.client.get(path))?.data;
  if (map !== null && typeof map === 'object' && !Array.isArray(map) && Object.hasOwn(map, name)) {
    await t.client.request('PUT', path, { json: { data: { ...(map as Record<string, unknown>), [name]: original } } });
  }
  expectEqual(
    await readValue(t, path, name),
    original,
    `${path} ${name} after restoring (PUT ${path}/attr/${name} answered ${res.status})`,
  );
}

/** PUT one attribute and expect success (a failure is EP-8's, or `requirement`'s). */
export async function putAttr(t: CheckContext, path: string, name: string, value: unknown, requirement = 'EP-8'): Promise<void> {
  invalidateTreeCache();
  expectSuccess(await t.client.put(`${path}/attr/${name}`, value), `PUT ${path}/attr/${name} = ${show(value)}`, requirement);
}
