/** What changed between two runs: the nightly question "what broke, what got fixed". */
import type { Results, Verdict } from './results.js';

export interface VerdictChange {
  id: string;
  from: Verdict | 'ABSENT';
  to: Verdict | 'ABSENT';
  kind: 'regression' | 'fix' | 'change';
}

export function verdictChanges(baseline: Results, current: Results): VerdictChange[] {
  const before = new Map(baseline.requirements.map((r) => [r.id, r.verdict]));
  const after = new Map(current.requirements.map((r) => [r.id, r.verdict]));
  const ids = [...new Set([...before.keys(), ...after.keys()])].sort();
  const changes: VerdictChange[] = [];
  for (const id of ids) {
    const from = before.get(id) ?? 'ABSENT';
    const to = after.get(id) ?? 'ABSENT';
    if (from === to) continue;
    let kind: VerdictChange['kind'] = 'change';
    if (to === 'FAIL' && from !== 'FAIL') kind = 'regression';
    else if (from === 'FAIL' && to !== 'FAIL') kind = 'fix';
    changes.push({ id, from, to, kind });
  }
  return changes;
}
