/**
 * Whole-tree reads: a GET of a namespace's (or every namespace's) `enumerate` or `list`. On a real
 * BMC one gathers every service's objects over D-Bus and costs seconds, so a run counts them and
 * their time, by area and by test, and says what they cost. The enumerates of a subtree are
 * counted beside them (`subtree`): they gather less, but over the same route.
 */
import { pathOf } from './answer-site.js';

export type TreeReadRoute = 'enumerate' | 'list' | 'subtree';

/** How a whole-tree snapshot is read: an enumerate of the root, or its list and a GET of each object (`--tree-snapshot`). */
export const TREE_SNAPSHOTS = ['enumerate', 'objects'] as const;
export type TreeSnapshot = (typeof TREE_SNAPSHOTS)[number];

/** One whole-tree read as the client saw it: the time from sending to the last byte (or the failure). */
export interface TreeRead {
  route: TreeReadRoute;
  ms: number;
  /** The area whose test (or hook) sent it; absent for the runner's own (preflight, leave-no-trace). */
  area?: string;
  test?: string;
}

export interface TreeReadGroup {
  /** An area, or `run` for the runner's own reads (preflight, leave-no-trace). */
  area: string;
  /** Whole-tree reads and their time. */
  count: number;
  seconds: number;
  /** Enumerates of a subtree and their time. */
  subtree: number;
  subtreeSeconds: number;
}

/** What results.json keeps: the whole-tree reads of the run, in all and per area (most costly first). */
export interface TreeReads {
  count: number;
  seconds: number;
  enumerate: number;
  list: number;
  /** Enumerates of a subtree (not counted above) and their time. */
  subtree: { count: number; seconds: number };
  areas: TreeReadGroup[];
  /**
   * What the enumerate of the namespace root cost before the suites, and what the run planned for
   * it (runner/read-costs.ts).
   */
  plan?: {
    rootEnumerateMs: number;
    /** How whole-tree snapshots were read. */
    treeSnapshot: TreeSnapshot;
    /** What reading the tree object by object would take, estimated when the enumerate was costly. */
    objectSnapshotMs?: number;
    notes: string[];
  };
  /** The tests whose enumerates and lists (of the whole tree and of subtrees) cost the most, at most ten. */
  tests: Array<{ test: string; area: string; count: number; seconds: number; subtree: number; subtreeSeconds: number }>;
}

/** A whole-tree enumerate at least this slow is a real BMC's (seconds); the simulator's takes milliseconds. */
export const COSTLY_ENUMERATE_MS = 1_000;
/** Object reads in flight at once when the tree is read object by object (the discovery walk's four). */
export const OBJECT_READS_AT_ONCE = 4;

/** Whether an enumerate this slow costs what a real BMC's does (runner/read-costs.ts plans the run's reads from it). */
export function isCostly(rootEnumerateMs: number): boolean {
  return rootEnumerateMs >= COSTLY_ENUMERATE_MS;
}

/** The runner's own reads: preflight and the leave-no-trace snapshots. */
export const RUN_AREA = 'run';

/** `/enumerate`, `/xyz/enumerate`, `/xyz/{ns}/enumerate` and the same three `list`s, without a query. */
const WHOLE_TREE = /^(?:\/xyz(?:\/[^/]+)?)?\/(enumerate|list)$/;

/** The whole-tree route a request reads, `subtree` for another enumerate, undefined for any other request. */
export function wholeTreeRoute(method: string, url: string): TreeReadRoute | undefined {
  if (method.toUpperCase() !== 'GET') return undefined;
  const path = pathOf(url);
  const whole = WHOLE_TREE.exec(path)?.[1] as TreeReadRoute | undefined;
  return whole ?? (path.endsWith('/enumerate') ? 'subtree' : undefined);
}

/** Adds up the reads of a run. */
export class TreeReadTally {
  private readonly reads: TreeRead[] = [];

  add(read: TreeRead): void {
    this.reads.push(read);
  }

  summary(): TreeReads {
    const areas = new Map<string, TreeReadGroup>();
    const tests = new Map<string, TreeReads['tests'][number]>();
    let ms = 0;
    let subtreeMs = 0;
    for (const r of this.reads) {
      const area = r.area ?? RUN_AREA;
      const name = r.test ?? `${area} (hooks)`;
      const groups = [
        areas.get(area) ?? { area, count: 0, seconds: 0, subtree: 0, subtreeSeconds: 0 },
        tests.get(`${area}\u0000${name}`) ?? { test: name, area, count: 0, seconds: 0, subtree: 0, subtreeSeconds: 0 },
      ] as const;
      areas.set(area, groups[0]);
      tests.set(`${area}\u0000${name}`, groups[1]);
      for (const g of groups) {
        if (r.route === 'subtree') {
          g.subtree += 1;
          g.subtreeSeconds += r.ms / 1000;
        } else {
          g.count += 1;
          g.seconds += r.ms / 1000;
        }
      }
      if (r.route === 'subtree') subtreeMs += r.ms;
      else ms += r.ms;
    }
    const tenths = (seconds: number) => Math.round(seconds * 10) / 10;
    const round = <T extends { seconds: number; subtreeSeconds: number }>(g: T): T => ({
      ...g,
      seconds: tenths(g.seconds),
      subtreeSeconds: tenths(g.subtreeSeconds),
    });
    type Cost = { seconds: number; count: number; subtreeSeconds: number };
    const byCost = (a: Cost, b: Cost) => b.seconds + b.subtreeSeconds - a.seconds - a.subtreeSeconds || b.count - a.count;
    const enumerate = this.reads.filter((r) => r.route === 'enumerate').length;
    const list = this.reads.filter((r) => r.route === 'list').length;
    return {
      count: enumerate + list,
      seconds: tenths(ms / 1000),
      enumerate,
      list,
      subtree: { count: this.reads.length - enumerate - list, seconds: tenths(subtreeMs / 1000) },
      areas: [...areas.values()].sort(byCost).map(round),
      tests: [...tests.values()].sort(byCost).slice(0, 10).map(round),
    };
  }
}

/**
 * `whole-tree reads: 41 (38 enumerate, 3 list) in 12.3 s; writes 12 (3.1 s), run 2 (0.6 s), …;
 * subtree enumerates: 60 in 1.2 s`
 */
export function treeReadsLine(t: TreeReads): string {
  const areas = t.areas
    .filter((a) => a.count > 0)
    .sort((a, b) => b.seconds - a.seconds || b.count - a.count)
    .map((a) => `${a.area} ${a.count} (${a.seconds} s)`)
    .join(', ');
  const byObjects = t.plan?.treeSnapshot === 'objects' ? ', snapshots by object' : '';
  const root = t.plan ? ` (one enumerate of the root: ${(t.plan.rootEnumerateMs / 1000).toFixed(1)} s${byObjects})` : '';
  const whole = `whole-tree reads: ${t.count} (${t.enumerate} enumerate, ${t.list} list) in ${t.seconds} s${root}${areas ? `; ${areas}` : ''}`;
  return `${whole}; subtree enumerates: ${t.subtree.count} in ${t.subtree.seconds} s`;
}
