/** Counts across a fleet: per requirement ("RULE-4 fails on 12 of 40 machines, all of platform X") and per outcome. */
import { VERDICTS, type Verdict } from '../../client/results.js';
import type { FleetMatrix, FleetTarget, TargetStatus } from './matrix.js';

export const NO_PLATFORM = 'no platform named';

export interface RequirementAcross {
  id: string;
  counts: Record<Verdict, number>;
  /** Targets that gave verdicts: the denominator. */
  judged: number;
  /** Platform → targets on which the requirement FAILs. */
  failingPlatforms: Map<string, number>;
  /** Platform → targets on which it is an expected failure (XFAIL). */
  expectedPlatforms: Map<string, number>;
  /** Targets whose PASS or WARN of it rests on some of its tests (partly judged). */
  partly: number;
}

export function judgedTargets(matrix: Pick<FleetMatrix, 'targets'>): FleetTarget[] {
  return matrix.targets.filter((t) => t.verdicts !== undefined);
}

export function requirementAcross(matrix: Pick<FleetMatrix, 'targets'>, id: string): RequirementAcross {
  const counts = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
  const failingPlatforms = new Map<string, number>();
  const expectedPlatforms = new Map<string, number>();
  const judged = judgedTargets(matrix);
  let partly = 0;
  for (const t of judged) {
    const v = t.verdicts![id];
    if (!v) continue;
    counts[v] += 1;
    if (t.partly?.[id] !== undefined) partly += 1;
    const platform = t.platform ?? NO_PLATFORM;
    if (v === 'FAIL') failingPlatforms.set(platform, (failingPlatforms.get(platform) ?? 0) + 1);
    if (v === 'XFAIL') expectedPlatforms.set(platform, (expectedPlatforms.get(platform) ?? 0) + 1);
  }
  return { id, counts, judged: judged.length, failingPlatforms, expectedPlatforms, partly };
}

/** "fails on 2 of 6 machines, all of platform bmcweb; expected to fail (XFAIL) on 2, all of platform phosphor-rest" */
export function acrossSentence(r: RequirementAcross): string {
  const c = r.counts;
  const parts: string[] = [];
  if (c.FAIL > 0)
    parts.push(`fails on ${c.FAIL} of ${r.judged} machine${r.judged === 1 ? '' : 's'}${platformsText(r.failingPlatforms, c.FAIL)}`);
  if (c.XFAIL > 0) parts.push(`expected to fail (XFAIL) on ${c.XFAIL}${platformsText(r.expectedPlatforms, c.XFAIL)}`);
  if (c.XPASS > 0) parts.push(`expected to fail but passes (XPASS) on ${c.XPASS}`);
  if (c.WARN > 0) parts.push(`warns on ${c.WARN}`);
  const partly = r.partly > 0 ? ` (partly judged on ${r.partly})` : '';
  if (parts.length > 0) return `${parts.join('; ')}${partly}`;
  if (c.PASS === r.judged) return r.judged > 0 ? `passes on every machine${partly}` : 'no machine gave verdicts';
  return `passes on ${c.PASS} of ${r.judged}${partly}${c.NOT_TESTED > 0 ? `, not tested on ${c.NOT_TESTED}` : ''}`;
}

function platformsText(platforms: Map<string, number>, total: number): string {
  if (platforms.size === 1) {
    const [name] = [...platforms.keys()];
    return name === NO_PLATFORM ? '' : total === 1 ? `, of platform ${name}` : `, all of platform ${name}`;
  }
  return `: ${[...platforms.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([p, n]) => `${p} ${n}`)
    .join(', ')}`;
}

export function statusCounts(matrix: Pick<FleetMatrix, 'targets'>): Record<TargetStatus, number> {
  const counts: Record<TargetStatus, number> = {
    passed: 0,
    failed: 0,
    'not judged': 0,
    unreachable: 0,
    'login refused': 0,
    error: 0,
    interrupted: 0,
  };
  for (const t of matrix.targets) counts[t.status] += 1;
  return counts;
}

/** "7 targets: 3 passed, 3 failed, 1 unreachable" */
export function fleetHeadline(matrix: Pick<FleetMatrix, 'targets'>): string {
  const counts = statusCounts(matrix);
  const parts = (Object.entries(counts) as Array<[TargetStatus, number]>).filter(([, n]) => n > 0).map(([s, n]) => `${n} ${s}`);
  return `${matrix.targets.length} target${matrix.targets.length === 1 ? '' : 's'}: ${parts.join(', ') || 'none'}`;
}

/**
 * The fleet's exit code: 2 when any target could not be run to a verdict (unreachable, error,
 * interrupted, or a run that judged nothing), else 1 when any target's run failed, else 0.
 */
export function fleetExitCode(matrix: Pick<FleetMatrix, 'targets'>): 0 | 1 | 2 {
  const c = statusCounts(matrix);
  if (c.unreachable + c['login refused'] + c.error + c.interrupted + c['not judged'] > 0) return 2;
  return c.failed > 0 ? 1 : 0;
}

/** What a target's status says in a report: "unreachable: <its sentence>". */
export function statusText(t: FleetTarget): string {
  return t.message && t.status !== 'passed' && t.status !== 'failed' ? `${t.status}: ${t.message}` : t.status;
}
