/** A vitest reporter that turns each finished test case into a TestOutcome for results.json. */
import { headline } from '../../client/headline.js';
import { withoutWritableHint } from '../../client/writable-hint.js';
import { relative } from 'node:path';
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import type { SessionCounts } from '../../client/session-ledger.js';
import type { CheckMeta, Finding, Observation } from '../../client/results-types.js';
import { isNotRunNote, type RequirementVerdict, type TestOutcome, type Verdict } from '../../client/results.js';
import { Progress, type AreaTally, type StatusSink } from '../progress.js';

const ID_TITLE = /^\[([A-Z0-9\- ]+)\]/;

export class VerdictReporter implements Reporter {
  readonly outcomes: TestOutcome[] = [];
  readonly observations: Array<Observation & { test: string }> = [];
  readonly unhandled: string[] = [];
  /** Changes a check made and could not undo, by test. */
  readonly restoreFailures: string[] = [];
  /** Sessions the suites opened and closed (the count after the last test). */
  sessions: SessionCounts = { opened: 0, closed: 0 };

  private readonly progress: Progress;

  constructor(
    private readonly root: string,
    print: (line: string) => void = () => {},
    /** A terminal's status line (default: none, a plain line per area). */
    status?: StatusSink,
  ) {
    this.progress = new Progress({ print, status });
  }

  /** The collected files, before any test runs: the total counts only the tests that will run. */
  plan(modules: Iterable<TestModule>): void {
    let total = 0;
    for (const module of modules) for (const test of module.children.allTests()) if (willRun(test)) total += 1;
    this.progress.plan(total);
  }

  onTestCaseReady(testCase: TestCase): void {
    if (willRun(testCase)) this.progress.started_(areaOf(relative(this.root, testCase.module.moduleId)), testCase.name);
  }

  onTestCaseResult(testCase: TestCase): void {
    const outcome = toOutcome(testCase, this.root);
    if (outcome) {
      this.outcomes.push(outcome);
      const meta = testCase.meta().bmc;
      for (const o of meta?.observations ?? []) this.observations.push({ ...o, test: testCase.name });
      if (meta?.restoreFailure) this.restoreFailures.push(`${testCase.name}: ${meta.restoreFailure}`);
      if (meta?.sessions && meta.sessions.opened >= this.sessions.opened) this.sessions = meta.sessions;
    }
    if (!willRun(testCase)) return;
    const area = areaOf(relative(this.root, testCase.module.moduleId));
    const result = testCase.result();
    if (result.state === 'skipped' && isNotRunNote(result.note)) this.progress.notRun(area);
    else this.progress.finished(area, outcome && progressLine(outcome));
  }

  /** The tests planned, and each area reached with the tests that ran and those the interruption kept from starting. */
  tally(): { total: number; areas: readonly AreaTally[] } {
    return this.progress.tally();
  }

  onTestRunEnd(_modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<{ message?: string }>): void {
    this.progress.end();
    for (const e of errors) this.unhandled.push(e.message ?? String(e));
  }
}

/** Not left out by the selection (--requirements) or by the suite itself. */
function willRun(testCase: TestCase): boolean {
  return testCase.options.mode === 'run' || testCase.options.mode === 'only';
}

function toOutcome(testCase: TestCase, root: string): TestOutcome | undefined {
  const result = testCase.result();
  const meta: CheckMeta | undefined = testCase.meta().bmc;
  const requirements = meta?.requirements ?? idsFromTitle(testCase.name);
  const file = relative(root, testCase.module.moduleId);
  const base = { name: testCase.name, file, requirements, durationMs: testCase.diagnostic()?.duration };
  let perRequirement: Record<string, RequirementVerdict>;
  switch (result.state) {
    case 'passed':
      perRequirement = judged(requirements, meta, []);
      break;
    case 'failed': {
      // The check's own time budget ran out with every request answered (each has a time-out of
      // its own): the target is slow, which breaks no statement; what it found before stands.
      const budget = timedOut(result.errors[0]?.message);
      if (budget !== undefined && !meta?.failures.length) {
        const reason = `not judged: the check ran out of its time budget (${budget}) while the target answered slowly; raise --timeout (each check may take three request time-outs and two event time-outs)`;
        perRequirement = Object.fromEntries(requirements.map((id) => [id, { verdict: 'NOT_TESTED', reason }]));
        break;
      }
      // A failure the check did not attribute (an error outside the check) is the first
      // requirement's; a test the network stopped, with no finding, judged nothing (meta.unjudged).
      const failures =
        meta && (meta.failures.length > 0 || meta.unjudged !== undefined)
          ? meta.failures
          : [{ requirement: requirements[0] ?? '', message: firstLine(result.errors[0]?.message ?? 'failed') }];
      const unjudged =
        meta?.unjudged ?? (meta?.failures.length ? undefined : `not judged: the test stopped at a failure of ${failures[0]?.requirement}`);
      perRequirement = judged(requirements, meta, failures, unjudged);
      break;
    }
    case 'skipped':
      // Tests filtered out of this run (by --only or --requirements) are not outcomes at all.
      if (result.note === undefined && testCase.options.mode !== 'run') return undefined;
      perRequirement = Object.fromEntries(requirements.map((id) => [id, { verdict: 'NOT_TESTED', reason: result.note ?? 'skipped' }]));
      break;
    default:
      return undefined;
  }
  const verdicts = Object.values(perRequirement);
  const verdict: Verdict = verdicts.some((v) => v.verdict === 'FAIL')
    ? 'FAIL'
    : verdicts.some((v) => v.verdict === 'WARN')
      ? 'WARN'
      : verdicts.every((v) => v.verdict === 'NOT_TESTED')
        ? 'NOT_TESTED'
        : 'PASS';
  const reason = [...new Set(verdicts.filter((v) => v.verdict === verdict && v.reason).map((v) => v.reason))].join('; ') || undefined;
  return { ...base, verdict, reason, perRequirement, evidence: meta?.evidence };
}

/**
 * The verdict of each requirement a test names: FAIL with its own failures, NOT_TESTED when the
 * test stopped at another requirement's failure before judging it, WARN with its own warnings.
 */
function judged(ids: string[], meta: CheckMeta | undefined, failures: Finding[], unjudged?: string): Record<string, RequirementVerdict> {
  const out: Record<string, RequirementVerdict> = {};
  for (const id of ids) {
    const mine = failures.filter((f) => f.requirement === id).map((f) => firstLine(f.message));
    const warnings = (meta?.warnings ?? []).filter((w) => w.requirement === id).map((w) => w.message);
    if (mine.length > 0) out[id] = { verdict: 'FAIL', reason: mine.join('; ') };
    else if (unjudged !== undefined) out[id] = { verdict: 'NOT_TESTED', reason: unjudged };
    else if (warnings.length > 0) out[id] = { verdict: 'WARN', reason: warnings.join('; ') };
    else out[id] = { verdict: 'PASS' };
  }
  return out;
}

/** `suites/events/events.suite.ts` → `events`. */
/** vitest's time-out of a test, "Test timed out in 51000ms.", as "51 s"; undefined for any other error. */
function timedOut(message: string | undefined): string | undefined {
  const m = /^Test timed out in (\d+)ms/.exec(message ?? '');
  return m ? `${Math.round(Number(m[1]) / 1000)} s` : undefined;
}

function areaOf(file: string): string {
  return /([a-z-]+)\.suite\.[jt]s$/.exec(file)?.[1] ?? file;
}

function idsFromTitle(title: string): string[] {
  return ID_TITLE.exec(title)?.[1]?.split(' ').filter(Boolean) ?? [];
}

/** The reason kept in results.json: the first line of the message, whole (the console shows its headline). */
function firstLine(message: string): string {
  return message.split('\n').find((l) => l.trim() !== '') ?? message;
}

const MARK: Record<Verdict, string> = { PASS: 'pass', FAIL: 'FAIL', WARN: 'warn', NOT_TESTED: 'n/t ', XFAIL: 'xfail', XPASS: 'XPASS' };

function progressLine(o: TestOutcome): string {
  // The --writable hint is said once, with its count, in the run's summary.
  const why = o.verdict === 'PASS' ? '' : ` — ${headline(withoutWritableHint(o.reason ?? ''))}`;
  return `  ${MARK[o.verdict]}  ${o.name}${why}`;
}
