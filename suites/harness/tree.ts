/** Reading the object tree: listings, the discovery walk, and per-run caches of both. */
import type { BmcClient } from '../../client/http.js';
import type { TreeSnapshot } from '../../client/tree-reads.js';
import { asObject, asStringArray, ensure, expectOk, notJudged } from './assert.js';
import { readObjects } from '../../runner/trace.js';
import { forgetEachRun } from '../../client/run-scoped.js';
import { sameValue } from '../../client/values.js';
import { setTimeout as sleep } from 'node:timers/promises';

/*
 * The reads below fail under the requirement of their endpoint: in a check of that requirement
 * the failure is its FAIL; in any other check the read is a prerequisite and the check goes
 * NOT_TESTED naming the requirement (see check.ts).
 */

/** Direct children by trailing-slash listing (endpoint 5; GET / is rule 1's). */
export async function children(client: BmcClient, path: string): Promise<string[]> {
  const url = path === '/' ? '/' : `${path}/`;
  const owner = path === '/' ? 'RULE-1' : 'EP-5';
  const kids = asStringArray(expectOk(await client.get(url), `GET ${url}`, owner), `GET ${url} data`, owner);
  // Absolute paths below the node (EP-5, for / too): anything else cannot be followed.
  const prefix = path === '/' ? '/' : `${path}/`;
  const strays = kids.filter((k) => !k.startsWith(prefix) || k === prefix);
  ensure(strays.length === 0, `GET ${url} names ${JSON.stringify(strays.slice(0, 3))}, not absolute paths below ${path}`, 'EP-5');
  return kids;
}

/** All descendants (endpoint 6). */
export async function list(client: BmcClient, path: string): Promise<string[]> {
  return asStringArray(expectOk(await client.get(`${path}/list`), `GET ${path}/list`, 'EP-6'), `GET ${path}/list data`, 'EP-6');
}

/** Descendant path → attribute map (endpoint 7). */
export async function enumerate(client: BmcClient, path: string): Promise<Record<string, Record<string, unknown>>> {
  const data = asObject(
    expectOk(await client.get(`${path}/enumerate`), `GET ${path}/enumerate`, 'EP-7'),
    `GET ${path}/enumerate data`,
    'EP-7',
  );
  for (const [p, attrs] of Object.entries(data)) asObject(attrs, `enumerate entry ${p}`, 'EP-7');
  return data as Record<string, Record<string, unknown>>;
}

/**
 * The tree read object by object, as a snapshot to compare (what `enumerate` of `root` gives when
 * both are right): the root's list (EP-6), then a GET of each path it names, a few at a time. A path
 * whose GET gives no attribute map is left out, as an enumerate leaves out nodes without attributes.
 */
export async function objectsSnapshot(client: BmcClient, root: string): Promise<Record<string, Record<string, unknown>>> {
  return readObjects(client, await list(client, root));
}

/**
 * Every object's attribute map under `root`, read as the run planned (`--tree-snapshot`,
 * runner/read-costs.ts): by enumerate, or on a target whose enumerate costs more than reading its
 * objects one by one, by GET of each object the list names.
 */
export function attributeMaps(
  client: BmcClient,
  root: string,
  how: TreeSnapshot | undefined,
): Promise<Record<string, Record<string, unknown>>> {
  return how === 'objects' ? objectsSnapshot(client, root) : enumerate(client, root);
}

/** attributeMaps, read once per run (until a write drops the cache). */
export function rootAttributeMaps(
  client: BmcClient,
  root: string,
  how: TreeSnapshot | undefined,
): Promise<Record<string, Record<string, unknown>>> {
  return cached(how === 'objects' ? 'objects:root' : 'enumerate:root', () => attributeMaps(client, root, how));
}

/**
 * Of `items`, those whose attribute GET of the object still shows at the value seen: read at once,
 * then every `gapMs` until `deadline` (performance.now()) while any is left. One that shows another
 * value at any reading moves by itself, and is dropped. `readMap` reads an object's attribute map.
 */
export async function stillHolding<C>(
  items: readonly C[],
  seen: (c: C) => { path: string; name: string; value: unknown },
  readMap: (path: string) => Promise<Record<string, unknown> | undefined>,
  deadline: number,
  gapMs: number,
): Promise<C[]> {
  let open = [...items];
  for (;;) {
    const maps = new Map<string, Record<string, unknown> | undefined>();
    for (const path of new Set(open.map((c) => seen(c).path))) maps.set(path, await readMap(path));
    open = open.filter((c) => {
      const { path, name, value } = seen(c);
      return sameValue(maps.get(path)?.[name], value);
    });
    if (open.length === 0 || performance.now() >= deadline) return open;
    await sleep(gapMs);
  }
}

/** One object's attribute map (endpoint 3). */
export async function getObject(client: BmcClient, path: string): Promise<Record<string, unknown>> {
  return asObject(expectOk(await client.get(path), `GET ${path}`, 'EP-3'), `GET ${path} data`, 'EP-3');
}

/** Keys of the form xyz.{ns}.X are interface names: such a map is not the attribute map EP-3 owes. */
export function interfaceKeys(map: Record<string, unknown>): string[] {
  return Object.keys(map).filter((k) => /^xyz\.[^.]+\./.test(k));
}

/** An object's attribute map, or NOT_TESTED when GET {path} maps interfaces instead (EP-3's failure). */
export async function attributeMap(client: BmcClient, path: string): Promise<Record<string, unknown>> {
  const map = await getObject(client, path);
  const interfaces = interfaceKeys(map);
  if (interfaces.length > 0)
    notJudged(`GET ${path} maps interface names (${JSON.stringify(interfaces.slice(0, 2))}), not attributes (see EP-3)`);
  return map;
}

/** One attribute's bare value (endpoint 4). */
export async function getAttr(client: BmcClient, path: string, name: string): Promise<unknown> {
  return expectOk(await client.get(`${path}/attr/${name}`), `GET ${path}/attr/${name}`, 'EP-4');
}

export interface Walk {
  nodes: Set<string>;
  /** Child lists by parent, as the target gave them. */
  childrenOf: Map<string, string[]>;
  truncated: boolean;
}

/**
 * Discovery by repeated trailing-slash listing (rule 1), breadth first, a few requests at a time,
 * bounded so a huge tree cannot run away with the run.
 */
export async function walk(client: BmcClient, start: string, maxNodes = 20_000, concurrency = 4): Promise<Walk> {
  const nodes = new Set<string>();
  const childrenOf = new Map<string, string[]>();
  let queue = [start];
  let truncated = false;
  while (queue.length > 0) {
    const next: string[] = [];
    for (let i = 0; i < queue.length; i += concurrency) {
      const batch = queue.slice(i, i + concurrency);
      const lists = await Promise.all(batch.map((p) => children(client, p)));
      batch.forEach((parent, k) => {
        childrenOf.set(parent, lists[k]!);
        for (const child of lists[k]!) {
          ensure(child !== parent, `listing ${parent}/ names itself`, 'EP-5');
          if (nodes.has(child)) continue;
          if (nodes.size >= maxNodes) {
            truncated = true;
            continue;
          }
          nodes.add(child);
          next.push(child);
        }
      });
    }
    queue = next;
  }
  return { nodes, childrenOf, truncated };
}

const cache = new Map<string, Promise<unknown>>();
forgetEachRun(() => cache.clear());

/** Expensive reads done once per run and shared by the tests that need them. */
export function cached<T>(key: string, load: () => Promise<T>): Promise<T> {
  let p = cache.get(key) as Promise<T> | undefined;
  if (!p) {
    p = load();
    cache.set(key, p);
    p.catch(() => cache.delete(key));
  }
  return p;
}

/** Writes change the tree: tests that change it drop the cached reads. */
export function invalidateTreeCache(): void {
  cache.clear();
}
