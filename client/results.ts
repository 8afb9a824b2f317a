/** The per-requirement verdict file (results.json) and how test outcomes roll up into it. */
import { REQUIREMENTS, type Level, type Requirement } from '../catalogue/requirements.js';
import type { Observation } from './results-types.js';
import type { CoveragePlan } from './plan.js';
import type { Exchange as EvidenceEntry } from './evidence.js';
import type { Outage, SessionLoss } from './errors.js';
import type { TreeReads } from './tree-reads.js';

/**
 * PASS, FAIL, WARN and NOT_TESTED come from the checks; XFAIL (a FAIL the platform's expectations
 * name) and XPASS (an expected failure that no longer fails) from the expectations file.
 */
export type Verdict = 'PASS' | 'FAIL' | 'WARN' | 'NOT_TESTED' | 'XFAIL' | 'XPASS';

export const VERDICTS: readonly Verdict[] = ['PASS', 'FAIL', 'WARN', 'NOT_TESTED', 'XFAIL', 'XPASS'];

export interface RequirementVerdict {
  verdict: Verdict;
  reason?: string;
}

export interface TestOutcome {
  name: string;
  file: string;
  requirements: string[];
  /** The test as a whole: its worst requirement verdict. */
  verdict: Verdict;
  reason?: string;
  /** Each named requirement's verdict in this test: a failure counts only against its own requirement. */
  perRequirement?: Record<string, RequirementVerdict>;
  durationMs?: number;
  evidence?: EvidenceEntry[];
}

/**
 * A PASS or WARN that rests on some of the requirement's tests: the tests of it this run ran (or
 * meant to) and did not judge, each with why. A qualifier, not a verdict: the counts are unchanged.
 */
export interface PartlyJudged {
  notJudged: Array<{ test: string; reason: string }>;
}

export interface RequirementResult {
  id: string;
  level: Level;
  section: string;
  title: string;
  verdict: Verdict;
  reason?: string;
  /** Set when the verdict is PASS or WARN and some of its tests did not judge the requirement (never on an XPASS). */
  partly?: PartlyJudged;
  tests: Array<{ name: string; verdict: Verdict; reason?: string; evidence?: EvidenceEntry[] }>;
}

/** What preflight learned of the target, for reports: how it names itself, what it runs, its size. */
export interface Fingerprint {
  /** The Server header (or X-Powered-By), when the target sends one. */
  server?: string;
  /** The version of the running BMC firmware, when the target shows it under software/. */
  firmware?: string;
  /** Objects under the namespace root, as its list shows them. */
  objects?: number;
  /** Which login body the target took: the spec's, or the field fallback form. */
  loginForm?: string;
}

/** What the run left behind on the target (enumerate before and after), with its verdict. */
export interface RunTrace {
  verdict: 'PASS' | 'WARN' | 'FAIL';
  /** One sentence per path and attribute left changed, object added or removed. */
  lines: string[];
  changed: Array<{ path: string; attribute: string; before: unknown; after: unknown }>;
  added: string[];
  removed: string[];
  /** Attributes that moved by themselves, not counted. */
  volatile: string[];
  /** Whether enumerate before and after could be compared (the target answered both). */
  compared: boolean;
  /** Sessions the run opened and logged out of again. */
  sessions: { opened: number; closed: number };
}

export { READ_PLAN_OBSERVATION } from './plan.js';

export interface Results {
  target: string;
  /** Set when the run accepted any TLS certificate (--insecure, or the embedded simulator's own): its replay does too. */
  insecure?: true;
  /** Set when the run started its own simulator: its URL changes from run to run, its dialect does not. */
  embedded?: { dialect: string };
  fingerprint?: Fingerprint;
  /** Writables a destructive run found for itself (none were named), and the candidates refused. */
  discovered?: { writable: string[]; refused: string[] };
  namespace: string;
  profile: string;
  startedAt: string;
  durationMs: number;
  seed: number;
  summary: Record<Verdict, number>;
  requirements: Array<RequirementResult & { expected?: string }>;
  observations: Array<Observation & { test: string }>;
  /** The coverage plan the observations record (client/plan.ts): how much of it ran, and its digest. */
  plan?: CoveragePlan;
  /** The known deviations applied: the file named, and every file they came from with its SHA-256. */
  expectations?: { file: string; platform?: string; files?: Array<{ file: string; sha256: string }> };
  trace?: RunTrace;
  /**
   * Set when a signal stopped the run: the verdicts are what it had; tests it did not run are
   * NOT_TESTED. `unfinished` names a test that had not restored what it wrote when the run ended.
   */
  interrupted?: { signal: string; at: string; unfinished?: string[] };
  /** Times the target could not be reached (a reboot, a restart): waited out, or given up on. */
  downtime?: Outage[];
  /** Working sessions the target refused without a logout (a restart, an expiry, an eviction). */
  sessionsLost?: SessionLoss[];
  /** The whole-tree reads (enumerate, list of a namespace root) the run made and what they cost. */
  treeReads?: TreeReads;
}

/**
 * A requirement fails if any of its tests fails; warns if any warns; passes if one passed. A PASS
 * or WARN while other tests of it were NOT_TESTED is partly judged, and says which.
 */
export function rollUp(req: Requirement, outcomes: TestOutcome[], absentReason: string): RequirementResult {
  const mine = outcomes
    .filter((o) => o.requirements.includes(req.id))
    .map((o) => ({ ...o, ...(o.perRequirement?.[req.id] ?? { verdict: o.verdict, reason: o.reason }) }));
  const tests = mine.map((o) => ({ name: o.name, verdict: o.verdict, reason: o.reason, evidence: o.evidence }));
  const base = { id: req.id, level: req.level, section: req.section, title: req.title, tests };
  const has = (v: Verdict) => mine.some((o) => o.verdict === v);
  if (mine.length === 0) return { ...base, verdict: 'NOT_TESTED', reason: absentReason };
  // OBSERVE requirements record behaviour and are never failed: a check that could not record is a WARN.
  if (has('FAIL') && req.level === 'OBSERVE') {
    return { ...base, verdict: 'WARN', reason: `could not record: ${reasonsOf(mine, 'FAIL')}` };
  }
  if (has('FAIL')) return { ...base, verdict: 'FAIL', reason: reasonsOf(mine, 'FAIL') };
  if (has('WARN')) return { ...base, verdict: 'WARN', reason: reasonsOf(mine, 'WARN'), ...partlyOf(tests) };
  if (has('PASS')) return { ...base, verdict: 'PASS', ...partlyOf(tests) };
  return { ...base, verdict: 'NOT_TESTED', reason: reasonsOf(mine, 'NOT_TESTED') };
}

/** `{ partly }` when some of the tests did not judge the requirement, else nothing. */
function partlyOf(tests: RequirementResult['tests']): { partly?: PartlyJudged } {
  const notJudged = tests.filter((t) => t.verdict === 'NOT_TESTED').map((t) => ({ test: t.name, reason: t.reason ?? 'not judged' }));
  return notJudged.length > 0 ? { partly: { notJudged } } : {};
}

function reasonsOf(outcomes: Array<Pick<TestOutcome, 'verdict' | 'reason' | 'name'>>, verdict: Verdict): string {
  const reasons = outcomes.filter((o) => o.verdict === verdict).map((o) => o.reason ?? o.name);
  return [...new Set(reasons)].join('; ');
}

/** Every requirement NOT_TESTED: the run judged nothing, which must never read as a pass. */
export function nothingJudged(summary: Record<Verdict, number>): boolean {
  return summary.PASS + summary.FAIL + summary.WARN + summary.XFAIL + summary.XPASS === 0;
}

/** The reason of a test the interruption kept from starting ("not run: the run was interrupted (SIGINT)"). */
export function notRunNote(reason: string): string {
  return `not run: ${reason}`;
}

/** A reason `notRunNote` made: the test (or every test of a requirement) did not start because the run was interrupted. */
export function isNotRunNote(reason: string | undefined): boolean {
  return reason?.startsWith('not run: ') ?? false;
}

/** The exit code of a run that judged nothing (pytest's "no tests collected" is 5 too), or less than --min-judged asks. */
export const NOTHING_JUDGED_EXIT = 5;

/** How much of the selection a run must judge (`--min-judged`): a count or a share. */
export type MinJudged = { count: number } | { percent: number };

/** Requirements the run was asked to judge: all but those left out by --only or --requirements. */
export function selectedRequirements(requirements: readonly RequirementResult[]): RequirementResult[] {
  return requirements.filter((r) => !(r.verdict === 'NOT_TESTED' && /not selected/.test(r.reason ?? '')));
}

/**
 * The coverage a certification run asked for and did not reach, as one sentence; undefined when
 * it was reached (or not asked for).
 */
export function coverageShortfall(requirements: readonly RequirementResult[], min: MinJudged | undefined): string | undefined {
  if (!min) return undefined;
  const chosen = selectedRequirements(requirements);
  const judged = chosen.filter((r) => r.verdict !== 'NOT_TESTED').length;
  const needed = 'count' in min ? min.count : Math.ceil((min.percent / 100) * chosen.length);
  if (judged >= needed) return undefined;
  const asked = 'count' in min ? `${min.count}` : `${min.percent}% (${needed})`;
  return `${judged} of ${chosen.length} selected requirements were judged; --min-judged asks for ${asked} (exit ${NOTHING_JUDGED_EXIT})`;
}

export function summarize(requirements: RequirementResult[]): Record<Verdict, number> {
  const summary = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
  for (const r of requirements) summary[r.verdict] += 1;
  return summary;
}

export function buildRequirementResults(outcomes: TestOutcome[], absentReason: (req: Requirement) => string): RequirementResult[] {
  return REQUIREMENTS.map((req) => rollUp(req, outcomes, absentReason(req)));
}
