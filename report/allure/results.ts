/**
 * The run-wide parts of the Allure results, written after the run from results.json: environment,
 * executor and categories; the verdicts Allure cannot know from the test alone (an expected
 * deviation, a warning, why a test was not run, a requirement other tests of which did not judge
 * it); and the history of the baseline report, so that the trend charts carry on.
 */
import { existsSync } from 'node:fs';
import { cp, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RequirementResult } from '../../client/results.js';
import type { ReportContext, ReportOutput } from '../output.js';
import { catalogueVersion } from '../tool-info.js';
import { displayTarget } from '../target.js';
import { pooled } from '../../client/pooled.js';
import { partlyByReason, PARTLY } from '../partly.js';

export const ALLURE_RESULTS = 'allure-results';

/** Disjoint by status and by the verdict word that leads the message (see annotate below). */
export const CATEGORIES = [
  { name: 'Conformance failures', matchedStatuses: ['failed'] },
  { name: 'Environment or harness problems', matchedStatuses: ['broken'] },
  { name: 'Expected deviations (XFAIL)', matchedStatuses: ['skipped'], messageRegex: '(?s)XFAIL:.*' },
  { name: 'Expected failures that now pass (XPASS)', matchedStatuses: ['passed'], messageRegex: '(?s)XPASS:.*' },
  { name: 'Warnings (deviations from what the spec shows)', matchedStatuses: ['passed'], messageRegex: '(?s)WARN:.*' },
  { name: 'Not tested', matchedStatuses: ['skipped'], messageRegex: '(?s)NOT_TESTED:.*' },
  {
    name: 'Passed, partly judged (other tests of the requirement not judged)',
    matchedStatuses: ['passed'],
    messageRegex: `(?s)PASS, ${PARTLY}:.*`,
  },
];

const VERDICT_PREFIX = new RegExp(`^(XFAIL|XPASS|WARN|NOT_TESTED|PASS, ${PARTLY}): `);

export const allureResults: ReportOutput = {
  files: [ALLURE_RESULTS],
  async write(ctx) {
    const dir = join(ctx.dir, ALLURE_RESULTS);
    // A run with --lean writes no Allure results: nothing to complete.
    if (!existsSync(dir)) return;
    await annotateTestResults(ctx);
    await ctx.write(`${ALLURE_RESULTS}/environment.properties`, environmentProperties(ctx));
    await ctx.write(`${ALLURE_RESULTS}/categories.json`, `${JSON.stringify(CATEGORIES, null, 2)}\n`);
    await carryHistory(ctx);
    await ctx.write(
      `${ALLURE_RESULTS}/executor.json`,
      `${JSON.stringify(executor(ctx, await lastBuildOrder(join(dir, 'history'))), null, 2)}\n`,
    );
  },
};

function environmentProperties(ctx: ReportContext): string {
  const r = ctx.results;
  const entries: Array<[string, string | number | undefined]> = [
    ['Target', displayTarget(r.target)],
    ['Server', r.fingerprint?.server],
    ['Firmware', r.fingerprint?.firmware],
    ['Objects', r.fingerprint?.objects],
    ['Login.form', r.fingerprint?.loginForm],
    ['Namespace', r.namespace],
    ['Profile', r.profile],
    ['Seed', r.seed],
    ['Started', r.startedAt],
    ['Expectations', r.expectations && [r.expectations.platform, r.expectations.file].filter(Boolean).join(', ')],
    ['Tool', `${ctx.tool.name} ${ctx.tool.version}`],
    ['Catalogue', catalogueVersion(ctx.tool)],
  ];
  return entries
    .filter((e): e is [string, string | number] => e[1] !== undefined && e[1] !== '')
    .map(([k, v]) => `${propertiesText(k)}=${propertiesText(String(v))}\n`)
    .join('');
}

/** java.util.Properties is read as ISO-8859-1: escape the separators, line breaks and anything beyond ASCII. */
function propertiesText(text: string): string {
  return text.replace(/[\\=:#!\s]|[^\x20-\x7e]/g, (c) => {
    if (c === ' ') return '\\ ';
    if (c === '\n') return '\\n';
    if (c === '\t') return '\\t';
    if (c === '\r') return '\\r';
    if (/[\\=:#!]/.test(c)) return `\\${c}`;
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

function executor(ctx: ReportContext, lastOrder: number): Record<string, unknown> {
  const e = process.env;
  const target = displayTarget(ctx.results.target);
  const common = { buildOrder: lastOrder + 1, reportName: `Conformance of ${target}` };
  if (e.GITHUB_RUN_ID && e.GITHUB_SERVER_URL && e.GITHUB_REPOSITORY) {
    return {
      name: 'GitHub Actions',
      type: 'github',
      buildName: `${e.GITHUB_WORKFLOW ?? 'run'} #${e.GITHUB_RUN_NUMBER ?? e.GITHUB_RUN_ID}`,
      buildUrl: `${e.GITHUB_SERVER_URL}/${e.GITHUB_REPOSITORY}/actions/runs/${e.GITHUB_RUN_ID}`,
      ...common,
    };
  }
  return {
    name: `${ctx.tool.name} ${ctx.tool.version}`,
    type: ctx.tool.name,
    buildName: `${target} at ${ctx.results.startedAt}`,
    ...common,
  };
}

/**
 * The baseline report's history/ goes into the new results once: rendering the same results again
 * must not count this run twice. A baseline named with --previous replaces what is there.
 */
async function carryHistory(ctx: ReportContext): Promise<void> {
  const into = join(ctx.dir, ALLURE_RESULTS, 'history');
  if (!ctx.allureHistory || (existsSync(into) && !ctx.trend?.explicit)) return;
  await rm(into, { recursive: true, force: true });
  await cp(ctx.allureHistory, into, { recursive: true });
}

async function lastBuildOrder(history: string): Promise<number> {
  try {
    const trend = JSON.parse(await readFile(join(history, 'history-trend.json'), 'utf8')) as Array<{ buildOrder?: number }>;
    return Math.max(trend.length, ...trend.map((t) => t.buildOrder ?? 0));
  } catch {
    return 0;
  }
}

interface AllureResult {
  name: string;
  status?: string;
  statusDetails?: { message?: string; trace?: string };
  labels?: Array<{ name: string; value: string }>;
}

/** Files read at once: a full run leaves about 3,000, and one read after another took half a second. */
const READS_AT_ONCE = 16;

/**
 * Every file allure-vitest wrote is read once: test results get the verdicts results.json adds,
 * and any file still holding a secret is written again redacted.
 */
async function annotateTestResults(ctx: ReportContext): Promise<void> {
  const byId = new Map(ctx.results.requirements.map((r) => [r.id, r]));
  const names = (await readdir(join(ctx.dir, ALLURE_RESULTS))).filter((name) => /\.(json|txt)$/.test(name));
  const one = async (name: string): Promise<void> => {
    const file = `${ALLURE_RESULTS}/${name}`;
    const text = await readFile(join(ctx.dir, file), 'utf8');
    const updated = name.endsWith('-result.json') ? annotated(text, byId) : text;
    if (ctx.redact(updated) !== text) await ctx.write(file, updated);
  };
  await pooled(names, READS_AT_ONCE, one);
}

function annotated(text: string, byId: Map<string, RequirementResult & { expected?: string }>): string {
  const result = JSON.parse(text) as AllureResult;
  if (VERDICT_PREFIX.test(result.statusDetails?.message ?? '')) return text;
  const entries = (result.labels ?? [])
    .filter((l) => l.name === 'requirement')
    .map((l) => byId.get(l.value))
    .filter((r): r is RequirementResult & { expected?: string } => r !== undefined)
    .map((req) => ({ req, test: req.tests.find((t) => t.name === result.name) }));
  const note = verdictNote(result, entries);
  const partly = partlyNote(result, entries);
  if (!note && !partly) return text;
  const message = result.statusDetails?.message;
  const lead = note ? [note.message, ...(partly ? [partly] : [])].join('\n') : `PASS, ${partly}`;
  result.status = note?.status ?? result.status;
  result.statusDetails = { ...result.statusDetails, message: message ? `${lead}\n\n${message}` : lead };
  if (partly) result.labels = [...(result.labels ?? []), { name: 'tag', value: PARTLY }];
  return JSON.stringify(result);
}

/**
 * "partly judged: EP-3, EV-3: other tests of them were not judged: needs the destructive profile":
 * the requirements this passing test judged whose verdict rests on some of their tests only.
 */
function partlyNote(result: AllureResult, entries: Entry[]): string | undefined {
  if (result.status !== 'passed') return undefined;
  const partly = entries.filter((e) => e.req.partly && (e.test?.verdict === 'PASS' || e.test?.verdict === 'WARN')).map((e) => e.req);
  if (partly.length === 0) return undefined;
  const groups = partlyByReason(partly);
  const causes = groups.map((g) => (groups.length === 1 ? g.reason : `${g.reason} (${g.ids.join(', ')})`));
  return `${PARTLY}: ${partly.map((r) => r.id).join(', ')}: other tests of ${partly.length === 1 ? 'it' : 'them'} were not judged: ${causes.join('; ')}`;
}

type Entry = { req: RequirementResult & { expected?: string }; test?: { verdict: string; reason?: string } };

function verdictNote(result: AllureResult, entries: Entry[]): { message: string; status?: string } | undefined {
  const failing = entries.filter((e) => e.test?.verdict === 'FAIL');
  if ((result.status === 'failed' || result.status === 'broken') && failing.length > 0 && failing.every((e) => e.req.verdict === 'XFAIL')) {
    // As allure-pytest shows an xfail: skipped, so that the run's colour is not that of a failure.
    return {
      status: 'skipped',
      message: `XFAIL: expected deviation: ${failing.map((e) => `${e.req.id} (${e.req.expected ?? 'listed in the expectations file'})`).join('; ')}`,
    };
  }
  if (result.status === 'passed') {
    const xpass = entries.find((e) => e.req.verdict === 'XPASS');
    if (xpass) return { message: `XPASS: ${xpass.req.id}: ${xpass.req.reason ?? 'expected to fail, but passes'}` };
    const warned = entries.filter((e) => e.test?.verdict === 'WARN');
    if (warned.length > 0)
      return { message: `WARN: ${warned.map((e) => `${e.req.id}: ${e.test?.reason ?? 'deviates from what the spec shows'}`).join('; ')}` };
  }
  if (result.status === 'skipped') {
    const reason = entries.find((e) => e.test?.reason)?.test?.reason;
    return { message: `NOT_TESTED: ${reason ?? 'not run'}` };
  }
  return undefined;
}
