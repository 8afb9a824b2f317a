/** A vitest reporter that turns each finished test case into a TestOutcome for results.json. */
import { relative } from 'node:path';
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import type { CheckMeta, Observation } from '../suites/support/check.js';
import type { TestOutcome, Verdict } from './results.js';

const ID_TITLE = /^\[([A-Z0-9\- ]+)\]/;

export class VerdictReporter implements Reporter {
  readonly outcomes: TestOutcome[] = [];
  readonly observations: Array<Observation & { test: string }> = [];
  readonly unhandled: string[] = [];

  constructor(
    private readonly root: string,
    private readonly print: (line: string) => void = () => {},
  ) {}

  onTestCaseResult(testCase: TestCase): void {
    const outcome = toOutcome(testCase, this.root);
    if (!outcome) return;
    this.outcomes.push(outcome);
    const meta = testCase.meta().bmc;
    for (const o of meta?.observations ?? []) this.observations.push({ ...o, test: testCase.name });
    this.print(progressLine(outcome));
  }

  onTestRunEnd(_modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<{ message?: string }>): void {
    for (const e of errors) this.unhandled.push(e.message ?? String(e));
  }
}

function toOutcome(testCase: TestCase, root: string): TestOutcome | undefined {
  const result = testCase.result();
  const meta: CheckMeta | undefined = testCase.meta().bmc;
  const requirements = meta?.requirements ?? idsFromTitle(testCase.name);
  const file = relative(root, testCase.module.moduleId);
  const base = { name: testCase.name, file, requirements, durationMs: testCase.diagnostic()?.duration };
  let verdict: Verdict;
  let reason: string | undefined;
  switch (result.state) {
    case 'passed':
      verdict = meta && meta.warnings.length > 0 ? 'WARN' : 'PASS';
      reason = meta?.warnings.join('; ') || undefined;
      break;
    case 'failed':
      verdict = 'FAIL';
      reason = firstLine(result.errors[0]?.message ?? 'failed');
      break;
    case 'skipped':
      // Tests filtered out of this run (by --only or --requirements) are not outcomes at all.
      if (result.note === undefined && testCase.options.mode !== 'run') return undefined;
      verdict = 'NOT_TESTED';
      reason = result.note ?? 'skipped';
      break;
    default:
      return undefined;
  }
  return { ...base, verdict, reason, evidence: meta?.evidence };
}

function idsFromTitle(title: string): string[] {
  return ID_TITLE.exec(title)?.[1]?.split(' ').filter(Boolean) ?? [];
}

function firstLine(message: string): string {
  const line = message.split('\n').find((l) => l.trim() !== '') ?? message;
  return line.length > 400 ? `${line.slice(0, 400)}…` : line;
}

const MARK: Record<Verdict, string> = { PASS: 'pass', FAIL: 'FAIL', WARN: 'warn', NOT_TESTED: 'n/t ' };

function progressLine(o: TestOutcome): string {
  const why = o.verdict === 'PASS' ? '' : ` — ${o.reason ?? ''}`;
  return `  ${MARK[o.verdict]}  ${o.name}${why}`;
}
