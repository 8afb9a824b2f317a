/** What changed between two runs: the nightly question "what broke, what got fixed". */
import type { Fingerprint, Results, Verdict } from '../client/results.js';
import { coveragePlan, planText as planOfText, type CoveragePlan } from '../client/plan.js';

export interface VerdictChange {
  id: string;
  from: Verdict | 'ABSENT';
  to: Verdict | 'ABSENT';
  /** regression: newly failing; fix: newly passing; change: any other move (e.g. PASS to NOT_TESTED). */
  kind: 'regression' | 'fix' | 'change';
}

/** The run compared with, and what moved since. */
export interface Trend {
  /** Where the previous run was read from, for the reader. */
  source: string;
  previousStartedAt: string;
  changes: VerdictChange[];
  /** The previous run was named by the user (--previous): a regression then fails `report`. */
  explicit: boolean;
  /**
   * Why the runs were not compared (another target, namespace, profile or selection; a baseline
   * that was interrupted): `changes` is then empty, and every report says this instead.
   */
  notComparable?: string;
  /** The target's firmware moved between the runs ("2.14.0 → 2.15.0"): the changes are the new firmware's. */
  firmware?: string;
  /**
   * Both runs covered the same plan (client/plan.ts: its digest) of a target with the same
   * fingerprint: a verdict that changed then changed with something other than the target and what
   * was covered (the seed, the time, the network).
   */
  samePlanAndTarget?: { digest: string };
}

/** The plan a run covered (client/plan.ts): results.json's record, or for an older run its observations'. */
export function runPlan(r: Results): CoveragePlan | undefined {
  return r.plan ?? coveragePlan(r.observations);
}

/** The digest of the plan a run covered, if it recorded one. */
export function planDigest(r: Results): string | undefined {
  return runPlan(r)?.digest;
}

/** "reads 28 of 32 objects × 3 routes, …; login boundaries 40; …; digest …": how much of the plan ran. */
export function planText(r: Results): string | undefined {
  const plan = runPlan(r);
  return plan && planOfText(plan);
}

/** The plan's digest when both runs read the same plan of a target with the same fingerprint. */
export function samePlanAndTarget(previous: Results, current: Results): { digest: string } | undefined {
  const digest = planDigest(current);
  if (digest === undefined || planDigest(previous) !== digest) return undefined;
  if (previous.fingerprint === undefined || current.fingerprint === undefined) return undefined;
  const key = (f: Fingerprint) => JSON.stringify(Object.entries(f).sort(([a], [b]) => a.localeCompare(b)));
  return key(previous.fingerprint) === key(current.fingerprint) ? { digest } : undefined;
}

export function verdictChanges(previous: Results, current: Results): VerdictChange[] {
  return changesBetween(
    new Map(previous.requirements.map((r) => [r.id, r.verdict])),
    new Map(current.requirements.map((r) => [r.id, r.verdict])),
  );
}

/** Requirement ID → verdict, before and after: what moved, in ID order. */
export function changesBetween(before: ReadonlyMap<string, Verdict>, after: ReadonlyMap<string, Verdict>): VerdictChange[] {
  const ids = [...new Set([...before.keys(), ...after.keys()])].sort();
  const changes: VerdictChange[] = [];
  for (const id of ids) {
    const from = before.get(id) ?? 'ABSENT';
    const to = after.get(id) ?? 'ABSENT';
    if (from === to) continue;
    const kind: VerdictChange['kind'] = to === 'FAIL' ? 'regression' : to === 'PASS' ? 'fix' : 'change';
    changes.push({ id, from, to, kind });
  }
  return changes;
}

export const newlyFailing = (t: Trend): VerdictChange[] => t.changes.filter((c) => c.kind === 'regression');
export const newlyPassing = (t: Trend): VerdictChange[] => t.changes.filter((c) => c.kind === 'fix');
export const otherChanges = (t: Trend): VerdictChange[] => t.changes.filter((c) => c.kind === 'change');
