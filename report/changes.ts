/** What changed between two runs: the nightly question "what broke, what got fixed". */
import { READ_PLAN_OBSERVATION, type Fingerprint, type Results, type Verdict } from '../client/results.js';

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
   * Both runs read the same plan (the digest of EP-4's read plan) of a target with the same
   * fingerprint: a verdict that changed then changed with something other than the target and what
   * was covered (the seed, the time, the network).
   */
  samePlanAndTarget?: { digest: string };
}

/** The digest of the read plan a run recorded, if it recorded one. */
export function planDigest(r: Results): string | undefined {
  const value = r.observations.find((o) => o.key === READ_PLAN_OBSERVATION)?.value as { digest?: unknown } | undefined;
  return typeof value?.digest === 'string' ? value.digest : undefined;
}

/** "28 of 32 objects (96 attributes, 24 of 24 kinds), digest 6a31fa5e2061e053": what EP-4's plan read. */
export function planText(r: Results): string | undefined {
  const v = r.observations.find((o) => o.key === READ_PLAN_OBSERVATION)?.value as
    { objects?: number; objectsInTree?: number; attributes?: number; strata?: string; digest?: string } | undefined;
  if (typeof v?.digest !== 'string') return undefined;
  return `${v.objects} of ${v.objectsInTree} objects (${v.attributes} attributes, ${v.strata} kinds), digest ${v.digest}`;
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
