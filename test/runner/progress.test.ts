/**
 * The run's progress, fed as vitest feeds the verdict reporter: the total is known before the first
 * test and counts only what runs; the status line names the running test and stays apart from
 * every other output; without a status line, a line per area.
 */
import { describe, expect, test } from 'vitest';
import type { TestCase, TestModule } from 'vitest/node';
import { Progress } from '../../runner/progress.js';
import { ciSet, fit, StatusLine, type TerminalStream } from '../../runner/status-line.js';
import { VerdictReporter } from '../../runner/vitest/verdict-reporter.js';

const ROOT = '/repo';
const ERASE = '\r\x1b[2K';

/** `not-run`: selected, but the interruption kept it from starting (suite-setup.ts skips it with this note). */
type Mode = 'run' | 'skip' | 'not-run';

const NOT_RUN_NOTE = 'not run: the run was interrupted (SIGINT)';

/** A test case as vitest reports it, with only what the reporter reads. */
function fakeCase(area: string, name: string, mode: Mode = 'run'): TestCase {
  return {
    id: `${area}-${name}`,
    name,
    module: { moduleId: `${ROOT}/suites/${area}.suite.ts` },
    options: { mode: mode === 'not-run' ? 'run' : mode },
    result: () =>
      mode === 'run'
        ? { state: 'passed', errors: [] }
        : mode === 'not-run'
          ? { state: 'skipped', note: NOT_RUN_NOTE }
          : { state: 'skipped' },
    meta: () => ({}),
    diagnostic: () => ({ duration: 5 }),
  } as unknown as TestCase;
}

function fakeModule(cases: TestCase[]): TestModule {
  return { children: { allTests: () => cases.values() } } as unknown as TestModule;
}

/** Areas of [name, mode] tests; the reporter fed as vitest would: plan, then each test ready and done. */
function feed(reporter: VerdictReporter, areas: Record<string, Array<[string, Mode]>>, after?: (done: number) => void): void {
  const modules = Object.entries(areas).map(([area, tests]) => fakeModule(tests.map(([n, m]) => fakeCase(area, n, m))));
  reporter.plan(modules);
  let done = 0;
  for (const module of modules) {
    for (const c of module.children.allTests()) {
      // vitest reports a test left out by the name pattern as a result, never as ready.
      if (c.options.mode === 'run') reporter.onTestCaseReady(c);
      reporter.onTestCaseResult(c);
      after?.(++done);
    }
  }
  // Planned before the first test: the end is at once, not a promise.
  expect(reporter.onTestRunEnd([], [])).toBeUndefined();
}

/** A terminal's stream that keeps what was written. */
function fakeStream(columns = 200): TerminalStream & { text: string } {
  const stream = {
    text: '',
    columns,
    write(chunk: string | Uint8Array): boolean {
      stream.text += String(chunk);
      return true;
    },
  };
  return stream;
}

/** What a terminal would show on each line: the text after the last erase. */
function visibleLines(text: string): string[] {
  return text.split('\n').map((line) => line.slice(line.lastIndexOf(ERASE) === -1 ? 0 : line.lastIndexOf(ERASE) + ERASE.length));
}

const SELECTION: Record<string, Array<[string, Mode]>> = {
  auth: [
    ['[AUTH-1] a', 'run'],
    ['[AUTH-2] b', 'skip'],
    ['[AUTH-3] c', 'run'],
  ],
  envelope: [
    ['[ENV-1] d', 'skip'],
    ['[ENV-2] e', 'skip'],
  ],
  objects: [
    ['[EP-3] f', 'run'],
    ['[EP-4] g', 'skip'],
    ['[EP-5] h', 'run'],
    ['[EP-6] i', 'run'],
  ],
};
const SELECTED = 5;

describe('the progress total', () => {
  test('is known before the first test and counts only the tests a selection runs', () => {
    const shown: string[] = [];
    const reporter = new VerdictReporter(ROOT, () => {}, { show: (text) => shown.push(text) });
    const beforeFirst: string[] = [];
    feed(reporter, SELECTION, (done) => {
      if (done === 1) beforeFirst.push(...shown);
    });
    // The first status, before any test ran, already has the whole total.
    expect(shown[0]).toMatch(new RegExp(`^starting: 0/${SELECTED} tests`));
    expect(beforeFirst.every((s) => s.includes(`/${SELECTED} tests`))).toBe(true);
    expect(shown.filter((s) => !s.includes(`/${SELECTED} tests`))).toHaveLength(0);
    expect(shown.at(-1)).toMatch(new RegExp(`^objects: ${SELECTED}/${SELECTED} tests`));
    expect(reporter.outcomes).toHaveLength(SELECTED);
  });

  test('without a status line: a line per area with a selected test, its done count out of the same total', () => {
    const lines: string[] = [];
    feed(new VerdictReporter(ROOT, (l) => lines.push(l)), SELECTION);
    const areaLines = lines.filter((l) => l.startsWith('area '));
    expect(areaLines.map((l) => /^area (\S+): (\d+) tests .*; (\d+) of (\d+) done/.exec(l)?.slice(1))).toEqual([
      ['auth', '2', '2', String(SELECTED)],
      ['objects', '3', '5', String(SELECTED)],
    ]);
    expect(lines.filter((l) => l.startsWith('  pass  '))).toHaveLength(SELECTED);
    // Each area's line comes after its last verdict line.
    expect(lines.indexOf(areaLines[0]!)).toBe(2);
    expect(lines.at(-1)).toBe(areaLines[1]);
  });

  test('the status line names the test running, not one that finished', () => {
    const shown: string[] = [];
    const reporter = new VerdictReporter(ROOT, () => {}, { show: (text) => shown.push(text) });
    const running = fakeCase('objects', '[EP-3] a test still running');
    reporter.plan([fakeModule([running])]);
    reporter.onTestCaseReady(running);
    expect(shown.at(-1)).toMatch(/^objects: 0\/1 tests, .*; running \[EP-3\] a test still running \(/);
    reporter.onTestCaseResult(running);
    expect(shown.at(-1)).not.toContain('running');
  });

  /** Fake clock times, each a test's start or finish in an area; a start marked late vitest may not report. */
  type Steps = Array<[number, 'started' | 'finished', string, late?: 'late']>;

  /** The area lines of a run planned at `t0` and fed `steps`; a late start is reported only with `reportLate`. */
  function areaLines(t0: number, total: number, steps: Steps, reportLate: boolean): string[] {
    const lines: string[] = [];
    let t = t0;
    const progress = new Progress({ print: (l) => lines.push(l), now: () => t });
    progress.plan(total);
    for (const [at, step, area, late] of steps) {
      t = at;
      if (step === 'finished') progress.finished(area, undefined);
      else if (reportLate || !late) progress.started_(area, 'a test');
    }
    progress.end();
    return lines;
  }

  // Each: the next area's first test takes 13 s (events: the shared measurement) after its file's hooks.
  test.each([
    {
      area: "an area's time runs from the previous area's last verdict",
      t0: 0,
      total: 4,
      steps: [
        [0, 'started', 'upload'],
        [2_000, 'finished', 'upload'],
        [3_000, 'started', 'events', 'late'],
        [16_000, 'finished', 'events'],
      ],
      lines: ['area upload: 1 tests in 2.0 s; 1 of 4 done, 0:02 elapsed', 'area events: 2 tests in 15.0 s; 3 of 4 done, 0:17 elapsed'],
    },
    {
      area: "the first area's time (`--only events`) runs from the plan",
      t0: 1_000,
      total: 2,
      steps: [
        [1_500, 'started', 'events', 'late'],
        [14_500, 'finished', 'events'],
      ],
      lines: ['area events: 2 tests in 14.5 s; 2 of 2 done, 0:14 elapsed'],
    },
  ] as Array<{ area: string; t0: number; total: number; steps: Steps; lines: string[] }>)(
    '$area, whether or not its first test was reported starting',
    ({ t0, total, steps, lines }) => {
      const end = steps.at(-1)![0];
      const second: Steps = [
        [end, 'started', 'events'],
        [end + 1_000, 'finished', 'events'],
      ];
      for (const reportLate of [true, false]) {
        expect(areaLines(t0, total, [...steps, ...second], reportLate), `first test reported starting: ${reportLate}`).toEqual(lines);
      }
    },
  );

  test('a run that ends before its first test shows no area line', () => {
    const lines: string[] = [];
    const progress = new Progress({ print: (l) => lines.push(l) });
    progress.plan(3);
    progress.end();
    expect(lines).toHaveLength(0);
  });
});

describe('an interrupted run', () => {
  /** auth whole, envelope cut short after its first test, objects never started. */
  const CUT: Record<string, Array<[string, Mode]>> = {
    auth: [
      ['[AUTH-1] a', 'run'],
      ['[AUTH-2] b', 'skip'],
      ['[AUTH-3] c', 'run'],
    ],
    envelope: [
      ['[ENV-1] d', 'run'],
      ['[ENV-2] e', 'not-run'],
      ['[ENV-3] f', 'not-run'],
    ],
    objects: [
      ['[EP-3] g', 'not-run'],
      ['[EP-4] h', 'skip'],
      ['[EP-5] i', 'not-run'],
    ],
  };

  test('an area cut short says how far it got; one not reached has no line; a test not run has no verdict line', () => {
    const lines: string[] = [];
    const reporter = new VerdictReporter(ROOT, (l) => lines.push(l));
    feed(reporter, CUT);
    expect(
      lines.filter((l) => l.startsWith('area ')).map((l) => l.replace(/ in \d+\.\d s;/, ' in T;').replace(/, \d+:\d\d elapsed$/, '')),
    ).toEqual(['area auth: 2 tests in T; 2 of 7 done', 'area envelope: cut short after 1 of 3 tests in T; 3 of 7 done']);
    expect(lines.filter((l) => !l.startsWith('area '))).toEqual(['  pass  [AUTH-1] a', '  pass  [AUTH-3] c', '  pass  [ENV-1] d']);
    // The tests not run are outcomes still (results.json marks them NOT_TESTED with the reason).
    expect(reporter.outcomes.filter((o) => o.reason === NOT_RUN_NOTE)).toHaveLength(4);
    expect(reporter.tally()).toEqual({
      total: 7,
      areas: [
        { area: 'auth', ran: 2, notRun: 0 },
        { area: 'envelope', ran: 1, notRun: 2 },
        { area: 'objects', ran: 0, notRun: 2 },
      ],
    });
  });

  test('the status line counts only the tests that ran, and names none that did not', () => {
    const shown: string[] = [];
    feed(new VerdictReporter(ROOT, () => {}, { show: (text) => shown.push(text) }), CUT);
    expect(shown.at(-1)).toMatch(/^objects: 3\/7 tests, \d+:\d\d elapsed$/);
  });
});

describe('the status line', () => {
  test('is erased before any other write to the streams and drawn again after it', async () => {
    const out = fakeStream();
    const err = fakeStream();
    const status = new StatusLine(out, [err]);
    status.show('auth: 1/5 tests');
    out.write('  pass  [AUTH-1] a\n');
    err.write('the run was interrupted (SIGINT): restoring what it wrote\n');
    await Promise.resolve();
    status.show('auth: 2/5 tests');
    status.close();
    // Every message on a line of its own; no status text left beside a message or at the end.
    expect(visibleLines(out.text).filter((l) => l.includes('tests'))).toHaveLength(0);
    expect(visibleLines(out.text)).toContain('  pass  [AUTH-1] a');
    expect(err.text).toBe('the run was interrupted (SIGINT): restoring what it wrote\n');
    // Drawn; erased before the first message (the second finds it erased); drawn again once after
    // both; drawn with the new text; erased when closed.
    expect(out.text.split(ERASE)).toHaveLength(1 + 5);
    expect(out.text.indexOf(ERASE)).toBeLessThan(out.text.indexOf('  pass'));
  });

  test('a message cut mid-line is not cut into by a redraw', async () => {
    const out = fakeStream();
    const status = new StatusLine(out);
    status.show('s');
    out.write('half a line');
    await Promise.resolve();
    status.show('t');
    expect(out.text.endsWith('half a line')).toBe(true);
    out.write(', and its end\n');
    await Promise.resolve();
    expect(out.text.endsWith(`${ERASE}t`)).toBe(true);
    status.close();
  });

  test('gives the streams back when closed', () => {
    const out = fakeStream();
    const write = out.write;
    const status = new StatusLine(out);
    expect(out.write).not.toBe(write);
    status.close();
    expect(out.write).toBe(write);
  });

  test('fits the terminal width', () => {
    expect(fit('abcdef', 4)).toBe('abc…');
    expect(fit('abc', 4)).toBe('abc');
  });
});

test('CI set to a value other than empty, false or 0 means a log, not a terminal', () => {
  expect([{ CI: 'true' }, { CI: '1' }, { CI: 'woodpecker' }].map(ciSet)).toEqual([true, true, true]);
  expect([{}, { CI: '' }, { CI: 'false' }, { CI: '0' }].map(ciSet)).toEqual([false, false, false, false]);
});
