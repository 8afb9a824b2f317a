/**
 * junit.xml: one test case per requirement (named by its ID and title, grouped by area), so CI
 * dashboards track requirements rather than test titles. FAIL is a failure with the reason as its
 * message and the failing tests' evidence as its text; NOT_TESTED and XFAIL are skipped with the
 * reason (as pytest reports an xfail); WARN and XPASS pass, with the note in system-out. A PASS
 * or WARN that rests on some of its tests has a `partly judged` property and names the tests not
 * judged in system-out.
 */
import xmlbuilder from 'xmlbuilder';
import { AREAS, requirement } from '../catalogue/requirements.js';
import type { RequirementResult } from '../client/results.js';
import type { Trend, VerdictChange } from './changes.js';
import type { ReportContext, ReportOutput } from './output.js';
import { testsText } from './evidence-text.js';
import { catalogueVersion } from './tool-info.js';
import { displayTarget } from './target.js';
import { notJudgedCount, partlyText, verdictLabel } from './partly.js';

export const JUNIT_FILE = 'junit.xml';
/** Exchanges of each failing test in the failure text: the last ones are where it went wrong. */
const EXCHANGES_PER_TEST = 3;

const UNKNOWN_AREA = 'not in this catalogue';

type XMLElement = xmlbuilder.XMLElement;
type Row = RequirementResult & { expected?: string };

export const junitXml: ReportOutput = {
  files: [JUNIT_FILE],
  async write(ctx) {
    await ctx.write(JUNIT_FILE, junitText(ctx));
  },
};

export function junitText(ctx: Pick<ReportContext, 'results' | 'trend' | 'tool'>): string {
  const r = ctx.results;
  const changes = new Map((ctx.trend?.changes ?? []).map((c) => [c.id, c]));
  const rows = r.requirements as Row[];
  // XML 1.0 cannot carry some characters a fuzzed body may hold: they become U+FFFD.
  const root = xmlbuilder.create('testsuites', { version: '1.0', encoding: 'UTF-8' }, {}, { invalidCharReplacement: '\uFFFD' }).att({
    name: ctx.tool.name,
    tests: rows.length,
    failures: rows.filter((x) => x.verdict === 'FAIL').length,
    errors: 0,
    skipped: rows.filter(isSkipped).length,
    time: (r.durationMs / 1000).toFixed(3),
  });
  for (const area of [...AREAS, UNKNOWN_AREA]) {
    const mine = rows.filter((x) => areaOf(x) === area);
    if (mine.length === 0) continue;
    const suite = root.ele('testsuite', {
      name: area,
      tests: mine.length,
      failures: mine.filter((x) => x.verdict === 'FAIL').length,
      errors: 0,
      skipped: mine.filter(isSkipped).length,
      timestamp: r.startedAt.replace(/\.\d+Z$|Z$/, ''),
    });
    suiteProperties(suite, ctx);
    for (const row of mine) testCase(suite, row, area, changes.get(row.id), r.target);
  }
  return `${root.end({ pretty: true })}\n`;
}

function suiteProperties(suite: XMLElement, ctx: Pick<ReportContext, 'results' | 'trend' | 'tool'>): void {
  const r = ctx.results;
  const props = suite.ele('properties');
  const entries: Array<[string, string | number | undefined]> = [
    ['target', displayTarget(r.target)],
    ['server', r.fingerprint?.server],
    ['firmware', r.fingerprint?.firmware],
    ['namespace', r.namespace],
    ['profile', r.profile],
    ['seed', r.seed],
    ['tool', `${ctx.tool.name} ${ctx.tool.version}`],
    ['catalogue', catalogueVersion(ctx.tool)],
    ['baseline', ctx.trend && baselineText(ctx.trend)],
  ];
  for (const [name, value] of entries) if (value !== undefined) props.ele('property', { name, value: String(value) });
}

function testCase(suite: XMLElement, row: Row, area: string, change: VerdictChange | undefined, target: string): void {
  const tc = suite.ele('testcase', { classname: `bmc-conformance.${area}`, name: `${row.id} ${row.title}` });
  const props = tc.ele('properties');
  props.ele('property', { name: 'level', value: row.level });
  props.ele('property', { name: 'section', value: row.section });
  props.ele('property', { name: 'verdict', value: row.verdict });
  if (row.partly) props.ele('property', { name: 'partly judged', value: notJudgedCount(row) });
  if (row.expected !== undefined) props.ele('property', { name: 'expected', value: row.expected });
  if (change) props.ele('property', { name: 'change', value: changeText(change) });
  const reason = row.reason ?? '';
  switch (row.verdict) {
    case 'FAIL':
      tc.ele('failure', { message: reason, type: `${row.level} requirement failed` }).txt(
        `${row.id} (${row.level}, ${row.section}): ${row.title}\n\n${testsText(row, EXCHANGES_PER_TEST, target)}`,
      );
      break;
    case 'XFAIL':
      tc.ele('skipped', { message: `XFAIL: expected deviation (${row.expected ?? ''}): ${reason}` });
      break;
    case 'NOT_TESTED':
      tc.ele('skipped', { message: `NOT_TESTED: ${reason}` });
      break;
    case 'WARN':
    case 'XPASS':
    case 'PASS': {
      const notes = [
        ...(row.verdict !== 'PASS' || reason ? [`${row.verdict}: ${reason}`] : []),
        ...(row.partly ? [`${verdictLabel(row)}: ${partlyText(row)}`] : []),
      ];
      if (notes.length > 0) tc.ele('system-out').txt(notes.join('\n'));
      break;
    }
  }
}

/** The baseline as the suite's property: where and when, and why it was not compared or what firmware moved. */
function baselineText(t: Trend): string {
  const base = `${t.source} (${t.previousStartedAt})`;
  if (t.notComparable) return `${base}, not compared: ${t.notComparable}`;
  return t.firmware ? `${base}, firmware ${t.firmware}` : base;
}

function changeText(c: VerdictChange): string {
  const what = c.kind === 'regression' ? 'newly failing' : c.kind === 'fix' ? 'newly passing' : 'changed';
  return `${what}: ${c.from} before, ${c.to} now`;
}

function isSkipped(row: Row): boolean {
  return row.verdict === 'NOT_TESTED' || row.verdict === 'XFAIL';
}

/** A requirement the catalogue no longer has (an old results.json) goes under its own name. */
function areaOf(row: Row): string {
  try {
    return requirement(row.id).area;
  } catch {
    return UNKNOWN_AREA;
  }
}
