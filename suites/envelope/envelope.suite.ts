/** The response envelope: data, message and status on every JSON response, success or error. */
import type { BmcResponse } from '../../client/http.js';
import { check, evidenceMark, type CheckContext } from '../harness/check.js';
import { ensure, envelopeProblems, reasonPhraseNote } from '../harness/assert.js';
import { forgetEachRun } from '../../client/run-scoped.js';

let sample: Promise<{ mark: number; responses: Array<[string, BmcResponse]> }> | undefined;
forgetEachRun(() => (sample = undefined));

/**
 * A sample of every kind of response the read-only profile may provoke, sent once per run (by the
 * first check that needs it) and judged by each of ENV-1 to ENV-4: one subtree enumerate, not four,
 * on a target where it costs seconds. Every other answer of the run is judged by the answers oracle.
 */
async function sampleResponses(t: CheckContext): Promise<Array<[string, BmcResponse]>> {
  sample ??= (async () => ({ mark: evidenceMark(), responses: await sendSample(t) }))();
  sample.catch(() => (sample = undefined));
  const { mark, responses } = await sample;
  // Each check that judges the sample shows its requests, whichever check sent them.
  t.evidenceFrom(mark);
  return responses;
}

async function sendSample(t: CheckContext): Promise<Array<[string, BmcResponse]>> {
  const sys = `${t.root}/inventory/system`;
  const requests: Array<[string, () => Promise<BmcResponse>]> = [
    ['GET /', () => t.client.get('/')],
    [`GET ${t.root}/`, () => t.client.get(`${t.root}/`)],
    [`GET ${sys}`, () => t.client.get(sys)],
    [`GET ${sys}/attr/Model`, () => t.client.get(`${sys}/attr/Model`)],
    [`GET ${t.root}/time/list`, () => t.client.get(`${t.root}/time/list`)],
    [`GET ${t.root}/time/enumerate`, () => t.client.get(`${t.root}/time/enumerate`)],
    [`GET ${t.root}/bmc_conformance_missing`, () => t.client.get(`${t.root}/bmc_conformance_missing`)],
    // An empty path segment: whatever the server makes of it, its answer is an envelope.
    [`GET ${t.root}//inventory/system`, () => t.client.get(`${t.root}//inventory/system`)],
    [`GET ${sys}/attr/BmcConformanceMissing`, () => t.client.get(`${sys}/attr/BmcConformanceMissing`)],
    ['GET without credentials', () => t.client.get(sys, { auth: false, relogin: false })],
    // Refused or not (the spec leaves a logout without a session open), its answer is an envelope.
    ['POST /logout without credentials', () => t.client.post('/logout', [], { auth: false, relogin: false })],
  ];
  const out: Array<[string, BmcResponse]> = [];
  for (const [what, send] of requests) out.push([what, await send()]);
  // The answers to JSON requests with a body: a session of its own, logged in and out (not writes).
  const own = t.client.fork();
  try {
    out.push(['POST /login', await own.tryLogin({ data: [t.cfg.user, t.cfg.password] }, { store: true })]);
    out.push(['POST /logout', await own.logout()]);
  } finally {
    await own.close();
  }
  return out;
}

/** Bodies that are JSON by their content type or by their first byte. */
function jsonLike(res: BmcResponse): boolean {
  const type = String(res.headers['content-type'] ?? '');
  return type.includes('json') || /^\s*[{[]/.test(res.text);
}

/** The problems of `requirement` in the sample; bodies that are not JSON are ENV-4's to judge. */
function checkMembers(t: CheckContext, responses: Array<[string, BmcResponse]>, requirement: string): void {
  const problems: string[] = [];
  for (const [what, res] of responses) {
    // bmcweb answers some refusals with an empty body: no JSON response, so no envelope is owed.
    if (res.text.trim() === '' && res.status >= 400) continue;
    for (const p of envelopeProblems(res)) if (p.requirement === requirement) problems.push(`${what} (${res.status}): ${p.problem}`);
    const note = reasonPhraseNote(res);
    if (note && requirement === 'ENV-2') t.warn(`${what}: ${note}`);
  }
  ensure(problems.length === 0, problems.join('; '));
}

check('ENV-1', 'every JSON response, success or error, has data, message and status', async (t) => {
  checkMembers(t, await sampleResponses(t), 'ENV-1');
});

check('ENV-2', 'message is "<code> <reason>" for the HTTP status of its own response', async (t) => {
  const responses = await sampleResponses(t);
  ensure(
    responses.some(([, r]) => r.status >= 400),
    'the sample provoked no error response to compare',
  );
  checkMembers(t, responses, 'ENV-2');
});

check('ENV-3', 'status is "ok" on success and "error" on failure', async (t) => {
  const responses = await sampleResponses(t);
  checkMembers(t, responses, 'ENV-3');
});

check('ENV-4', 'responses are JSON: application/json and parseable', async (t) => {
  const problems: string[] = [];
  for (const [what, res] of await sampleResponses(t)) {
    if (res.text.trim() === '' && res.status >= 400) continue;
    const type = String(res.headers['content-type'] ?? '(none)');
    if (!/^application\/json\b/i.test(type)) problems.push(`${what}: Content-Type ${type}`);
    if (jsonLike(res) && res.json === undefined)
      problems.push(`${what}: body does not parse as JSON (${res.jsonError ?? 'unknown error'})`);
  }
  ensure(problems.length === 0, problems.join('; '));
});
