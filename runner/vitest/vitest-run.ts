/** Runs the suite files of the chosen areas in vitest, in-process, with our reporters. */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createVitest, TestsNotFoundError, type Reporter, type TestModule, type TestSpecification, type Vitest } from 'vitest/node';
import { ciSet, StatusLine } from '../status-line.js';
import type { Area } from '../../catalogue/requirements.js';
import type { RunConfig } from '../config.js';
import { packageRoot } from '../../client/package-root.js';
import { VerdictReporter } from './verdict-reporter.js';
import { AreaSequencer } from './area-sequencer.js';
import { keepSignalsFromVitest, type SuiteControl } from '../interrupt.js';
import { messageOf } from '../../client/errors.js';
import { keptThreadPool, type KeptThreadPool } from './kept-thread.js';

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

/** The run-wide oracle: it runs after the areas of every run, and judges what they all received. */
export const ORACLE_FILE = `${SUITES}/oracle/oracle.suite.${EXT}`;

export async function runSuites(run: SuiteRun): Promise<VerdictReporter> {
  const root = packageRoot();
  const status = run.terminal && !ciSet(process.env) ? new StatusLine(process.stdout, [process.stderr]) : undefined;
  const reporter = new VerdictReporter(root, run.print, status);
  const previousExitCode = process.exitCode;
  const ownSignals = keepSignalsFromVitest();
  const files = [...run.areas.map(suiteFile), ORACLE_FILE];
  try {
    if (run.lean) await runLean(run, reporter, files);
    else {
      const { AllureReporter } = await import('./allure-reporter.js');
      const allure = new AllureReporter(join(run.outDir, 'allure-results'));
      // One vitest and one suites' thread: the files are collected first, for the progress's total,
      // in the thread that then runs them, so their modules load once (a second vitest counting
      // them in a worker of its own cost about 1 CPU-s a run).
      const thread = keptThreadPool();
      const options = { ...vitestOptions(run, root, [reporter, run.control, allure]), pool: thread.pool };
      try {
        const vitest = await createVitest('test', options, VITEST_LOGGING);
        try {
          // Reporters first: allure's adds its setup file and runner, which the thread keeps.
          await vitest.standalone();
          reporter.plan(await collected(vitest, files));
          await runCatching(vitest, await vitest.getRelevantTestSpecifications(files), reporter);
        } finally {
          await vitest.close();
        }
      } finally {
        await thread.close();
      }
    }
  } finally {
    ownSignals();
    status?.close();
  }
  // vitest marks the process failed when a test fails; the run's exit code is ours to decide.
  process.exitCode = previousExitCode;
  return reporter;
}

const VITEST_LOGGING = { logLevel: 'error', clearScreen: false } as const;

/** The files' tests as collected (none run); a collection that fails counts none (the run then reports why). */
async function collected(vitest: Vitest, files: string[]): Promise<Iterable<TestModule>> {
  try {
    return (await vitest.collect(files)).testModules;
  } catch {
    return [];
  }
}

async function runCatching(vitest: Vitest, specs: TestSpecification[], reporter: VerdictReporter): Promise<void> {
  try {
    await vitest.runTestSpecifications(specs, true);
  } catch (e) {
    // As startVitest does, an error of vitest's own ends the run, reported; here it fails it too.
    if (!(e instanceof TestsNotFoundError)) reporter.unhandled.push(messageOf(e));
  }
}

/** The hooks of vitest's reporter interface our reporters use, passed on by the relay. */
const RELAYED = [
  'onTestRunStart',
  'onTestModuleQueued',
  'onTestModuleStart',
  'onTestCaseReady',
  'onTestCaseResult',
  'onTestModuleEnd',
  'onTestRunEnd',
] as const;

/** A reporter standing for the reporters of whichever lean run the shared vitest is running now. */
interface Relay {
  reporter: Reporter;
  current: Reporter[];
}

function newRelay(): Relay {
  const r: Relay = { reporter: {}, current: [] };
  for (const hook of RELAYED) {
    const pass = (...args: unknown[]): void => {
      for (const target of r.current) (target[hook] as ((...a: unknown[]) => unknown) | undefined)?.apply(target, args);
    };
    Object.assign(r.reporter, { [hook]: pass });
  }
  return r;
}

/**
 * Lean runs (the mutation self-test runs one per fault, a hundred and more per process) share one
 * vitest: its start-up, configuration and the transforms of the suite files are paid once. Each run
 * brings its config, name pattern and reporters. They share the suites' worker thread too
 * (kept-thread.ts): its modules load once, and what they keep for a run is forgotten when the
 * next run joins (client/run-scoped.ts). That made a lean run about ten times cheaper.
 */
interface LeanVitest {
  vitest: Vitest;
  relay: Relay;
  busy: boolean;
  thread: KeptThreadPool;
}

/** Made once, on the first lean run (the promise, so two first runs at once share it too). */
let shared: Promise<LeanVitest> | undefined;

async function runLean(run: SuiteRun, reporter: VerdictReporter, files: string[]): Promise<void> {
  const first = await (shared ??= leanVitest(run));
  // Two lean runs at once in one process (the dialect tables and discovery tests make them): the second gets a vitest of its own.
  const own = first.busy ? await leanVitest(run) : undefined;
  const lean = own ?? first;
  lean.busy = true;
  try {
    await leanRun(lean, run, reporter, files);
  } finally {
    lean.busy = false;
    if (own) await closeLean(own);
  }
}

/** A vitest for lean runs: each run's name pattern is set when it starts, so none is built in. */
async function leanVitest(run: SuiteRun): Promise<LeanVitest> {
  const relay = newRelay();
  const thread = keptThreadPool();
  const options = { ...vitestOptions({ ...run, requirements: undefined }, packageRoot(), [relay.reporter]), pool: thread.pool };
  return { vitest: await createVitest('test', options, VITEST_LOGGING), relay, busy: false, thread };
}

async function closeLean(lean: LeanVitest): Promise<void> {
  await lean.vitest.close();
  await lean.thread.close();
}

async function leanRun({ vitest, relay }: LeanVitest, run: SuiteRun, reporter: VerdictReporter, files: string[]): Promise<void> {
  vitest.provide('bmc', run.cfg);
  vitest.provide('runChannel', run.control.channel);
  relay.current = [reporter, run.control];
  run.control.onInit?.(vitest);
  // The pattern goes with each file: the kept worker holds the configuration of the first run.
  const pattern = run.requirements ? { testNamePattern: idPattern(run.requirements) } : undefined;
  const project = vitest.getRootProject();
  const specs = files.map((file) => project.createSpecification(join(project.config.root, file), pattern));
  try {
    await runCatching(vitest, specs, reporter);
  } finally {
    relay.current = [];
  }
}

/** Closes the vitest lean runs share, if there is one (a process that ran them is done). */
export async function closeLeanRuns(): Promise<void> {
  const closing = shared;
  shared = undefined;
  const lean = await closing;
  if (lean) await closeLean(lean);
}

function vitestOptions(run: SuiteRun, root: string, reporters: Reporter[]): Parameters<typeof createVitest>[1] {
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
    server: {
      deps: {
        // allure-vitest's setup file registers its hooks (the Allure runtime among them) in the file
        // being loaded: loaded as a plain Node module it ran once per thread, for the thread's
        // first file only; inlined, vitest runs it again before each file, as setup files are meant to.
        inline: [/[\\/]allure-vitest[\\/]dist[\\/]setup\.js$/],
        // Compiled modules under the suites load as plain Node modules: no transform on each run.
        ...(compiled && { external: [/[\\/]dist[\\/](?!suites[\\/][a-z-]+[\\/][a-z-]+\.suite\.js$)/] }),
      },
    },
    sequence: { sequencer: AreaSequencer },
    // The run's client settings, its interruption and the suites' reports pass through it.
    setupFiles: [`${compiled ? 'dist/runner' : 'runner'}/vitest/suite-setup.${EXT}`],
    testNamePattern: run.requirements ? idPattern(run.requirements) : undefined,
    provide: { bmc: run.cfg, runChannel: run.control.channel },
    // junit.xml is written per requirement from results.json (report/junit-xml.ts), not per test
    // here; a full run's reporters include allure's (allure-reporter.ts), a lean run's do not.
    reporters,
  };
}

/** Matches titles that name any of the IDs, e.g. "[EP-5 RULE-1] ...". */
function idPattern(ids: string[]): RegExp {
  const alternatives = ids.map((id) => id.replace(/[-]/g, '\\-')).join('|');
  return new RegExp(`\\[[^\\]]*\\b(?:${alternatives})\\b[^\\]]*\\]`);
}
