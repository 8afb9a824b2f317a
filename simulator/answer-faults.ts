/**
 * Answer faults that break one statement at one site: `--fault NAME@ROUTE:OUTCOME` applies the
 * operator NAME to the answers of one route of the interface (endpoints 1-13) that succeed (`ok`)
 * or fail (`error`), and to no other. A statement that holds for every answer must be judged at
 * every site, not only where a check of its own looks: the mutation self-test runs every pair.
 */
import type { Operator } from '../catalogue/operators.js';
import { parseSite, SITE_ROUTES, siteName, type Site, type SiteOutcome, type SiteRoute } from '../client/answer-site.js';
import type { Route } from './route-parse.js';
import { parseJson, stringifyJson } from './json.js';
import { STATUS_CODES } from 'node:http';

/** The status line of a code (envelope.ts has its own: importing it would close a circle through faults.ts). */
function statusLine(code: number): string {
  return `${code} ${STATUS_CODES[code] ?? 'Unknown'}`;
}

export interface AnswerFaultInfo {
  name: string;
  operator: Operator;
  requirement: string;
  description: string;
  /** The outcomes the operator can apply to (a success cannot be a refusal that leaks). */
  outcomes: readonly SiteOutcome[];
}

const BOTH: readonly SiteOutcome[] = ['ok', 'error'];

export const ANSWER_FAULTS = [
  { name: 'answer-omits-data', operator: 'omit', requirement: 'ENV-1', outcomes: BOTH, description: 'the envelope leaves out data' },
  { name: 'answer-omits-message', operator: 'omit', requirement: 'ENV-1', outcomes: BOTH, description: 'the envelope leaves out message' },
  { name: 'answer-omits-status', operator: 'omit', requirement: 'ENV-1', outcomes: BOTH, description: 'the envelope leaves out status' },
  {
    name: 'answer-message-other-code',
    operator: 'misreport',
    requirement: 'ENV-2',
    outcomes: BOTH,
    description: 'message is another status line: "200 OK" on an error, "202 Accepted" on a success',
  },
  {
    name: 'answer-message-bare-code',
    operator: 'partial',
    requirement: 'ENV-2',
    outcomes: BOTH,
    description: 'message is the bare code ("200"), without the reason',
  },
  {
    name: 'answer-status-flipped',
    operator: 'misreport',
    requirement: 'ENV-3',
    outcomes: BOTH,
    description: 'status is "error" on a success and "ok" on an error',
  },
  {
    name: 'answer-status-capitalised',
    operator: 'malformed',
    requirement: 'ENV-3',
    outcomes: BOTH,
    description: 'status is "OK" or "Error", not "ok" or "error"',
  },
  {
    name: 'answer-text-plain',
    operator: 'misreport',
    requirement: 'ENV-4',
    outcomes: BOTH,
    description: 'the JSON body is labelled text/plain',
  },
  {
    name: 'answer-body-cut',
    operator: 'malformed',
    requirement: 'ENV-4',
    outcomes: BOTH,
    description: 'the body is cut after its first half, so it is no longer JSON',
  },
  {
    name: 'answer-success-202',
    operator: 'misreport',
    requirement: 'ERR-4',
    outcomes: ['ok'],
    description: 'a success answers 202 Accepted (its message says so too)',
  },
  {
    name: 'refusal-leaks-value',
    operator: 'leak',
    requirement: 'AUTH-5',
    outcomes: ['error'],
    description:
      "a refusal of a request without credentials carries an attribute value of the tree (the system's serial number, or the MAC address of eth0 when the system is addressed)",
  },
] as const satisfies readonly AnswerFaultInfo[];

export type AnswerFaultName = (typeof ANSWER_FAULTS)[number]['name'];

const BY_NAME = new Map<string, AnswerFaultInfo>(ANSWER_FAULTS.map((f) => [f.name, f]));

/** One operator at one site. */
export interface SiteFault {
  fault: AnswerFaultInfo;
  site: Site;
}

/** `NAME@ROUTE:OUTCOME` as a site fault, or undefined when it names none. */
export function parseSiteFault(text: string): SiteFault | undefined {
  const at = text.indexOf('@');
  if (at < 0) return undefined;
  const fault = BY_NAME.get(text.slice(0, at));
  const site = parseSite(text.slice(at + 1));
  if (!fault || !site || !fault.outcomes.includes(site.outcome)) return undefined;
  return { fault, site };
}

export function siteFaultName(f: SiteFault): string {
  return `${f.fault.name}@${siteName(f.site)}`;
}

/** Every operator at every site it applies to: the pairs the mutation self-test runs. */
export function allSiteFaults(): SiteFault[] {
  return ANSWER_FAULTS.flatMap((fault) =>
    SITE_ROUTES.flatMap((route) => fault.outcomes.map((outcome) => ({ fault, site: { route, outcome } }))),
  );
}

/** The site route of a request as the simulator routed it; undefined for no route of the interface. */
export function siteRouteOf(method: string, r: Route): SiteRoute | undefined {
  const m = method.toUpperCase();
  switch (r.kind) {
    case 'login':
    case 'logout':
    case 'upload':
      return m === 'POST' ? r.kind : undefined;
    case 'upload-named':
      return m === 'PUT' ? 'upload-named' : undefined;
    case 'object':
      return m === 'GET' ? 'object' : m === 'PUT' ? 'put-object' : m === 'DELETE' ? 'delete' : undefined;
    case 'attr':
      return m === 'GET' ? 'attr' : m === 'PUT' ? 'put-attr' : undefined;
    case 'children':
    case 'list':
    case 'enumerate':
      return m === 'GET' ? r.kind : undefined;
    case 'action':
      return m === 'POST' ? 'action' : undefined;
    default:
      return undefined;
  }
}

export interface FaultedAnswer {
  status: number;
  body: string;
  contentType: string;
}

/**
 * The answer as the site's faults make it. `leaked` is the value a leaking refusal carries;
 * `anonymous` says the request carried no credentials (only such a refusal leaks).
 */
export function faultAnswer(
  faults: readonly AnswerFaultInfo[],
  answer: FaultedAnswer,
  ctx: { anonymous: boolean; leaked: () => string },
): FaultedAnswer {
  let { status, body, contentType } = answer;
  const success = status >= 200 && status < 300;
  const env = parseJson(body) as Record<string, unknown>;
  let cut = false;
  for (const f of faults) {
    switch (f.name as AnswerFaultName) {
      case 'answer-omits-data':
        delete env.data;
        break;
      case 'answer-omits-message':
        delete env.message;
        break;
      case 'answer-omits-status':
        delete env.status;
        break;
      case 'answer-message-other-code':
        env.message = success ? statusLine(202) : statusLine(200);
        break;
      case 'answer-message-bare-code':
        env.message = String(status);
        break;
      case 'answer-status-flipped':
        env.status = success ? 'error' : 'ok';
        break;
      case 'answer-status-capitalised':
        env.status = success ? 'OK' : 'Error';
        break;
      case 'answer-text-plain':
        contentType = 'text/plain; charset=utf-8';
        break;
      case 'answer-body-cut':
        cut = true;
        break;
      case 'answer-success-202':
        status = 202;
        env.message = statusLine(202);
        break;
      case 'refusal-leaks-value':
        if (ctx.anonymous) env.data = { ...(env.data as object), leaked: ctx.leaked() };
        break;
    }
  }
  body = stringifyJson(env);
  if (cut) body = body.slice(0, Math.floor(body.length / 2));
  return { status, body, contentType };
}
