/**
 * Answer sampling (load --verify): every Nth answer of the load's own traffic, and every answer that
 * is not 2xx, is judged as the suites judge it: the envelope (ENV-1..4), an error's data (ERR-1), and
 * the JSON Schema of the route's data (EP-3, EP-4, EP-5, EP-6, EP-7). The first violation of each
 * requirement is kept as evidence, with the load level at which it appeared.
 */
import { STATUS_CODES } from 'node:http';
import { envelopeOf, envelopeProblems, errorDataProblem, type Problem } from '../../client/answer.js';
import { redactBody, redactText, truncate } from '../../client/evidence.js';
import type { BmcResponse } from '../../client/http.js';
import { parseJson } from '../../client/json.js';
import { validators, type SchemaName } from '../../schemas/index.js';
import type { HttpRequest } from '../request-source.js';
import { messageOf } from '../../client/errors.js';

export const DEFAULT_VERIFY_EVERY = 100;
const EXCERPT_CHARS = 600;

/** What a violation shows: the request and the answer, redacted and cut short. */
export interface AnswerEvidence {
  request: string;
  requestBody?: string;
  status?: number;
  responseBody?: string;
}

/** The first violation of one requirement under load, and how often it was seen. */
export interface Violation {
  requirement: string;
  problem: string;
  /** Requests per second offered (open loop) or served (closed loop) when it first appeared. */
  firstRps: number;
  scenario: string;
  count: number;
  evidence?: AnswerEvidence;
}

/** The data schema a successful GET of this path answers with, and the requirement it belongs to. */
export function routeSchema(path: string): { schema: SchemaName; requirement: string } | undefined {
  const bare = path.replace(/\?.*$/, '');
  if (bare.endsWith('/')) return { schema: 'pathArray', requirement: 'EP-5' };
  if (bare.endsWith('/list')) return { schema: 'pathArray', requirement: 'EP-6' };
  if (bare.endsWith('/enumerate')) return { schema: 'enumerateMap', requirement: 'EP-7' };
  if (/\/attr\/[^/]+$/.test(bare)) return { schema: 'bareValue', requirement: 'EP-4' };
  return { schema: 'attributeMap', requirement: 'EP-3' };
}

/** A raw answer as a BmcResponse, so the suites' judges read it. */
export function asResponse(status: number, headers: Record<string, string | string[] | undefined>, text: string): BmcResponse {
  let json: unknown;
  let jsonError: string | undefined;
  try {
    json = text === '' ? undefined : parseJson(text);
  } catch (err) {
    jsonError = messageOf(err);
  }
  return { status, statusLine: `${status} ${STATUS_CODES[status] ?? ''}`.trim(), headers, text, json, jsonError, durationMs: 0 };
}

/** Every problem of one answer to `req`, each with its requirement. */
export function judgeAnswer(req: HttpRequest, res: BmcResponse, namespace: string): Problem[] {
  const problems = envelopeProblems(res);
  if (problems.some((p) => p.requirement === 'ENV-4' || p.requirement === 'ENV-1')) return problems;
  const ok = res.status >= 200 && res.status < 300;
  if (!ok) {
    const p = errorDataProblem(res);
    if (p) problems.push({ requirement: 'ERR-1', problem: p });
    return problems;
  }
  const route = req.method === 'GET' ? routeSchema(req.path) : undefined;
  if (route) {
    const data = envelopeOf(res)?.data;
    const result = validators(namespace).check(route.schema, data);
    if (!result.ok)
      problems.push({
        requirement: route.requirement,
        problem: `GET ${req.path} data does not match the spec's shape (${route.schema}): ${result.errors.join('; ')}`,
      });
  }
  return problems;
}

export interface AnswerTap {
  /** Whether the answer with this status is judged (its body must then be read). */
  wants(status: number): boolean;
  /** One answer the tap wanted; `offeredRps` is the open loop's current rate. */
  judge(req: HttpRequest, status: number, headers: Record<string, string | string[] | undefined>, body: string, offeredRps?: number): void;
}

/**
 * The sampler of one load run: scenarios come and go (`startScenario`); the violations stay. The
 * load level of a closed loop is the rate it has served so far in its scenario.
 */
export class AnswerSampler implements AnswerTap {
  private readonly violations = new Map<string, Violation>();
  private seen = 0;
  private served = 0;
  private scenario = '';
  private startedAt = performance.now();
  judged = 0;

  constructor(
    private readonly every: number,
    private readonly namespace: string,
    private readonly secrets: readonly string[],
  ) {}

  startScenario(name: string): void {
    this.scenario = name;
    this.served = 0;
    this.startedAt = performance.now();
  }

  /** Requests per second served so far in this scenario. */
  servedRps(): number {
    const s = (performance.now() - this.startedAt) / 1000;
    return s > 0 ? Math.round((this.served / s) * 10) / 10 : 0;
  }

  wants(status: number): boolean {
    this.served++;
    return ++this.seen % this.every === 0 || status < 200 || status > 299;
  }

  judge(req: HttpRequest, status: number, headers: Record<string, string | string[] | undefined>, body: string, offeredRps?: number): void {
    this.judged++;
    const problems = judgeAnswer(req, asResponse(status, headers, body), this.namespace);
    for (const p of problems) this.add(p, offeredRps ?? this.servedRps(), this.evidence(req, status, body));
  }

  /**
   * A violation found beside the sampled answers (the register, the events) under this load. The
   * one kept is that of the lowest load level (a capacity search comes back down to bisect).
   */
  add(p: Problem, rps: number, evidence?: AnswerEvidence): void {
    const seen = this.violations.get(p.requirement);
    if (seen) {
      seen.count++;
      if (rps < seen.firstRps) {
        Object.assign(seen, { problem: p.problem, firstRps: rps, scenario: this.scenario });
        if (evidence) seen.evidence = evidence;
      }
      return;
    }
    this.violations.set(p.requirement, { ...p, firstRps: rps, scenario: this.scenario, count: 1, ...(evidence && { evidence }) });
  }

  evidence(req: HttpRequest, status: number | undefined, body: string | undefined): AnswerEvidence {
    const url = req.path;
    return {
      request: `${req.method} ${redactText(url, this.secrets)}`,
      ...(req.body !== undefined && { requestBody: truncate(redactBody(req.body, url, this.secrets), EXCERPT_CHARS) }),
      ...(status !== undefined && { status }),
      ...(body !== undefined && { responseBody: truncate(redactBody(body, url, this.secrets), EXCERPT_CHARS) }),
    };
  }

  /** How often each requirement was seen broken so far: a step compares before and after. */
  counts(): Map<string, number> {
    return new Map([...this.violations.values()].map((v) => [v.requirement, v.count]));
  }

  get found(): Violation[] {
    return [...this.violations.values()];
  }

  get scenarioName(): string {
    return this.scenario;
  }
}
