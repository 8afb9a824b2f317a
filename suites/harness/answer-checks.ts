/**
 * The cross-cutting statements of the spec that hold for every answer, each a small function of one
 * answer (in the manner of Schemathesis' checks): the run-wide answers oracle (answers.ts) applies
 * every check that applies to every answer the run receives, whichever area asked.
 */
import { headerValue, type Exchange } from '../../client/evidence.js';
import { envelopeProblems, show, type Problem } from '../../client/answer.js';
import type { BmcResponse } from '../../client/http.js';
import { outcomeOf, routeOf, type SiteOutcome, type SiteRoute } from '../../client/answer-site.js';

export const ANSWER_REQUIREMENTS = ['ENV-1', 'ENV-2', 'ENV-3', 'ENV-4', 'ERR-4', 'ERR-5', 'AUTH-5'] as const;
export type AnswerRequirement = (typeof ANSWER_REQUIREMENTS)[number];

/** One answer of the run, as the checks see it. */
export interface Answer {
  /** As recorded, before redaction. */
  x: Readonly<Exchange>;
  route: SiteRoute;
  outcome: SiteOutcome;
  status: number;
  /** The body as the client parsed it (lossless); undefined when it is empty or not JSON. */
  json: unknown;
  /** The request carried no credentials at all (no cookie, token or authorization header). */
  anonymous: boolean;
  /** An interface request whose answer the spec says is a JSON envelope. */
  owesEnvelope: boolean;
}

/** The requirements a check of one answer holds; AUTH-5 needs the tree as well (suites/oracle). */
export type HeldRequirement = Exclude<AnswerRequirement, 'AUTH-5'>;

export interface AnswerCheck {
  requirement: HeldRequirement;
  /** What the check holds, for the oracle's reason and the reports. */
  statement: string;
  applies(a: Answer): boolean;
  /** What is wrong with the answer, or undefined. */
  problem(a: Answer): string | undefined;
}

const CREDENTIAL_HEADERS = ['cookie', 'x-auth-token', 'authorization'];

/**
 * A request of the interface whose answer is an envelope: it asks for JSON and sends JSON or
 * nothing, or it is an image upload (binary by the spec). Requests the fuzzer sends with other
 * content types are answered as a server pleases.
 */
export function owesEnvelope(x: Pick<Exchange, 'method' | 'url' | 'requestHeaders' | 'requestBody'>, route: SiteRoute): boolean {
  const accept = headerValue(x.requestHeaders, 'accept');
  if (accept !== undefined && !/application\/json/i.test(accept)) return false;
  const type = headerValue(x.requestHeaders, 'content-type');
  if (route === 'upload' || route === 'upload-named') return type === undefined || /^application\/octet-stream\b/i.test(type);
  // The field's login form ({"username", "password"}, current bmcweb's) is another interface's
  // request: its answer is that interface's (a token), not the spec's envelope.
  if (route === 'login' && fieldLoginForm(x.requestBody)) return false;
  if (x.requestBody === undefined || x.requestBody === '') return type === undefined || /^application\/json\b/i.test(type);
  return type !== undefined && /^application\/json\b/i.test(type);
}

/** A login body that is a JSON object without the spec's `data` member. */
function fieldLoginForm(body: string | undefined): boolean {
  const value = body === undefined ? undefined : parseOrUndefined(body);
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !('data' in value);
}

/** The answer the checks judge, or undefined for what is no answer of a route (no status, a 1xx or 3xx, another method). */
export function answerOf(x: Readonly<Exchange>, json?: unknown): Answer | undefined {
  if (x.status === undefined || x.error !== undefined) return undefined;
  const route = routeOf(x.method, x.url);
  const outcome = outcomeOf(x.status);
  if (!route || !outcome) return undefined;
  const body = x.responseBody ?? '';
  let parsed = json;
  if (parsed === undefined && /^\s*[{["\d\-tfn]/.test(body)) parsed = parseOrUndefined(body);
  return {
    x,
    route,
    outcome,
    status: x.status,
    json: parsed,
    anonymous: !CREDENTIAL_HEADERS.some((h) => headerValue(x.requestHeaders, h) !== undefined),
    owesEnvelope: owesEnvelope(x, route),
  };
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function bodyOf(a: Answer): string {
  return a.x.responseBody ?? '';
}

/** The members of {data, message, status} a JSON object body has. */
function members(a: Answer): number {
  const j = a.json;
  if (!j || typeof j !== 'object' || Array.isArray(j)) return 0;
  return ['data', 'message', 'status'].filter((m) => m in j).length;
}

/**
 * An answer meant as an envelope: every success, and a refusal whose body is a JSON object with two
 * or more of the members (a refusal may come without a body, or with a framework's own, as bmcweb's
 * empty 401 does: no envelope is owed where none was meant).
 */
function meantAsEnvelope(a: Answer): boolean {
  if (!a.owesEnvelope || bodyOf(a).trim() === '' || a.json === undefined) return false;
  return a.outcome === 'ok' || members(a) >= 2;
}

export function asResponse(a: Answer): BmcResponse {
  return {
    status: a.status,
    statusLine: a.x.statusLine ?? String(a.status),
    headers: (a.x.responseHeaders ?? {}) as BmcResponse['headers'],
    text: bodyOf(a),
    json: a.json,
    durationMs: a.x.durationMs,
  };
}

/** The envelope's problems, judged once per answer for the three checks that read them. */
const envelopeCache = new WeakMap<Answer, Problem[]>();

/** The envelope problems of one requirement (client/answer.ts judges ENV-1..3 in one place). */
function envelopeProblem(requirement: 'ENV-1' | 'ENV-2' | 'ENV-3'): (a: Answer) => string | undefined {
  return (a) => {
    let all = envelopeCache.get(a);
    if (!all) envelopeCache.set(a, (all = envelopeProblems(asResponse(a))));
    const found = all.filter((p) => p.requirement === requirement);
    return found.length === 0 ? undefined : found.map((p) => p.problem).join('; ');
  };
}

export const ANSWER_CHECKS: readonly AnswerCheck[] = [
  {
    requirement: 'ENV-1',
    statement: 'every JSON answer is an object with data, message and status',
    applies: meantAsEnvelope,
    problem: envelopeProblem('ENV-1'),
  },
  {
    requirement: 'ENV-2',
    statement: 'message is the status line "<code> <reason>" of its own answer',
    applies: (a) => meantAsEnvelope(a) && members(a) > 0 && 'message' in (a.json as object),
    problem: envelopeProblem('ENV-2'),
  },
  {
    requirement: 'ENV-3',
    statement: 'status is "ok" on success and "error" on failure',
    applies: (a) => meantAsEnvelope(a) && members(a) > 0 && 'status' in (a.json as object),
    problem: envelopeProblem('ENV-3'),
  },
  {
    requirement: 'ENV-4',
    statement: 'the answer to a JSON request is JSON, labelled application/json',
    // Server errors' bodies are ERR-5's finding: a 500 page is the server error, not a second one.
    applies: (a) => a.owesEnvelope && a.status < 500 && (a.outcome === 'ok' || bodyOf(a).trim() !== ''),
    problem: (a) => {
      const text = bodyOf(a).trim();
      if (text === '') return 'an empty body: no JSON, no envelope';
      if (a.json === undefined) return `a body that is not JSON: ${show(text, 80)}`;
      const type = headerValue(a.x.responseHeaders, 'content-type');
      if (type === undefined || !/^application\/json\b/i.test(type)) return `a JSON body labelled ${type ?? '(no Content-Type)'}`;
      return undefined;
    },
  },
  {
    requirement: 'ERR-4',
    statement: 'a successful request answers exactly 200 OK',
    applies: (a) => a.outcome === 'ok',
    problem: (a) => (a.status === 200 ? undefined : `a success answered ${a.x.statusLine ?? a.status}, not 200 OK`),
  },
  {
    requirement: 'ERR-5',
    statement: 'no request is answered with a server error',
    // A write's server error is its write's finding (EP-8, EP-9 or WR-1, by the value's type),
    // which the write checks judge with the model of the attribute.
    applies: (a) => a.route !== 'put-attr' && a.route !== 'put-object',
    // 503 is a busy target's answer with Retry-After (bmcweb's concurrent upload), retried by the client.
    problem: (a) => (a.status >= 500 && a.status !== 503 ? `a server error: ${a.x.statusLine ?? a.status}` : undefined),
  },
];
