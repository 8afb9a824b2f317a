/**
 * Whole-tree effects of one command: the namespace before and after it differs by exactly what the
 * command was meant to change. The snapshot is the enumeration of the namespace (leave-no-trace's
 * snapshot, runner/trace.ts), or on a target whose enumerate costs more than reading the objects one
 * by one, its list and a GET of each object (`--tree-snapshot`); every difference it shows is read again by GET of the object, so that
 * an enumeration that disagrees with GET (EP-7's deviation) never stands as a change made by the
 * command. Values that move by themselves are told by observation: a changed value is polled by GET
 * for as long as the command's window (in the command's second run, a second at least), and one
 * that moves meanwhile is set aside for the rest of the run, whatever its name; and a difference
 * counts only when the command, done again, makes it again (a host finishing a transition on its
 * own, or a log entry of its own, does not repeat on cue).
 */
import { isMap } from '../../client/values.js';
import { differences, type Snapshot } from '../../runner/trace.js';
import { envelopeOf, show } from './assert.js';
import type { CheckContext } from './check.js';
import { attributeMaps, children, invalidateTreeCache, stillHolding } from './tree.js';
import { uploadAndTrack } from './software.js';
import { forgetEachRun } from '../../client/run-scoped.js';

/** What a command is meant to change; everything else in the tree must stay as it was. */
export interface Intended {
  /** Attributes the command writes. */
  changed?: ReadonlyArray<{ path: string; name: string }>;
  /** Objects the command removes, with everything below them. */
  removed?: readonly string[];
  /** New direct children of `under` (and what lies below them), at most `max` of them. */
  added?: { under: string; max: number };
}

/**
 * One difference the command was not meant to make. `key` names it apart from the values seen and
 * from the object's own name (by its parent): a second run of a command on fresh instances of the
 * run's own makes the same difference on others.
 */
export interface Collateral {
  key: string;
  text: string;
}

/**
 * A changed value is read again for as long as the command's window lasted (from the snapshot
 * before to the one after), within bounds: a value that moves by itself at some pace and moved
 * within that window moves again within as long, most likely.
 */
const REREAD_MIN_MS = 300;
const REREAD_MAX_MS = 10_000;
const REREAD_GAP_MS = 100;
/**
 * In the command's second run, whose findings stand, at least a second and a little more: a clock
 * ticking in seconds whose tick both runs' windows caught shows there, however short the windows
 * (the run learns it at that point, instead of by reading the tree twice a second apart before its
 * first command, which every run paid).
 */
const REPEAT_REREAD_MIN_MS = 1_100;
/**
 * In repeatedCollateral's second run, the keys the first found: a changed value of another key
 * cannot stand, and is not read again (a host that finished its transition in the first run's
 * window, a clock that ticked only in the second's).
 */
let firstFound: ReadonlySet<string> | undefined;

/** Attributes seen moving by themselves in this run: never a command's doing in a later check either. */
const moving = new Set<string>();
/** When each snapshot was taken (performance.now()). */
const takenAt = new WeakMap<Snapshot, number>();
forgetEachRun(() => {
  moving.clear();
  firstFound = undefined;
});

const key = (path: string, name: string) => `${path}\u0000${name}`;

async function snapshot(t: CheckContext): Promise<Snapshot> {
  invalidateTreeCache();
  // A namespace the target cannot enumerate is EP-7's failure: this check goes NOT_TESTED naming it.
  const taken = performance.now();
  const snap = { objects: await attributeMaps(t.client, t.root, t.cfg.treeSnapshot) };
  takenAt.set(snap, taken);
  return snap;
}

function parentOf(path: string): string {
  return path.slice(0, path.lastIndexOf('/'));
}

function isUnder(path: string, roots: readonly string[]): boolean {
  return roots.some((r) => path === r || path.startsWith(`${r}/`));
}

export class TreeWatch {
  private constructor(
    private readonly t: CheckContext,
    /** The state the next command is compared against. */
    public base: Snapshot,
  ) {}

  /** The state before any command. */
  static async start(t: CheckContext): Promise<TreeWatch> {
    return new TreeWatch(t, await snapshot(t));
  }

  /** The state now (it becomes the base of the next comparison). */
  async mark(): Promise<Snapshot> {
    this.base = await snapshot(this.t);
    return this.base;
  }

  /**
   * Takes a snapshot and compares it with `against` (default: the base, i.e. the state before the
   * command): the differences the command was not meant to make, each confirmed by GET. The new
   * snapshot becomes the base. `addedJudgedUnder`: objects that appear elsewhere are not judged (a
   * target may log an event of its own at any time).
   */
  async collateral(intended: Intended, addedJudgedUnder: string, against: Snapshot = this.base): Promise<Collateral[]> {
    const after = await snapshot(this.t);
    this.base = after;
    const diff = differences(against, after, false);
    const removedOk = intended.removed ?? [];
    const addedOk = intended.added
      ? diff.added.filter((p) => p.startsWith(`${intended.added!.under}/`) && !p.slice(intended.added!.under.length + 1).includes('/'))
      : [];
    const allowedNew = addedOk.slice(0, intended.added?.max ?? 0);
    const changedOk = new Set((intended.changed ?? []).map((c) => key(c.path, c.name)));
    const found: Collateral[] = [];

    for (const path of diff.removed) {
      if (isUnder(path, removedOk)) continue;
      // Still answering GET: the enumeration forgot it, not the command (EP-7's concern).
      if ((await this.t.client.get(path)).status === 200) continue;
      found.push({ key: `removed ${parentOf(path)}`, text: `${path} was removed` });
    }
    for (const path of diff.added) {
      if (isUnder(path, allowedNew) || !isUnder(path, [addedJudgedUnder])) continue;
      if ((await this.t.client.get(path)).status !== 200) continue;
      found.push({ key: `added ${parentOf(path)}`, text: `${path} appeared` });
    }
    const changedKey = (c: { path: string; attribute: string }) => `changed ${parentOf(c.path)} ${c.attribute}`;
    const candidates = diff.changed.filter(
      (c) =>
        !changedOk.has(key(c.path, c.attribute)) &&
        !moving.has(key(c.path, c.attribute)) &&
        !isUnder(c.path, removedOk) &&
        (firstFound?.has(changedKey(c)) ?? true),
    );
    const window = performance.now() - (takenAt.get(against) ?? performance.now());
    for (const c of await this.confirmed(candidates, window)) {
      found.push({ key: changedKey(c), text: `${c.path} ${c.attribute} changed from ${show(c.before)} to ${show(c.after)}` });
    }
    return found;
  }

  /** The changes GET shows too, and that hold still while read again (the others move by themselves). */
  private async confirmed<C extends { path: string; attribute: string; after: unknown }>(changes: C[], windowMs: number): Promise<C[]> {
    const span = Math.min(REREAD_MAX_MS, Math.max(firstFound ? REPEAT_REREAD_MIN_MS : REREAD_MIN_MS, windowMs));
    const readMap = async (path: string) => {
      const res = await this.t.client.get(path);
      const data = res.status === 200 ? envelopeOf(res)?.data : undefined;
      return isMap(data) ? data : undefined;
    };
    const seen = (c: C) => ({ path: c.path, name: c.attribute, value: c.after });
    const held = await stillHolding(changes, seen, readMap, performance.now() + span, REREAD_GAP_MS);
    for (const c of changes) if (!held.includes(c)) moving.add(key(c.path, c.attribute));
    return held;
  }
}

/** One line for a FAIL: the command and what else it changed. */
export function describeCollateral(command: string, found: readonly Collateral[]): string {
  const more = found.length > 5 ? ` (and ${found.length - 5} more)` : '';
  return `${command} also changed the rest of the tree: ${found
    .slice(0, 5)
    .map((f) => f.text)
    .join('; ')}${more}`;
}

/** What one run of a command cycle found at each of its steps (a command, its undoing, ...). */
export interface Step {
  command: string;
  found: Collateral[];
}

/**
 * Runs a command cycle, and when it found anything, runs it once more from where the first left
 * the tree: a finding stands when the second run finds it again (at any of its steps: a change the
 * first run left behind shows where the second makes it anew). Returns the steps of the first run,
 * each with the findings that stood.
 */
export async function repeatedCollateral(cycle: () => Promise<Step[]>): Promise<Step[]> {
  const first = await cycle();
  if (first.every((s) => s.found.length === 0)) return first;
  firstFound = new Set(first.flatMap((s) => s.found.map((f) => f.key)));
  let second: Step[];
  try {
    second = await cycle();
  } finally {
    firstFound = undefined;
  }
  const again = new Set(second.flatMap((s) => s.found.map((f) => f.key)));
  return first.map((step) => ({ command: step.command, found: step.found.filter((f) => again.has(f.key)) }));
}

/** Judges each step of a cycle under `requirement`. */
export function judgeSteps(t: CheckContext, requirement: string, steps: readonly Step[]): void {
  for (const step of steps) t.judge(requirement, step.found.length === 0, describeCollateral(step.command, step.found));
}

/**
 * Two versions of the run's own under software/ (deleted after the test), and the first of them
 * that the listing shows followed by another object: a command meant for it alone has a neighbour
 * to spare. Undefined when no upload registered a version.
 */
export async function ownVersionWithNeighbour(t: CheckContext, tag: string): Promise<string | undefined> {
  const own: string[] = [];
  for (const n of [1, 2]) own.push(...(await uploadAndTrack(t, { tag: `${tag}${n}` })).added);
  const listed = await children(t.client, `${t.root}/software`);
  const present = own.filter((p) => listed.includes(p));
  return present.find((p) => listed.indexOf(p) < listed.length - 1) ?? present[0];
}
