/**
 * EP-3 EP-4 EP-5 EP-6 EP-7 ERR-5 (STABILITY_REQUIREMENTS): GET is stable. An object's map is keyed
 * by attribute names (EP-3) and agrees with its attr/ routes (EP-4); a child listing names absolute
 * paths below it (EP-5) that list/ names too (EP-6); enumerate/ agrees with list/ and with each
 * object's own map (EP-7). A read that drops its connection is ERR-5's.
 */
import fc from 'fast-check';
import { STABILITY_REQUIREMENTS } from '../../../catalogue/requirements.js';
import { sameValue } from '../../../client/values.js';
import { setDifference, show } from '../../harness/assert.js';
import { interfaceKeys } from '../../harness/tree.js';
import type { TargetModel } from '../model.js';
import { clip } from '../repro.js';
import type { FuzzProperty, Judge } from '../runner.js';
import { get, isMap, read, readOk, statusText, unjudged, type FuzzEnv } from './common.js';

export type StableCase =
  | { kind: 'attr'; path: string; name: string }
  | { kind: 'list'; node: string; pick: number }
  | { kind: 'enumerate'; node: string; pick: number };

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;
}

function isNumeric(v: unknown): v is number | bigint {
  return typeof v === 'bigint' || (typeof v === 'number' && Number.isFinite(v));
}

function between(a: number | bigint, b: number | bigint, c: number | bigint): boolean {
  const n = (v: number | bigint) => (typeof v === 'bigint' || Number.isInteger(v) ? BigInt(v) : v);
  const [x, y, z] = [n(a), n(b), n(c)];
  const lo = x < z ? x : z;
  const hi = x < z ? z : x;
  return lo <= y && y <= hi;
}

export type Agreement = 'agree' | 'moving' | 'disagree';

/**
 * Two routes that must show the same value, read in turn: X once, Y once, then X again and, if
 * needed, Y again. They agree when a reading of one is the same value as the neighbouring reading
 * of the other (in any encoding: see client/values.ts), or, for a number moving under us (a counter
 * such as Elapsed), when the other route's reading lies between two readings of the moving one. A
 * non-numeric value that keeps changing cannot be judged.
 */
export async function compareRoutes(
  x1: unknown,
  y1: unknown,
  readX: () => Promise<unknown>,
  readY: () => Promise<unknown>,
): Promise<Agreement> {
  if (sameValue(x1, y1)) return 'agree';
  const x2 = await readX();
  if (sameValue(y1, x2)) return 'agree';
  if (!sameValue(x1, x2)) {
    if (isNumeric(x1) && isNumeric(y1) && isNumeric(x2)) return between(x1, y1, x2) ? 'agree' : 'disagree';
    return 'moving';
  }
  const y2 = await readY();
  if (sameValue(y2, x2)) return 'agree';
  if (!sameValue(y1, y2)) {
    if (isNumeric(y1) && isNumeric(x2) && isNumeric(y2)) return between(y1, x2, y2) ? 'agree' : 'moving';
    return 'moving';
  }
  return 'disagree';
}

/** An object's map keyed by attribute names; keyed by interfaces it is EP-3's failure, and nothing to compare. */
function attributeShaped(judge: Judge, path: string, map: Record<string, unknown>): boolean {
  const interfaces = interfaceKeys(map);
  if (interfaces.length === 0) return true;
  judge.violation('EP-3', `GET ${clip(path, 90)} maps interface names (${show(interfaces.slice(0, 2), 100)}), not attribute names`, [
    get(path),
  ]);
  return false;
}

/**
 * The third route's vote when two disagree: attr/{name}, or the parent's enumerate entry, read
 * without judging. A map that differs from two routes that agree is EP-3's failure, not theirs.
 */
async function thirdRoute(env: FuzzEnv, path: string, name: string, route: 'attr' | 'enumerate'): Promise<unknown> {
  if (route === 'attr') {
    const r = await read(env, unjudged, `${path}/attr/${name}`);
    return r?.res.status === 200 ? r.data : undefined;
  }
  const r = await read(env, unjudged, `${path.slice(0, path.lastIndexOf('/'))}/enumerate`);
  const entries = r?.res.status === 200 ? r.data : undefined;
  const entry = isMap(entries) ? entries[path] : undefined;
  return isMap(entry) ? entry[name] : undefined;
}

async function attrStable(env: FuzzEnv, judge: Judge, path: string, name: string): Promise<void> {
  const attrPath = `${path}/attr/${name}`;
  const map1 = await readOk(env, judge, path, 'EP-3');
  if (!isMap(map1) || !attributeShaped(judge, path, map1) || !(name in map1)) return;
  const r = await read(env, judge, attrPath);
  if (!r) return;
  if (r.res.status !== 200) {
    judge.violation('EP-4', `GET ${clip(attrPath, 100)} answered ${statusText(r.res)}, yet GET ${clip(path, 80)} has ${name}`, [
      get(attrPath),
    ]);
    return;
  }
  let lastMap: unknown = map1[name];
  let lastAttr: unknown = r.data;
  const verdict = await compareRoutes(
    map1[name],
    r.data,
    async () => {
      const m = await readOk(env, judge, path, 'EP-3');
      lastMap = isMap(m) ? m[name] : undefined;
      return lastMap;
    },
    async () => (lastAttr = (await read(env, judge, attrPath))?.data),
  );
  if (verdict !== 'disagree') return;
  const third = await thirdRoute(env, path, name, 'enumerate');
  if (third !== undefined && sameValue(third, lastAttr) && !sameValue(third, lastMap)) {
    judge.violation(
      'EP-3',
      `GET ${clip(path, 80)} has ${name} = ${show(lastMap, 70)} where attr/ and enumerate say ${show(lastAttr, 70)}`,
      [get(path)],
    );
    return;
  }
  judge.violation(
    'EP-4',
    `attr/${clip(name, 40)} answers ${show(lastAttr, 70)} but GET ${clip(path, 80)} has ${show(lastMap, 70)} (read twice)`,
    [get(attrPath)],
  );
}

async function listStable(env: FuzzEnv, judge: Judge, node: string, pick: number): Promise<void> {
  const listPath = `${node}/list`;
  const l1 = await readOk(env, judge, listPath, 'EP-6');
  if (l1 === undefined) return;
  const listed = strings(l1);
  if (!listed) {
    judge.violation('EP-6', `GET ${clip(listPath, 100)} is not an array of paths: ${show(l1, 80)}`, [get(listPath)]);
    return;
  }
  const outside = listed.filter((p) => !p.startsWith(`${node}/`));
  if (outside.length > 0) {
    judge.violation('EP-6', `GET ${clip(listPath, 100)} names paths that are not descendants: ${show(outside.slice(0, 3), 120)}`, [
      get(listPath),
    ]);
    return;
  }
  const candidates = [node, ...[...listed].sort()];
  const parent = candidates[pick % candidates.length]!;
  const childPath = `${parent}/`;
  const kids = strings(await readOk(env, judge, childPath, 'EP-5'));
  if (!kids) return;
  const strays = kids.filter((k) => !k.startsWith(childPath));
  if (strays.length > 0) {
    judge.violation('EP-5', `GET ${clip(childPath, 90)} names ${show(strays.slice(0, 2), 120)}, not absolute paths below it`, [
      get(childPath),
    ]);
    return;
  }
  if (setDifference(kids, listed).length === 0) return;
  // Transient objects: read both again before judging.
  const again = strings(await readOk(env, judge, listPath, 'EP-6')) ?? [];
  const kids2 = strings(await readOk(env, judge, childPath, 'EP-5')) ?? [];
  const missing = setDifference(kids2, again);
  if (missing.length === 0) return;
  judge.violation(
    'EP-6',
    `GET ${clip(listPath, 90)} lacks ${show(missing.slice(0, 2), 120)}, listed as children by GET ${clip(childPath, 90)}`,
    [get(listPath)],
  );
}

async function enumerateStable(env: FuzzEnv, judge: Judge, node: string, pick: number): Promise<void> {
  const enumPath = `${node}/enumerate`;
  const listPath = `${node}/list`;
  const e1 = await readOk(env, judge, enumPath, 'EP-7');
  if (e1 === undefined) return;
  if (!isMap(e1)) {
    judge.violation('EP-7', `GET ${clip(enumPath, 100)} is not a map: ${show(e1, 80)}`, [get(enumPath)]);
    return;
  }
  const listed = strings(await readOk(env, judge, listPath, 'EP-6'));
  if (!listed) return;
  if (setDifference(Object.keys(e1), listed).length > 0) {
    const e2 = await readOk(env, judge, enumPath, 'EP-7');
    const l2 = strings(await readOk(env, judge, listPath, 'EP-6')) ?? [];
    const extra = isMap(e2) ? setDifference(Object.keys(e2), l2) : [];
    const notBelow = extra.filter((p) => !p.startsWith(`${node}/`));
    if (notBelow.length > 0) {
      judge.violation(
        'EP-7',
        `GET ${clip(enumPath, 90)} names ${show(notBelow.slice(0, 2), 120)}, which are not descendants of ${clip(node, 80)}`,
        [get(enumPath)],
      );
    } else if (extra.length > 0) {
      // One of the two is wrong: list, when the path enumerate names exists; enumerate, when not.
      const real = (await read(env, unjudged, extra[0]!))?.res.status === 200;
      if (real)
        judge.violation(
          'EP-6',
          `GET ${clip(listPath, 90)} lacks ${show(extra.slice(0, 2), 120)}, which exists and GET ${clip(enumPath, 90)} names`,
          [get(listPath)],
        );
      else
        judge.violation('EP-7', `GET ${clip(enumPath, 90)} names ${show(extra.slice(0, 2), 120)}, which does not exist`, [get(enumPath)]);
    }
  }
  const keys = Object.keys(e1).sort();
  if (keys.length === 0) return;
  const key = keys[pick % keys.length]!;
  const attrs1 = e1[key];
  if (!isMap(attrs1)) {
    judge.violation('EP-7', `GET ${clip(enumPath, 100)} maps ${key} to ${show(attrs1, 60)}, not an attribute map`, [get(enumPath)]);
    return;
  }
  const direct1 = await readOk(env, judge, key, 'EP-3');
  if (!isMap(direct1) || !attributeShaped(judge, key, direct1)) return;
  const names = [...new Set([...Object.keys(attrs1), ...Object.keys(direct1)])].filter((n) => !sameValue(attrs1[n], direct1[n]));
  // Re-reads are shared by the attributes that differ: each route is read at most twice more.
  let e2: Promise<Record<string, unknown>> | undefined;
  let d2: Promise<Record<string, unknown>> | undefined;
  const enumAgain = () =>
    (e2 ??= readOk(env, judge, enumPath, 'EP-7').then((e) => (isMap(e) && isMap(e[key]) ? (e[key] as Record<string, unknown>) : {})));
  const directAgain = () => (d2 ??= readOk(env, judge, key, 'EP-3').then((d) => (isMap(d) ? d : {})));
  for (const n of names) {
    const verdict = await compareRoutes(
      attrs1[n],
      direct1[n],
      async () => (await enumAgain())[n],
      async () => (await directAgain())[n],
    );
    if (verdict !== 'disagree') continue;
    const shown = (await enumAgain())[n];
    const third = await thirdRoute(env, key, n, 'attr');
    const mapValue = (await directAgain())[n];
    if (shown !== undefined && third !== undefined && sameValue(third, shown) && !sameValue(third, mapValue)) {
      const has = mapValue === undefined ? 'lacks it' : `has ${show(mapValue, 50)}`;
      judge.violation('EP-3', `GET ${clip(key, 80)} ${has} where attr/${clip(n, 40)} and enumerate say ${show(shown, 50)}`, [get(key)]);
      return;
    }
    const what = shown === undefined ? 'lacks it' : `says ${show(shown, 50)}`;
    judge.violation(
      'EP-7',
      `for ${clip(key, 80)} ${n}, GET ${clip(enumPath, 80)} ${what}, GET ${clip(key, 80)} has ${show((await directAgain())[n] ?? direct1[n], 50)} (read twice)`,
      [get(enumPath)],
    );
    return;
  }
}

/**
 * Cases of the stability property. On hardware the namespace root is not enumerated (a whole-tree
 * enumeration takes minutes there; the model already did one). Where an enumerate costs seconds
 * (`enumerateCostly`), one case in about fifty enumerates instead of two in seven: the property's
 * time limit then ends no search after a few enumerates, and the attr/ and list cases all run.
 */
export function stableCaseArb(model: TargetModel, enumerateRoot = true, enumerateCostly = false): fc.Arbitrary<StableCase> {
  const parents = model.parents.length > 0 ? model.parents : [model.root];
  const enumerable = enumerateRoot || parents.length === 1 ? parents : parents.filter((p) => p !== model.root);
  // Where enumerate is costly the weights are ten times the usual, and enumerate's a twentieth of that.
  const scale = enumerateCostly ? 10 : 1;
  const cases: Array<fc.WeightedArbitrary<StableCase>> = [
    { weight: 2 * scale, arbitrary: fc.record({ kind: fc.constant('list' as const), node: fc.constantFrom(...parents), pick: fc.nat() }) },
    {
      weight: enumerateCostly ? 1 : 2,
      arbitrary: fc.record({ kind: fc.constant('enumerate' as const), node: fc.constantFrom(...enumerable), pick: fc.nat() }),
    },
  ];
  if (model.attrPairs.length > 0) {
    cases.unshift({
      weight: 3 * scale,
      arbitrary: fc.constantFrom(...model.attrPairs).map(([path, name]): StableCase => ({ kind: 'attr', path, name })),
    });
  }
  return fc.oneof(...cases);
}

export function stabilityProperty(env: FuzzEnv): FuzzProperty<StableCase> {
  return {
    key: 'stable',
    requirements: STABILITY_REQUIREMENTS,
    requestsPerRun: 2.5,
    // The root is enumerated only where enumerates are cheap: the simulator, its enumerate measured fast.
    arbitrary: stableCaseArb(env.model, (env.onSimulator ?? true) && !env.enumerateCostly, env.enumerateCostly ?? false),
    predicate: async (c, judge) => {
      if (c.kind === 'attr') await attrStable(env, judge, c.path, c.name);
      else if (c.kind === 'list') await listStable(env, judge, c.node, c.pick);
      else await enumerateStable(env, judge, c.node, c.pick);
    },
  };
}
