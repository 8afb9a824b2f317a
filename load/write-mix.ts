/**
 * The write mix: PUTs of the declared writable attributes in turn, each value different from the
 * one before it. The originals are read first and written back at the end, then read back.
 */
import { dataOf } from '../client/answer.js';
import type { BmcClient } from '../client/http.js';
import { stringifyJson } from '../client/json.js';
import type { WritableAttribute } from '../client/profile.js';
import type { HttpRequest, RequestSource } from './request-source.js';
import { ValueCycle, sameValue } from './values.js';
import { messageOf } from '../client/errors.js';

export interface RestoreResult {
  path: string;
  name: string;
  original: unknown;
  /** What a GET answered after the restoring PUT. */
  readBack: unknown;
  restored: boolean;
  note?: string;
}

export interface PreparedWrites {
  cycles: ValueCycle[];
  /** Declared attributes left out, with the reason. */
  skipped: string[];
}

/** Reads each declared attribute once and makes a value cycle for those that can be written. */
export async function prepareWrites(client: BmcClient, writable: readonly WritableAttribute[]): Promise<PreparedWrites> {
  const cycles: ValueCycle[] = [];
  const skipped: string[] = [];
  for (const attr of writable) {
    const res = await client.get(attrPath(attr.path, attr.name));
    if (res.status !== 200) {
      skipped.push(`${attr.path} ${attr.name}: GET answered ${res.statusLine}`);
      continue;
    }
    const cycle = ValueCycle.for(attr, dataOf(res));
    if (typeof cycle === 'string') skipped.push(cycle);
    else cycles.push(cycle);
  }
  return { cycles, skipped };
}

/** PUTs to the attributes in turn. */
export function writeMixSource(cycles: readonly ValueCycle[]): RequestSource {
  if (cycles.length === 0) throw new RangeError('The write mix needs at least one writable attribute.');
  let turn = 0;
  return {
    next(): HttpRequest {
      const cycle = cycles[turn++ % cycles.length]!;
      return { method: 'PUT', path: attrPath(cycle.path, cycle.name), body: stringifyJson({ data: cycle.next() }) };
    },
  };
}

/** Writes every original back and reads it back; a PUT or GET that fails is reported, not thrown. */
export async function restoreOriginals(client: BmcClient, cycles: readonly ValueCycle[]): Promise<RestoreResult[]> {
  const results: RestoreResult[] = [];
  for (const c of cycles) {
    const path = attrPath(c.path, c.name);
    const base = { path: c.path, name: c.name, original: c.original };
    try {
      const put = await client.put(path, c.original);
      const get = await client.get(path);
      const readBack = dataOf(get);
      const restored = put.status === 200 && get.status === 200 && sameValue(readBack, c.original);
      results.push({
        ...base,
        readBack,
        restored,
        ...(!restored && { note: `PUT answered ${put.statusLine}, GET answered ${get.statusLine}` }),
      });
    } catch (err) {
      results.push({ ...base, readBack: undefined, restored: false, note: messageOf(err) });
    }
  }
  return results;
}

export function attrPath(path: string, name: string): string {
  return `${path}/attr/${name}`;
}
