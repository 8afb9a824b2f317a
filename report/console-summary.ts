/** The console summary of a run: what failed, warned or was not tested, and why; what changed since the baseline. */
import { headline } from '../client/headline.js';
import { namesWritableHint, withoutWritableHint } from '../client/writable-hint.js';
import { runNotices } from './run-notices.js';
import { isNotRunNote, NOTHING_JUDGED_EXIT, nothingJudged, type RequirementResult, type Results, type Verdict } from '../client/results.js';
import { planText, type Trend, type VerdictChange } from './changes.js';
import { partlyByReason, PARTLY } from './partly.js';

const SHOWN: Verdict[] = ['FAIL', 'XPASS', 'WARN', 'XFAIL', 'NOT_TESTED'];

/** The reasons runner/run.ts gives a requirement the user's --only or --requirements left out. */
const UNSELECTED = /^(area (\S+) not selected \(--only\)|not selected \(--requirements\))$/;

/** What the run itself knew beyond results.json, for its console (`report` has results.json only). */
export interface SummaryContext {
  /** The areas as the run's progress saw them: an interrupted run says what ran and what did not. */
  areas?: AreasRun;
  /** The tests whose reason named --writable (results.json keeps the reasons per requirement). */
  writableHintTests?: number;
  /** The shipped target profiles: given for a run against a target without one, to name when it lacked writables. */
  shippedProfiles?: { dir: string; names: readonly string[] };
}

export interface AreasRun {
  /** The tests the run planned. */
  total: number;
  /** The selected areas, in run order. */
  selected: readonly string[];
  /** Each area the run reached: its tests that ran, and those the interruption kept from starting. */
  reached: ReadonlyArray<{ area: string; ran: number; notRun: number }>;
}

/** "areas envelope, objects (--only); others (--requirements)" */
function selectionNote(reqs: readonly RequirementResult[]): string {
  const areas = [...new Set(reqs.flatMap((r) => UNSELECTED.exec(r.reason ?? '')?.[2] ?? []))];
  const byRequirements = reqs.some((r) => r.reason === 'not selected (--requirements)');
  return [
    ...(areas.length > 0 ? [`area${areas.length === 1 ? '' : 's'} ${areas.join(', ')} (--only)`] : []),
    ...(byRequirements ? ['IDs not named (--requirements)'] : []),
  ].join('; ');
}

export function formatSummary(results: Results, unhandled: string[], context: SummaryContext = {}): string[] {
  const lines = [''];
  // What an interruption kept from running is counted on one line below, not listed.
  const notRun = results.interrupted ? results.requirements.filter((r) => r.verdict === 'NOT_TESTED' && isNotRunNote(r.reason)) : [];
  for (const verdict of SHOWN) {
    const reqs = results.requirements.filter((r) => r.verdict === verdict && !notRun.includes(r));
    if (reqs.length === 0) continue;
    lines.push(`${verdict}:`);
    // What the user chose not to run is one line, not one per requirement (results.json lists each).
    const unselected = verdict === 'NOT_TESTED' ? reqs.filter((r) => UNSELECTED.test(r.reason ?? '')) : [];
    for (const r of reqs.filter((x) => !unselected.includes(x))) {
      const known = r.expected !== undefined ? ` (expected: ${r.expected})` : '';
      lines.push(`  ${r.id.padEnd(8)} ${r.level.padEnd(7)} ${headline(withoutWritableHint(r.reason ?? ''))}${known}`);
    }
    if (unselected.length > 0) lines.push(`  ${unselected.length} requirement(s) not selected: ${selectionNote(unselected)}`);
  }
  lines.push(...unseenExpectations(results.requirements), ...partlyJudged(results.requirements));
  for (const e of unhandled) lines.push(`unhandled error during the run: ${e}`);
  lines.push(...writableLines(results, context));
  lines.push(...runNotices(results));
  if (results.interrupted) lines.push(...interruptionLines(results, notRun.length, context.areas));
  const s = results.summary;
  const expected = s.XFAIL + s.XPASS > 0 ? `, ${s.XFAIL} XFAIL, ${s.XPASS} XPASS` : '';
  // An interrupted run's exit is the signal's; its "ran" line already says what it judged.
  if (nothingJudged(s) && !results.interrupted)
    lines.push(`nothing was judged: every requirement is NOT_TESTED (exit ${NOTHING_JUDGED_EXIT})`);
  // What the target decided the run covers, and how much of it ran: two runs with one digest compare.
  const plan = planText(results);
  if (plan) lines.push(`plan: ${plan}`);
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

/**
 * The hint the suites give on every test that wanted a writable attribute, once with its count;
 * and, for a run against a target without a target profile, the shipped profiles that name them.
 */
function writableLines(results: Results, context: SummaryContext): string[] {
  const hinted = results.requirements.filter((r) => r.verdict === 'NOT_TESTED' && namesWritableHint(r.reason)).length;
  if (hinted === 0) return [];
  const tests = context.writableHintTests ? `${context.writableHintTests} tests (${hinted} requirements)` : `${hinted} requirements`;
  const lines = [`writable: ${tests} not tested for want of a named writable attribute; name each with --writable PATH:ATTR[=V1|V2]`];
  const shipped = context.shippedProfiles;
  if (shipped && shipped.names.length > 0) {
    lines.push(
      `target profile: none given; a reviewed one names its platform's writables, namespace and known deviations: --target-profile ${shipped.dir}/<platform>.json (shipped: ${shipped.names.join(', ')})`,
    );
  }
  return lines;
}

/** An interrupted run in two lines: what ran, and what did not (the areas not reached on the same line). */
function interruptionLines(results: Results, notRunRequirements: number, areas: AreasRun | undefined): string[] {
  const s = results.summary;
  const judged = s.PASS + s.FAIL + s.WARN + s.XFAIL + s.XPASS;
  const requirements = `${notRunRequirements} requirement${notRunRequirements === 1 ? '' : 's'}`;
  if (!areas) return [`ran: ${judged} requirements judged`, `not run: ${requirements} (NOT_TESTED)`];
  const ran = areas.reached.reduce((n, a) => n + a.ran, 0);
  const cut = areas.reached
    .filter((a) => a.ran > 0 && a.notRun > 0)
    .map((a) => `${a.area} cut short after ${a.ran} of ${a.ran + a.notRun}`);
  const whole = areas.reached.filter((a) => a.ran > 0 && a.notRun === 0).map((a) => a.area);
  const notReached = areas.selected.filter((area) => !areas.reached.some((a) => a.area === area && a.ran > 0));
  const done = [...(whole.length > 0 ? [`area${whole.length === 1 ? '' : 's'} ${whole.join(', ')} done`] : []), ...cut];
  return [
    `ran: ${ran} of ${areas.total} tests${done.length > 0 ? ` (${done.join('; ')})` : ''}, judging ${judged} requirement${judged === 1 ? '' : 's'}`,
    `not run: ${areas.total - ran} tests, ${requirements} NOT_TESTED${notReached.length > 0 ? `; areas not reached: ${notReached.join(', ')}` : ''}`,
  ];
}

/**
 * The verdicts that changed since the baseline. An interrupted run is not comparable with a whole
 * one: the requirements it did not get to are NOT_TESTED, not changed; they are counted, not listed.
 */
export function formatTrend(trend: Trend | undefined, interrupted = false): string[] {
  if (!trend) return [];
  if (trend.notComparable) return [`not compared with the baseline (${trend.source}): ${trend.notComparable}`];
  const source = `${trend.source}${trend.firmware ? `; firmware ${trend.firmware}` : ''}`;
  const label = { regression: '  (newly failing)', fix: '  (newly passing)', change: '' } as const;
  const same = trend.samePlanAndTarget;
  const mark = same ? '  (same plan, same target)' : '';
  const line = (c: VerdictChange): string => `  ${c.id.padEnd(8)} ${c.from} -> ${c.to}${label[c.kind]}${mark}`;
  if (interrupted) {
    const judged = trend.changes.filter((c) => c.to !== 'NOT_TESTED');
    const unjudged = trend.changes.length - judged.length;
    return [
      ...(judged.length > 0 ? [`changed since the baseline (${source}), of what ran:`, ...judged.map(line)] : []),
      ...(unjudged > 0
        ? [
            `${unjudged} requirement${unjudged === 1 ? ' is' : 's are'} NOT_TESTED where the baseline (${source}) had a verdict: the interrupted run did not judge them (not listed)`,
          ]
        : []),
    ];
  }
  if (trend.changes.length === 0) return [`no verdict changed since the baseline (${source})`];
  return [
    `changed since the baseline (${source}):`,
    ...trend.changes.map(line),
    ...(same
      ? [
          `  both runs read plan ${same.digest} of a target with the same fingerprint: these verdicts changed with something else (the seed, the time, the network)`,
        ]
      : []),
  ];
}
