/** Writes: one attribute, a whole object, partial and wrong-typed writes, host transitions. */
import { sameValue } from '../../client/values.js';
import { check, type CheckContext } from '../harness/check.js';
import { describeResponse, ensure, expectEqual, expectOk, expectSuccess, notJudged, show } from '../harness/assert.js';
import { getObject, interfaceKeys, invalidateTreeCache } from '../harness/tree.js';
import {
  firstWritePlan,
  noWritableReason,
  putAttr,
  readValue,
  restoreAfter,
  restoreValue,
  writePlans,
  type WritePlan,
} from '../harness/writable.js';
import { judgeSteps, repeatedCollateral, TreeWatch, type Step } from '../harness/tree-effects.js';
import { domainOwner, hostTransitionPlan, isEnumerated, judgeDomain, type DomainOwner } from './value-domains.js';
import { profileAllows } from '../../runner/config.js';
import type { Snapshot } from '../../runner/trace.js';
import { pollFor } from '../harness/poll.js';

/** The complete object, as rule 2 says: the GET response without message and status. */
async function putBodyFromGet(t: CheckContext, path: string): Promise<{ data: Record<string, unknown> }> {
  const res = await t.client.get(path);
  expectOk(res, `GET ${path}`, 'EP-3');
  const { message: _m, status: _s, ...body } = res.json as { data: Record<string, unknown>; message: unknown; status: unknown };
  const interfaces = interfaceKeys(body.data ?? {});
  if (interfaces.length > 0)
    notJudged(
      `GET ${path} maps interface names (${show(interfaces.slice(0, 2))}), not attributes: no complete attribute map to put (see EP-3)`,
    );
  return body;
}

async function expectUnchanged(t: CheckContext, plan: WritePlan, after: string): Promise<void> {
  const value = await readValue(t, plan.attr.path, plan.attr.name);
  ensure(sameValue(value, plan.original), `${plan.attr.path} ${plan.attr.name} changed to ${show(value)} after ${after}`);
}

/** Attributes that read the same twice: a counter moving between two reads proves nothing. */
async function stableMap(t: CheckContext, path: string): Promise<Record<string, unknown>> {
  const first = await getObject(t.client, path);
  const second = await getObject(t.client, path);
  return Object.fromEntries(Object.entries(second).filter(([k, v]) => sameValue(first[k], v)));
}

/** A writable on an object with other attributes too: a partial map can be formed from it. */
async function onObjectWithOthers(t: CheckContext, plan: WritePlan): Promise<boolean> {
  return Object.keys(await getObject(t.client, plan.attr.path)).length >= 2;
}

/** A value of another JSON type than the attribute's. */
function wrongTyped(original: unknown): unknown {
  if (typeof original === 'string') return { bmcConformance: 'not a string' };
  if (typeof original === 'number' || typeof original === 'bigint' || typeof original === 'boolean') return 'bmc-conformance-not-a-number';
  return 'bmc-conformance-wrong-type';
}

check(
  'EP-8',
  'PUT {path}/attr/{name} updates the attribute and it reads back equal',
  async (t) => {
    const plan = await firstWritePlan(t);
    restoreAfter(t, plan);
    const { path, name } = plan.attr;
    const res = await t.client.put(`${path}/attr/${name}`, plan.next);
    expectSuccess(res, `PUT ${path}/attr/${name} = ${show(plan.next)}`);
    t.observe('PUT attribute response data', (res.json as { data?: unknown })?.data, 'RULE-9');
    // Read back from the object's map (attr/ agreeing with it is EP-4's concern).
    expectEqual(await readValue(t, path, name), plan.next, `${path} ${name} after the PUT`);
  },
  { profile: 'safe' },
);

check(
  'RULE-2',
  'a GET response without message and status is accepted as the PUT body',
  async (t) => {
    const plan = await firstWritePlan(t);
    restoreAfter(t, plan);
    const { path } = plan.attr;
    const before = await stableMap(t, path);
    const body = await putBodyFromGet(t, path);
    invalidateTreeCache();
    const res = await t.client.request('PUT', path, { json: body });
    expectSuccess(res, `PUT ${path} with its own GET body`);
    const after = await getObject(t.client, path);
    for (const [k, v] of Object.entries(before)) expectEqual(after[k], v, `GET ${path} ${k} after putting back its own GET body`);
  },
  { profile: 'safe' },
);

check(
  'EP-9',
  'PUT {path} with the complete attribute map updates the object',
  async (t) => {
    const plan = await firstWritePlan(t);
    restoreAfter(t, plan);
    const { path, name } = plan.attr;
    const body = await putBodyFromGet(t, path);
    body.data[name] = plan.next;
    invalidateTreeCache();
    const stable = await stableMap(t, path);
    const res = await t.client.request('PUT', path, { json: body });
    expectSuccess(res, `PUT ${path} with the complete map and ${name} = ${show(plan.next)}`);
    const after = await getObject(t.client, path);
    expectEqual(after[name], plan.next, `GET ${path} ${name} after the PUT of the object`);
    for (const [k, v] of Object.entries(body.data)) {
      if (k !== name && k in stable) ensure(sameValue(after[k], v), `PUT ${path} changed ${k} from ${show(v)} to ${show(after[k])}`);
    }
  },
  { profile: 'safe' },
);

check(
  'EP-9',
  'PUT {path} with a complete map that changes two attributes changes both',
  async (t) => {
    const plans = await writePlans(t);
    const first = plans.find((p) => plans.some((q) => q !== p && q.attr.path === p.attr.path));
    if (!first)
      return t.notTested(
        `no two named writable attributes are on one object: a map changing two cannot be formed (named writables: ${t.cfg.writable.map((w) => `${w.path}:${w.name}`).join(', ') || 'none'})`,
      );
    const second = plans.find((q) => q !== first && q.attr.path === first.attr.path)!;
    const path = first.attr.path;
    restoreAfter(t, first);
    restoreAfter(t, second);
    const body = await putBodyFromGet(t, path);
    body.data[first.attr.name] = first.next;
    body.data[second.attr.name] = second.next;
    invalidateTreeCache();
    const res = await t.client.request('PUT', path, { json: body });
    const what = `PUT ${path} with the complete map, ${first.attr.name} = ${show(first.next)} and ${second.attr.name} = ${show(second.next)}`;
    expectSuccess(res, what);
    const after = await getObject(t.client, path);
    const untaken = [first, second].filter((p) => !sameValue(after[p.attr.name], p.next));
    ensure(
      untaken.length === 0,
      `${what} answered ${res.status} but ${untaken.map((p) => `${p.attr.name} reads ${show(after[p.attr.name])}`).join(' and ')}`,
    );
  },
  { profile: 'safe' },
);

check(
  'RULE-3',
  'a PUT of a partial object is refused and changes nothing',
  async (t) => {
    const plan = await firstWritePlan(
      t,
      (p) => onObjectWithOthers(t, p),
      'no named writable attribute is on an object with other attributes: a partial map cannot be formed',
    );
    restoreAfter(t, plan);
    const { path, name } = plan.attr;
    invalidateTreeCache();
    const res = await t.client.put(path, { [name]: plan.next });
    ensure(res.status < 200 || res.status >= 300, `PUT ${path} with only ${name} answered ${describeResponse(res)}`);
    await expectUnchanged(t, plan, `a refused partial PUT`);
  },
  { profile: 'safe' },
);

check(
  'RULE-3',
  'PATCH is not implemented: a partial update by PATCH is refused and changes nothing',
  async (t) => {
    const plan = await firstWritePlan(t);
    restoreAfter(t, plan);
    const { path, name } = plan.attr;
    invalidateTreeCache();
    const res = await t.client.request('PATCH', path, { json: { data: { [name]: plan.next } } });
    ensure(res.status < 200 || res.status >= 300, `PATCH ${path} answered ${describeResponse(res)}`);
    ensure(res.status < 500, `PATCH ${path} answered ${describeResponse(res)}: a server error`);
    await expectUnchanged(t, plan, 'a PATCH');
    t.observe('PATCH status', res.status, 'ERR-6');
  },
  { profile: 'safe' },
);

check(
  'WR-1',
  'a PUT of a wrongly typed value is refused without a 5xx and changes nothing',
  async (t) => {
    const plan = await firstWritePlan(t);
    restoreAfter(t, plan);
    const { path, name } = plan.attr;
    const bad = wrongTyped(plan.original);
    invalidateTreeCache();
    const res = await t.client.put(`${path}/attr/${name}`, bad);
    ensure(res.status < 500, `PUT ${path}/attr/${name} = ${show(bad)} answered ${describeResponse(res)}: a server error`);
    ensure(res.status >= 400, `PUT ${path}/attr/${name} = ${show(bad)} was accepted: ${describeResponse(res)}`);
    await expectUnchanged(t, plan, `a wrongly typed PUT of ${show(bad)}`);
    t.observe('wrong type status', res.status, 'ERR-6');
  },
  { profile: 'safe' },
);

/** The longest string the fuzzer writes into a string attribute (suites/fuzz/properties/write.ts). */
const LONGEST_STRING = 64;

function longestValue(original: unknown): string {
  const value = `bmc-conformance-longest-${'0123456789'.repeat(5)}`.slice(0, LONGEST_STRING);
  return value === original ? `${value.slice(0, -1)}x` : value;
}

check(
  'EP-8',
  'PUT {path}/attr/{name} of the longest string the fuzzer writes reads back whole',
  async (t) => {
    const plan = await firstWritePlan(
      t,
      (p) => typeof p.original === 'string' && p.attr.values === undefined && !/^xyz\.[^.]+\./.test(p.original),
      'no named writable holds a free string',
    );
    restoreAfter(t, plan);
    const { path, name } = plan.attr;
    const long = longestValue(plan.original);
    const command = `PUT ${path}/attr/${name} = ${show(long)} (${long.length} characters)`;
    invalidateTreeCache();
    const res = await t.client.put(`${path}/attr/${name}`, long);
    const after = await readValue(t, path, name);
    if (res.status < 200 || res.status >= 300) {
      // The spec shows no limits: a refusal is recorded, not judged; it must leave the value as it was.
      ensure(sameValue(after, plan.original), `${command} was refused (${describeResponse(res)}) but ${name} changed to ${show(after)}`);
      t.observe('longest string refused', { write: command, status: res.status }, 'LIM-1');
      t.notTested(`${command} answered ${describeResponse(res)}: the spec shows no limits, and nothing was stored to read back`);
    }
    expectEqual(after, long, `${path} ${name} after ${command}`);
  },
  { profile: 'safe' },
);

/** The named enumerated writables (members declared) whose enumeration `owner` shows. */
async function domainPlans(t: CheckContext, owner: DomainOwner): Promise<WritePlan[]> {
  return (await writePlans(t)).filter((p) => isEnumerated(p) && domainOwner(t.root, p.attr) === owner);
}

/** Judges each plan under `owner`; NOT_TESTED when none could be, saying why. */
async function judgeDomains(t: CheckContext, plans: readonly WritePlan[], owner: DomainOwner): Promise<void> {
  const unjudged: string[] = [];
  for (const plan of plans) {
    const why = await judgeDomain(t, plan, owner);
    if (why !== undefined) unjudged.push(why);
  }
  if (unjudged.length === plans.length) t.notTested(unjudged.join('; '));
  for (const why of unjudged) t.observe('enumerated writable not judged', why);
}

check(
  'WR-1',
  'a named enumerated writable takes another member, and values outside its enumeration leave it as it was on both read routes',
  async (t) => {
    const plans = await domainPlans(t, 'WR-1');
    if (plans.length === 0)
      t.notTested('no named writable of an object the spec does not show is enumerated with its members (use --writable PATH:ATTR=V1|V2)');
    await judgeDomains(t, plans, 'WR-1');
  },
  { profile: 'safe' },
);

check(
  'OBJ-4',
  'TimeOwner and TimeSyncMethod, where named writable, keep their value when written with values outside their enumerations',
  async (t) => {
    const plans = await domainPlans(t, 'OBJ-4');
    if (plans.length === 0)
      t.notTested(
        'neither time/owner TimeOwner nor time/sync_method TimeSyncMethod is a named writable with its members (the spec does not show them writable)',
      );
    await judgeDomains(t, plans, 'OBJ-4');
  },
  { profile: 'safe' },
);

check(
  'OBJ-5',
  'RequestedHostTransition takes the other Transition, and values outside its enumeration leave it as it was on both read routes',
  async (t) => {
    const plans = await domainPlans(t, 'OBJ-5');
    const destructive = profileAllows(t.cfg.profile, 'destructive');
    if (destructive && !plans.some((p) => p.attr.name === 'RequestedHostTransition')) plans.push(await hostTransitionPlan(t));
    if (plans.length === 0)
      t.notTested(
        `RequestedHostTransition powers the host: it is written in the destructive profile, or when named writable (this run: ${t.cfg.profile})`,
      );
    await judgeDomains(t, plans, 'OBJ-5');
  },
  { profile: 'safe' },
);

const HOST = (t: CheckContext) => `${t.root}/state/host0`;

check(
  ['STATE-1', 'STATE-2'],
  'RequestedHostTransition takes a Transition value and the requested value is set',
  async (t) => {
    const path = HOST(t);
    const read = async (name: string) => String(await readValue(t, path, name));
    const requested = await read('RequestedHostTransition');
    const current = await read('CurrentHostState');
    const prefix = `xyz.${t.ns}.State.Host.Transition.`;
    const next = requested === `${prefix}On` ? `${prefix}Off` : `${prefix}On`;
    /** Reads CurrentHostState (every 100 ms after the first few), for at most an event timeout, until `done` holds of it. */
    const awaitState = (done: (state: string) => boolean): Promise<string> =>
      pollFor(() => read('CurrentHostState'), done, t.cfg.eventTimeoutMs, 100);
    t.cleanup(async () => {
      invalidateTreeCache();
      if (!sameValue(await read('RequestedHostTransition'), requested)) {
        await putAttr(t, path, 'RequestedHostTransition', requested, 'STATE-1');
        // The host follows the request back: the next checks watch a tree at rest, not its transition.
        await awaitState((state) => state === current);
      }
    });
    await putAttr(t, path, 'RequestedHostTransition', next, 'STATE-1');
    expectEqual(await read('RequestedHostTransition'), next, 'RequestedHostTransition after the PUT');
    // What follows a request is not shown by the spec: record it.
    const seen = await awaitState((state) => state !== current);
    t.observe('CurrentHostState after the request', { before: current, requested: next, after: seen }, 'STATE-2');
  },
  { profile: 'destructive' },
);

/**
 * The plans whose whole-tree effects are watched: the first declared writable, and the first whose
 * attribute name another object of the tree has too (a write that strays to a namesake shows there).
 */
async function effectPlans(t: CheckContext, watch: TreeWatch): Promise<WritePlan[]> {
  const plans = await writePlans(t);
  if (plans.length === 0) t.notTested(noWritableReason());
  const objects = Object.entries(watch.base.objects);
  const namesake = plans.find((p) => objects.some(([path, attrs]) => path !== p.attr.path && Object.hasOwn(attrs, p.attr.name)));
  return [...new Set([plans[0]!, namesake ?? plans[0]!])];
}

/** Puts the original back inline; one that does not come back leaves the tree unjudgeable. */
async function restoreInline(t: CheckContext, plan: WritePlan, after: string): Promise<void> {
  try {
    await restoreValue(t, plan.attr.path, plan.attr.name, plan.original);
  } catch (err) {
    notJudged(`${plan.attr.path} ${plan.attr.name} could not be put back after ${after}: ${(err as Error).message}`);
  }
}

check(
  'EP-8',
  'PUT {path}/attr/{name} changes that attribute and nothing else in the tree, and so does the PUT back',
  async (t) => {
    const watch = await TreeWatch.start(t);
    for (const plan of await effectPlans(t, watch)) {
      restoreAfter(t, plan);
      const { path, name } = plan.attr;
      const parent = path.slice(0, path.lastIndexOf('/'));
      const command = `PUT ${path}/attr/${name} = ${show(plan.next)}`;
      const steps = await repeatedCollateral(async () => {
        const start = watch.base;
        const res = await t.client.put(`${path}/attr/${name}`, plan.next);
        // The answer is the other EP-8 check's concern; here only what a taken write did around it.
        if (res.status < 200 || res.status >= 300) notJudged(`${command} answered ${describeResponse(res)}: no write to watch`);
        const found = await watch.collateral({ changed: [{ path, name }] }, parent);
        await restoreInline(t, plan, command);
        const back = await watch.collateral({}, parent, start);
        return [
          { command, found },
          { command: `${command} and the PUT back to ${show(plan.original)}`, found: back },
        ];
      });
      judgeSteps(t, 'EP-8', steps);
    }
  },
  { profile: 'safe' },
);

check(
  'EP-9',
  'PUT {path} with the complete map changes that object and nothing else in the tree, and so does the PUT back',
  async (t) => {
    const watch = await TreeWatch.start(t);
    for (const plan of await effectPlans(t, watch)) {
      restoreAfter(t, plan);
      const { path, name } = plan.attr;
      const parent = path.slice(0, path.lastIndexOf('/'));
      const putWhole = async (value: unknown, against: Snapshot | undefined): Promise<Step> => {
        const body = await putBodyFromGet(t, path);
        body.data[name] = value;
        invalidateTreeCache();
        const command = `PUT ${path} with the complete map and ${name} = ${show(value)}`;
        const res = await t.client.request('PUT', path, { json: body });
        if (res.status < 200 || res.status >= 300) {
          if (against !== undefined) await restoreInline(t, plan, command);
          notJudged(`${command} answered ${describeResponse(res)}: no write to watch`);
        }
        if (against !== undefined && !sameValue(await readValue(t, path, name), value)) {
          await restoreInline(t, plan, command);
          notJudged(`${command} answered ${describeResponse(res)} but ${name} did not come back: the tree cannot be compared with before`);
        }
        return { command, found: await watch.collateral({ changed: against ? [] : [{ path, name }] }, parent, against) };
      };
      const cycle = async (): Promise<Step[]> => {
        const start = watch.base;
        return [await putWhole(plan.next, undefined), await putWhole(plan.original, start)];
      };
      judgeSteps(t, 'EP-9', await repeatedCollateral(cycle));
    }
  },
  { profile: 'safe' },
);
