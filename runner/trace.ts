/**
 * Leave no trace: an enumeration of the namespace before the suites and one after; what differs,
 * apart from counters, clocks and readings that move by themselves, is what the run left behind.
 */
import type { BmcClient } from '../client/http.js';
import { isMap, sameValue } from '../client/values.js';
import { OBJECT_READS_AT_ONCE } from '../client/tree-reads.js';

export interface Snapshot {
  /** Path → attribute map, as `enumerate` of the namespace root answers. */
  objects: Record<string, Record<string, unknown>>;
}

export interface TraceChange {
  path: string;
  attribute: string;
  before: unknown;
  after: unknown;
}

export interface TraceReport {
  /** Attributes whose value the run left changed. */
  changed: TraceChange[];
  /** Objects that were not there before (a version left behind). */
  added: string[];
  /** Objects that were there before and are gone. */
  removed: string[];
  /** Attributes that moved by themselves between readings after the run, not counted. */
  volatile: string[];
}

/** Names of attributes that move on their own: clocks, counters, timestamps. */
const MOVING = /(Elapsed|Timestamp|Uptime|Time|Count|Counter|Seconds)$/;

/** The enumeration of the namespace; undefined when the target does not answer it. */
export async function takeSnapshot(client: BmcClient, ns: string, timeoutMs?: number): Promise<Snapshot | undefined> {
  const res = await client.get(`/xyz/${ns}/enumerate`, timeoutMs === undefined ? {} : { timeoutMs }).catch(() => undefined);
  const data = (res?.json as { data?: unknown } | undefined)?.data;
  if (res?.status !== 200 || data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  return { objects: data as Snapshot['objects'] };
}

/**
 * The attribute maps of `paths`, by GET of each, OBJECT_READS_AT_ONCE at a time; a path whose GET
 * gives no attribute map is left out, as an enumerate leaves out nodes without attributes.
 */
export async function readObjects(client: BmcClient, paths: readonly string[], timeoutMs?: number): Promise<Snapshot['objects']> {
  const out: Snapshot['objects'] = {};
  const opts = timeoutMs === undefined ? {} : { timeoutMs };
  for (let i = 0; i < paths.length; i += OBJECT_READS_AT_ONCE) {
    const batch = paths.slice(i, i + OBJECT_READS_AT_ONCE);
    const answers = await Promise.all(batch.map((p) => client.get(p, opts).catch(() => undefined)));
    batch.forEach((path, k) => {
      const data = answers[k]?.status === 200 ? (answers[k]!.json as { data?: unknown } | undefined)?.data : undefined;
      if (isMap(data)) out[path] = data;
    });
  }
  return out;
}

/** The paths the namespace's list names; undefined when it is not answered with a list. */
export async function listNamespace(client: BmcClient, ns: string, timeoutMs?: number): Promise<string[] | undefined> {
  const res = await client.get(`/xyz/${ns}/list`, timeoutMs === undefined ? {} : { timeoutMs }).catch(() => undefined);
  const data = (res?.json as { data?: unknown } | undefined)?.data;
  if (res?.status !== 200 || !Array.isArray(data)) return undefined;
  return data.filter((p): p is string => typeof p === 'string');
}

/**
 * The namespace read object by object (its list, then a GET of each), for a target whose enumerate
 * costs more (runner/read-costs.ts); undefined when the list is not answered.
 */
export async function takeObjectsSnapshot(client: BmcClient, ns: string, timeoutMs?: number): Promise<Snapshot | undefined> {
  const paths = await listNamespace(client, ns, timeoutMs);
  return paths && { objects: await readObjects(client, paths, timeoutMs) };
}

/**
 * Differences between two snapshots, before the moving attributes are set aside; `byName` false
 * keeps the attributes whose names say they move (a caller that tells them by observation).
 */
export function differences(before: Snapshot, after: Snapshot, byName = true): TraceReport {
  const changed: TraceChange[] = [];
  for (const [path, attrs] of Object.entries(after.objects)) {
    const old = before.objects[path];
    if (!old) continue;
    for (const [attribute, value] of Object.entries(attrs)) {
      if ((byName && MOVING.test(attribute)) || !(attribute in old)) continue;
      if (!sameValue(old[attribute], value)) changed.push({ path, attribute, before: old[attribute], after: value });
    }
  }
  return {
    changed,
    added: Object.keys(after.objects)
      .filter((p) => !before.objects[p])
      .sort(),
    removed: Object.keys(before.objects)
      .filter((p) => !after.objects[p])
      .sort(),
    volatile: [],
  };
}

/**
 * What the run left behind. An attribute that differs is read twice more: one that keeps moving
 * (a sensor reading) is volatile, not a trace of the run.
 */
export async function compareSnapshots(client: BmcClient, before: Snapshot, after: Snapshot, settleMs = 500): Promise<TraceReport> {
  const report = differences(before, after);
  if (report.changed.length === 0) return report;
  const reread = async (): Promise<Map<string, Record<string, unknown>>> => {
    const out = new Map<string, Record<string, unknown>>();
    for (const path of new Set(report.changed.map((c) => c.path))) {
      const res = await client.get(path).catch(() => undefined);
      const data = (res?.json as { data?: unknown } | undefined)?.data;
      if (res?.status === 200 && data && typeof data === 'object') out.set(path, data as Record<string, unknown>);
    }
    return out;
  };
  const first = await reread();
  await new Promise((r) => setTimeout(r, settleMs));
  const second = await reread();
  const kept: TraceChange[] = [];
  for (const c of report.changed) {
    const a = first.get(c.path)?.[c.attribute];
    const b = second.get(c.path)?.[c.attribute];
    const moving = !sameValue(a, c.after) || !sameValue(a, b);
    if (moving) report.volatile.push(`${c.path} ${c.attribute}`);
    // Back where it was by now (a restore that landed late) is no trace either.
    else if (!sameValue(b, c.before)) kept.push({ ...c, after: b });
  }
  report.changed = kept;
  return report;
}

/** One line per trace, for the console and results.json. */
export function describeTrace(t: TraceReport): string[] {
  const show = (v: unknown) => (typeof v === 'bigint' ? v.toString() : JSON.stringify(v));
  return [
    ...t.changed.map((c) => `${c.path} ${c.attribute}: ${show(c.before)} before the run, ${show(c.after)} after`),
    ...t.added.map((p) => `${p}: added by the run and still there`),
    ...t.removed.map((p) => `${p}: there before the run, gone after`),
  ];
}
