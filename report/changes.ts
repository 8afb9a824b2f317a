/** What changed between two runs: the nightly question "what broke, what got fixed". */
import type { Results, Verdict } from '../client/results.js';

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
