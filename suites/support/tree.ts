/** Reading the object tree: listings, the discovery walk, and per-run caches of both. */
import type { BmcClient } from '../../client/http.js';
import { asObject, asStringArray, ensure, expectOk } from './assert.js';

/** Direct children by trailing-slash listing (endpoint 5). */
export async function children(client: BmcClient, path: string): Promise<string[]> {
  const url = path === '/' ? '/' : `${path}/`;
  return asStringArray(expectOk(await client.get(url), `GET ${url}`), `GET ${url} data`);
}

/** All descendants (endpoint 6). */
export async function list(client: BmcClient, path: string): Promise<string[]> {
  return asStringArray(expectOk(await client.get(`${path}/list`), `GET ${path}/list`), `GET ${path}/list data`);
}

/** Descendant path → attribute map (endpoint 7). */
export async function enumerate(client: BmcClient, path: string): Promise<Record<string, Record<string, unknown>>> {
  const data = asObject(expectOk(await client.get(`${path}/enumerate`), `GET ${path}/enumerate`), `GET ${path}/enumerate data`);
  for (const [p, attrs] of Object.entries(data)) asObject(attrs, `enumerate entry ${p}`);
  return data as Record<string, Record<string, unknown>>;
}

/** One object's attribute map (endpoint 3). */
export async function getObject(client: BmcClient, path: string): Promise<Record<string, unknown>> {
  return asObject(expectOk(await client.get(path), `GET ${path}`), `GET ${path} data`);
}

export async function getAttr(client: BmcClient, path: string, name: string): Promise<unknown> {
  return expectOk(await client.get(`${path}/attr/${name}`), `GET ${path}/attr/${name}`);
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
          ensure(child !== parent, `listing ${parent}/ names itself`);
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
