/** Runs the suite files of the chosen areas in vitest, in-process, with our reporters. */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createVitest, TestsNotFoundError } from 'vitest/node';
import { ciSet, StatusLine } from './status-line.js';
import type { Area } from '../catalogue/requirements.js';
import type { RunConfig } from './config.js';
import { packageRoot } from './package-root.js';
import { VerdictReporter } from './verdict-reporter.js';
import { AreaSequencer } from './area-sequencer.js';
import { keepSignalsFromVitest, type SuiteControl } from './interrupt.js';

export interface SuiteRun {
  cfg: RunConfig;
  areas: readonly Area[];
  requirements?: string[];
  outDir: string;
  print: (line: string) => void;
  /** Verdicts only: no Allure results (the mutation self-test runs many). */
  lean?: boolean;
  /** stdout is a terminal of the run's own: a status line there, unless CI is set; otherwise a plain line per area. */
  terminal?: boolean;
  /** Stops the suites when the run is interrupted; its channel reaches their worker. */
  control: SuiteControl;
}

/**
 * Compiled suites when the runner itself runs compiled (dist/): vitest then has no TypeScript to
 * transform, a good part of a short run's start-up.
 */
const compiled = /[\\/]dist[\\/]runner[\\/]/.test(fileURLToPath(import.meta.url));
const SUITES = compiled ? 'dist/suites' : 'suites';
const EXT = compiled ? 'js' : 'ts';

export function suiteFile(area: Area): string {
  return `${SUITES}/${area}/${area}.suite.${EXT}`;
}

export async function runSuites(run: SuiteRun): Promise<VerdictReporter> {
  const root = packageRoot();
  const status = run.terminal && !ciSet(process.env) ? new StatusLine(process.stdout, [process.stderr]) : undefined;
  const reporter = new VerdictReporter(root, run.print, status);
  const previousExitCode = process.exitCode;
  const ownSignals = keepSignalsFromVitest();
  const files = run.areas.map(suiteFile);
  try {
    const vitest = await createVitest('test', vitestOptions(run, root, reporter), { logLevel: 'error', clearScreen: false });
    try {
      // Every file collected before the first test runs: the progress counts against what will run.
      // A lean run (the mutation self-test's) shows no progress: it skips the collection's worker.
      if (!run.lean) reporter.plan((await vitest.collect(files)).testModules);
      await vitest.start(files);
    } catch (e) {
      // As startVitest does, an error of vitest's own ends the run, reported; here it fails it too.
      if (!(e instanceof TestsNotFoundError)) reporter.unhandled.push(e instanceof Error ? e.message : String(e));
    } finally {
      await vitest.close();
    }
  } finally {
    ownSignals();
    status?.close();
  }
  // vitest marks the process failed when a test fails; the run's exit code is ours to decide.
  process.exitCode = previousExitCode;
  return reporter;
}

function vitestOptions(run: SuiteRun, root: string, reporter: VerdictReporter): Parameters<typeof createVitest>[1] {
  return {
    root,
    config: false,
    watch: false,
    run: true,
    include: [`${SUITES}/*/*.suite.${EXT}`],
    // Suites share one target: one file at a time, so a write in one never shows in another's events.
    fileParallelism: false,
    maxWorkers: 1,
    isolate: false,
    pool: 'threads',
    passWithNoTests: true,
    // Compiled modules under the suites load as plain Node modules: no transform on each run.
    ...(compiled && { server: { deps: { external: [/[\\/]dist[\\/](?!suites[\\/][a-z-]+[\\/][a-z-]+\.suite\.js$)/] } } }),
    sequence: { sequencer: AreaSequencer },
    // The run's client settings, its interruption and the suites' reports pass through it.
    setupFiles: [`${compiled ? 'dist/runner' : 'runner'}/suite-setup.${EXT}`],
    testNamePattern: run.requirements ? idPattern(run.requirements) : undefined,
    provide: { bmc: run.cfg, runChannel: run.control.channel },
    // junit.xml is written per requirement from results.json (report/junit-xml.ts), not per test here.
    reporters: [
      reporter,
      run.control,
      ...(run.lean
        ? []
        : [['allure-vitest/reporter', { resultsDir: join(run.outDir, 'allure-results') }] as [string, Record<string, unknown>]]),
    ],
  };
}

/** Matches titles that name any of the IDs, e.g. "[EP-5 RULE-1] ...". */
function idPattern(ids: string[]): RegExp {
  const alternatives = ids.map((id) => id.replace(/[-]/g, '\\-')).join('|');
  return new RegExp(`\\[[^\\]]*\\b(?:${alternatives})\\b[^\\]]*\\]`);
}
