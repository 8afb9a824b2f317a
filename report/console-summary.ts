/** The console summary of a run: what failed, warned or was not tested, and why; what changed since the baseline. */
import { headline } from '../client/headline.js';
import { runNotices } from './run-notices.js';
import { NOTHING_JUDGED_EXIT, nothingJudged, type RequirementResult, type Results, type Verdict } from '../client/results.js';
import type { Trend } from './changes.js';
import { partlyByReason, PARTLY } from './partly.js';

const SHOWN: Verdict[] = ['FAIL', 'XPASS', 'WARN', 'XFAIL', 'NOT_TESTED'];

/** The reasons runner/run.ts gives a requirement the user's --only or --requirements left out. */
const UNSELECTED = /^(area (\S+) not selected \(--only\)|not selected \(--requirements\))$/;

/** "areas envelope, objects (--only); others (--requirements)" */
function selectionNote(reqs: readonly RequirementResult[]): string {
  const areas = [...new Set(reqs.flatMap((r) => UNSELECTED.exec(r.reason ?? '')?.[2] ?? []))];
  const byRequirements = reqs.some((r) => r.reason === 'not selected (--requirements)');
  return [
    ...(areas.length > 0 ? [`area${areas.length === 1 ? '' : 's'} ${areas.join(', ')} (--only)`] : []),
    ...(byRequirements ? ['IDs not named (--requirements)'] : []),
  ].join('; ');
}

export function formatSummary(results: Results, unhandled: string[]): string[] {
  const lines = [''];
  for (const verdict of SHOWN) {
    const reqs = results.requirements.filter((r) => r.verdict === verdict);
    if (reqs.length === 0) continue;
    lines.push(`${verdict}:`);
    // What the user chose not to run is one line, not one per requirement (results.json lists each).
    const unselected = verdict === 'NOT_TESTED' ? reqs.filter((r) => UNSELECTED.test(r.reason ?? '')) : [];
    for (const r of reqs.filter((x) => !unselected.includes(x))) {
      const known = r.expected !== undefined ? ` (expected: ${r.expected})` : '';
      lines.push(`  ${r.id.padEnd(8)} ${r.level.padEnd(7)} ${headline(r.reason ?? '')}${known}`);
    }
    if (unselected.length > 0) lines.push(`  ${unselected.length} requirement(s) not selected: ${selectionNote(unselected)}`);
  }
  lines.push(...unseenExpectations(results.requirements), ...partlyJudged(results.requirements));
  for (const e of unhandled) lines.push(`unhandled error during the run: ${e}`);
  lines.push(...runNotices(results));
  const s = results.summary;
  const expected = s.XFAIL + s.XPASS > 0 ? `, ${s.XFAIL} XFAIL, ${s.XPASS} XPASS` : '';
  if (nothingJudged(s)) lines.push(`nothing was judged: every requirement is NOT_TESTED (exit ${NOTHING_JUDGED_EXIT})`);
  lines.push(
    `requirements: ${s.PASS} PASS, ${s.FAIL} FAIL, ${s.WARN} WARN, ${s.NOT_TESTED} NOT_TESTED${expected} (${results.requirements.length} in all; ${(results.durationMs / 1000).toFixed(1)} s)`,
  );
  return lines;
}

/** A known failure a PASS could not refute: the run did not judge all of the requirement (no XPASS). */
function unseenExpectations(reqs: Results['requirements']): string[] {
  const unseen = reqs.filter((r) => r.verdict === 'PASS' && r.expected !== undefined);
  if (unseen.length === 0) return [];
  return ['PASS, expected FAIL not seen:', ...unseen.map((r) => `  ${r.id.padEnd(8)} ${r.level.padEnd(7)} ${headline(r.reason ?? '')}`)];
}

/**
 * PASS and WARN verdicts that rest on some of their tests, one line per reason the others were not
 * judged (most share one: the profile), naming the requirements; results.json names each test.
 */
function partlyJudged(reqs: readonly RequirementResult[]): string[] {
  const partly = reqs.filter((r) => r.partly);
  if (partly.length === 0) return [];
  const label = (id: string): string => (partly.find((r) => r.id === id)?.verdict === 'WARN' ? `${id} (WARN)` : id);
  return [
    `PASS, ${PARTLY} (${partly.length}; some of their tests were not judged):`,
    ...partlyByReason(partly).map((g) => `  ${g.ids.map(label).join(' ')}: ${headline(g.reason)}`),
  ];
}

export function formatTrend(trend: Trend | undefined): string[] {
  if (!trend) return [];
  if (trend.changes.length === 0) return [`no verdict changed since the baseline (${trend.source})`];
  const label = { regression: '  (newly failing)', fix: '  (newly passing)', change: '' } as const;
  const same = trend.samePlanAndTarget;
  return [
    `changed since the baseline (${trend.source}):`,
    ...trend.changes.map((c) => `  ${c.id.padEnd(8)} ${c.from} -> ${c.to}${label[c.kind]}${same ? '  (same plan, same target)' : ''}`),
    ...(same
      ? [
          `  both runs read plan ${same.digest} of a target with the same fingerprint: these verdicts changed with something else (the seed, the time, the network)`,
        ]
      : []),
  ];
}
