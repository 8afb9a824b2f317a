/**
 * What each conformance test tells Allure while it runs (in the suites' worker): its requirements,
 * area and profile as labels, a severity from the requirement level, a link to each catalogue
 * entry, and every request it made as a step with the redacted request and response attached (one text).
 */
import * as allure from 'allure-js-commons';
import { requirement, type Level, type Requirement } from '../../catalogue/requirements.js';
import { exchangeText, type Exchange } from '../../client/evidence.js';
import { replayScript, timelineText } from '../../client/timeline.js';
import { displayTarget } from '../target.js';

/** The worst a broken requirement of each level can be. */
const SEVERITY: Record<Level, string> = { MUST: 'critical', SAFETY: 'normal', OBSERVE: 'trivial' };
const LEVELS_BY_WEIGHT: readonly Level[] = ['MUST', 'SAFETY', 'OBSERVE'];
/** Steps kept per test: as many exchanges as results.json keeps as evidence. */
const STEPS_PER_TEST = 20;
const STEP_URL_LIMIT = 160;

/** The rendered report holds the catalogue (report/catalogue-html.ts), one anchor per requirement. */
function catalogueLink(id: string): string {
  return `catalogue.html#${id}`;
}

function severityOf(reqs: readonly Requirement[]): string {
  const level = LEVELS_BY_WEIGHT.find((l) => reqs.some((r) => r.level === l)) ?? 'OBSERVE';
  return SEVERITY[level];
}

/**
 * The labels of a test. `suiteArea`: the area of the suite file the test lives in (the one `--only`
 * names). Allure's Suites tab groups by it, so the fuzz and stateful tests stand as suites of their
 * own, each test under the spec area of its first requirement there when that differs (fuzz >
 * envelope); the Behaviors tab (feature, story) groups by the spec area.
 */
export function testLabels(ids: readonly string[], profile: string, suiteArea?: string): Array<{ name: string; value: string }> {
  const reqs = ids.map(requirement);
  const area = reqs[0]!.area;
  const parent = suiteArea ?? area;
  return [
    ...reqs.map((r) => ({ name: 'requirement', value: r.id })),
    { name: 'parentSuite', value: parent },
    ...(parent !== area ? [{ name: 'suite', value: area }] : []),
    { name: 'area', value: area },
    { name: 'feature', value: area },
    ...reqs.map((r) => ({ name: 'story', value: `${r.id} ${r.title}` })),
    { name: 'profile', value: profile },
    { name: 'tag', value: `profile:${profile}` },
    { name: 'severity', value: severityOf(reqs) },
  ];
}

export async function describeTest(ids: readonly string[], profile: string, suiteArea?: string): Promise<void> {
  const reqs = ids.map(requirement);
  await allure.labels(...testLabels(ids, profile, suiteArea));
  await allure.links(...reqs.map((r) => ({ url: catalogueLink(r.id), name: `${r.id} in the catalogue`, type: 'tms' })));
  await allure.description(reqs.map((r) => `**${r.id}** (${r.level}; spec: ${r.section}): ${r.title}`).join('\n\n'));
}

/**
 * Every request of the test as a step. A step is red when its answer is a 5xx or none came, and
 * when a finding of the test names the request (`GET /x (404): …`): that request is what it judged wrong.
 */
export async function exchangeSteps(exchanges: readonly Exchange[], findings: readonly string[] = []): Promise<void> {
  const shown = exchanges.slice(-STEPS_PER_TEST);
  if (exchanges.length > shown.length)
    await allure.logStep(`${exchanges.length - shown.length} earlier requests of this test are not shown`);
  for (const x of shown) {
    const text = exchangeText(x);
    const failure = stepFailure(x) ?? namedBy(x, findings);
    try {
      await allure.step(stepName(x), async () => {
        // One attachment for both halves: a reader opens one, and Allure renders half as many files.
        await allure.attachment('exchange', `${text.request}\n\n${text.response}`, 'text/plain');
        // Allure draws a step red when its body fails an assertion: a server error or no answer is one.
        if (failure) throw failure;
      });
    } catch (err) {
      if (err !== failure) throw err;
    }
  }
}

/** A finding's requests and event messages as one timeline, and the shell lines that replay them. */
export async function replayAttachments(exchanges: readonly Exchange[], target: string): Promise<void> {
  if (exchanges.length === 0) return;
  await allure.attachment('timeline', timelineText(exchanges), 'text/plain');
  await allure.attachment('replay.sh', replayScript(exchanges, displayTarget(target)), 'text/plain');
}

/** A 5xx or a request without a response: whatever the test judged, that step did not go well. */
export function stepFailure(x: Exchange): Error | undefined {
  if (x.error === undefined && (x.status ?? 0) < 500) return undefined;
  const err = new Error(
    x.error !== undefined ? `no response: ${x.error.split('\n')[0]}` : `the target answered ${x.statusLine ?? x.status}`,
  );
  err.name = 'AssertionError';
  return err;
}

/** The finding that names this request ("PUT /a/attr/X …"), as the step's failure. */
export function namedBy(x: Exchange, findings: readonly string[]): Error | undefined {
  const request = `${x.method} ${x.url}`;
  const finding = findings.find((f) => {
    for (let at = f.indexOf(request); at >= 0; at = f.indexOf(request, at + 1)) {
      // The whole path, not a prefix of a longer one.
      if (!/[\w/%.~-]/.test(f.charAt(at + request.length))) return true;
    }
    return false;
  });
  if (finding === undefined) return undefined;
  const err = new Error(finding.length > 300 ? `${finding.slice(0, 300)}…` : finding);
  err.name = 'AssertionError';
  return err;
}

function stepName(x: Exchange): string {
  const url = x.url.length > STEP_URL_LIMIT ? `${x.url.slice(0, STEP_URL_LIMIT)}…` : x.url;
  const answer = x.error !== undefined ? `no response (${x.error.split('\n')[0]})` : (x.statusLine ?? String(x.status));
  return `${x.method} ${url} → ${answer}`;
}
