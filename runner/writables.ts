/**
 * The writable attributes a run may use, made concrete: `{ns}` filled in, and a `*` path element
 * (a profile's "any logging entry") resolved to the first instance the target lists there.
 */
import { dataOf } from '../client/answer.js';
import type { BmcClient } from '../client/http.js';
import type { WritableAttribute } from './config.js';

function fillNamespace(w: WritableAttribute, ns: string): WritableAttribute {
  const fill = (s: string) => s.replaceAll('{ns}', ns);
  return { ...w, path: fill(w.path), ...(w.values && { values: w.values.map((v) => (typeof v === 'string' ? fill(v) : v)) }) };
}

/** The first child the target lists under `parent`, in sorted order; undefined when none answers. */
async function firstChild(client: BmcClient, parent: string): Promise<string | undefined> {
  const res = await client.get(`${parent}/`);
  const data = dataOf(res);
  if (res.status !== 200 || !Array.isArray(data)) return undefined;
  return data.filter((p): p is string => typeof p === 'string' && p.startsWith(`${parent}/`)).sort()[0];
}

/** A path with `*` elements, each replaced by the first child listed there. */
async function resolvePath(client: BmcClient, path: string): Promise<string | undefined> {
  const parts = path.split('/');
  let at = '';
  for (const part of parts.slice(1)) {
    if (part !== '*') {
      at = `${at}/${part}`;
      continue;
    }
    const child = await firstChild(client, at);
    if (!child) return undefined;
    at = child;
  }
  return at;
}

export interface ResolvedWritables {
  writable: WritableAttribute[];
  /** Entries with `*` that matched nothing on this target, for the run's log. */
  unmatched: string[];
}

export async function resolveWritables(client: BmcClient, writable: readonly WritableAttribute[], ns: string): Promise<ResolvedWritables> {
  const out: WritableAttribute[] = [];
  const unmatched: string[] = [];
  for (const raw of writable) {
    const w = fillNamespace(raw, ns);
    if (!w.path.includes('*')) {
      out.push(w);
      continue;
    }
    const path = await resolvePath(client, w.path);
    if (path) out.push({ ...w, path });
    else unmatched.push(`${w.path}:${w.name}`);
  }
  return { writable: out, unmatched };
}
