/**
 * The run's plan from what the target's reads cost: the leave-no-trace snapshot before the suites
 * is an enumerate of the namespace root, timed. Where it costs what a real BMC's does:
 * - the checks whose every command reads the tree again (the stateful sequences) get the budget a
 *   target gets, as on hardware: no sequence starts that would not end within it, and the first
 *   always runs; and each fuzzing property generates a target's number of cases, not the more the
 *   simulator's requests afford (a generated enumerate costs as much as any);
 * - the list of the root and one batch of object reads are timed too, and when reading the tree
 *   object by object (its list, then a GET of each, a few at a time) costs at most half an
 *   enumerate, the checks that compare the whole tree before and after a command read it so
 *   (`--tree-snapshot objects`). Every difference is confirmed by GET of the object either way.
 * A fast target keeps the simulator's plan: every sequence runs, and the tree is enumerated.
 */
import type { BmcClient } from '../client/http.js';
import type { RunConfig, TreeSnapshot } from './config.js';
import { DEFAULTS } from './settings.js';
import { listNamespace } from './trace.js';
import { COSTLY_ENUMERATE_MS, isCostly, OBJECT_READS_AT_ONCE } from '../client/tree-reads.js';

export { COSTLY_ENUMERATE_MS, isCostly, OBJECT_READS_AT_ONCE } from '../client/tree-reads.js';

/** What reading the tree object by object costs, as measured: the root's list, and one batch of object GETs. */
export interface ObjectReadCost {
  listMs: number;
  /** Paths the list names. */
  listed: number;
  /** One batch of OBJECT_READS_AT_ONCE GETs, sent together, until the last answer. */
  batchMs: number;
}

export interface ReadPlan {
  /** How long the enumerate of the namespace root took before the suites. */
  rootEnumerateMs: number;
  /** How a whole-tree snapshot is read: enumerate of the root, or its list and a GET of each object. */
  treeSnapshot: TreeSnapshot;
  /** What reading the tree object by object would take (estimated from one list and one batch), when measured. */
  objectSnapshotMs?: number;
  /** What the run changed for it, one sentence each (none: the plan as configured). */
  notes: string[];
}

/**
 * Whether an enumerate this long lies near the costly line (within a factor of two): the run times
 * a second one and keeps the shorter (a busy machine only adds time), so that one slow reading does
 * not give a target a plan another run would not give it.
 */
export function nearTheLine(rootEnumerateMs: number): boolean {
  return rootEnumerateMs >= COSTLY_ENUMERATE_MS / 2 && rootEnumerateMs < COSTLY_ENUMERATE_MS * 2;
}

/** The time to read every object the list names, a batch at a time, after the list itself. */
export function objectSnapshotMs(cost: ObjectReadCost): number {
  return cost.listMs + Math.ceil(cost.listed / OBJECT_READS_AT_ONCE) * cost.batchMs;
}

/**
 * Adjusts `cfg` for the measured costs and says what it changed; `fuzzRunsGiven`: `--fuzz-runs` was
 * given, and stays.
 */
export function planReads(cfg: RunConfig, rootEnumerateMs: number, objects?: ObjectReadCost, fuzzRunsGiven = false): ReadPlan {
  const notes: string[] = [];
  cfg.rootEnumerateMs = Math.round(rootEnumerateMs);
  const costly = isCostly(rootEnumerateMs);
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  if (costly && cfg.statefulTimeMs === undefined) {
    cfg.statefulTimeMs = DEFAULTS.url.statefulTimeMs;
    notes.push(
      `a whole-tree enumerate takes ${seconds(rootEnumerateMs)}: each stateful check gets a target's budget of ${
        cfg.statefulTimeMs! / 1000
      } s (--stateful-time)`,
    );
  }
  if (costly && !fuzzRunsGiven && cfg.fuzzRuns > DEFAULTS.url.fuzzRuns) {
    cfg.fuzzRuns = DEFAULTS.url.fuzzRuns;
    notes.push(`each fuzzing property generates a target's ${cfg.fuzzRuns} cases (--fuzz-runs)`);
  }
  const byObjects = objects && objectSnapshotMs(objects);
  if (cfg.treeSnapshot === undefined) {
    // Half: a choice that a noisy second measurement would not turn around.
    const cheaper = byObjects !== undefined && costly && byObjects * 2 <= rootEnumerateMs;
    cfg.treeSnapshot = cheaper ? 'objects' : 'enumerate';
    if (cheaper) {
      notes.push(
        `reading its ${objects!.listed} objects one by one takes about ${seconds(byObjects!)}: whole-tree effects are read so, not by enumerate (--tree-snapshot)`,
      );
    }
  }
  return {
    rootEnumerateMs: cfg.rootEnumerateMs,
    treeSnapshot: cfg.treeSnapshot,
    ...(byObjects === undefined ? {} : { objectSnapshotMs: Math.round(byObjects) }),
    notes,
  };
}

/**
 * Times the root's list and one batch of object GETs (the first paths the enumeration names, so
 * the same at every seed); undefined when the list is not answered.
 */
export async function measureObjectReads(
  client: BmcClient,
  ns: string,
  enumerated: readonly string[],
): Promise<ObjectReadCost | undefined> {
  const listStart = performance.now();
  const listed = await listNamespace(client, ns);
  const listMs = performance.now() - listStart;
  if (listed === undefined) return undefined;
  const sample = [...enumerated].sort().slice(0, OBJECT_READS_AT_ONCE);
  if (sample.length === 0) return undefined;
  const batchStart = performance.now();
  await Promise.all(sample.map((p) => client.get(p).catch(() => undefined)));
  return { listMs, listed: listed.length, batchMs: performance.now() - batchStart };
}
