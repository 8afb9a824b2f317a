/**
 * Writes in the safe profile touch only attributes the user declared safe (or the simulator's own
 * list), always with a value that differs from the current one (D-Bus signals only real changes),
 * and always restored afterwards, checked by reading back.
 */
import { jsonEqual } from '../../client/json.js';
import type { WritableAttribute } from '../../runner/config.js';
import { expectEqual, expectOk, show } from './assert.js';
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
  if (attr.values) return attr.values.find((v) => !jsonEqual(v, original));
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

/** Plans for the declared writable attributes that exist and have a guessable second value. */
export async function writePlans(t: CheckContext, max = Infinity): Promise<WritePlan[]> {
  const plans: WritePlan[] = [];
  for (const attr of t.cfg.writable) {
    if (plans.length >= max) break;
    const res = await t.client.get(`${attr.path}/attr/${attr.name}`);
    if (res.status !== 200) continue;
    const original = expectOk(res, `GET ${attr.path}/attr/${attr.name}`);
    const next = differentValue(attr, original);
    if (next !== undefined) plans.push({ attr, original, next });
  }
  return plans;
}

export async function firstWritePlan(t: CheckContext): Promise<WritePlan> {
  const plans = await writePlans(t, 1);
  if (plans.length === 0) t.notTested(noWritableReason());
  return plans[0]!;
}

/** Registers the restore of a plan's attribute: PUT the original back and read it back equal. */
export function restoreAfter(t: CheckContext, plan: WritePlan): void {
  t.cleanup(async () => restore(t, plan));
}

export async function restore(t: CheckContext, plan: WritePlan): Promise<void> {
  const { path, name } = plan.attr;
  invalidateTreeCache();
  const current = await getAttr(t.client, path, name);
  if (jsonEqual(current, plan.original)) return;
  const res = await t.client.put(`${path}/attr/${name}`, plan.original);
  expectOk(res, `restoring PUT ${path}/attr/${name} = ${show(plan.original)}`);
  expectEqual(await getAttr(t.client, path, name), plan.original, `${path} ${name} after restoring`);
}

/** PUT one attribute and expect success. */
export async function putAttr(t: CheckContext, path: string, name: string, value: unknown): Promise<void> {
  invalidateTreeCache();
  expectOk(await t.client.put(`${path}/attr/${name}`, value), `PUT ${path}/attr/${name} = ${show(value)}`);
}
