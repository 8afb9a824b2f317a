/**
 * ENV-1 ENV-2 ENV-3 ENV-4: every answer to any request the profile allows is a spec envelope (or,
 * for a refusal, no envelope at all). Leaks in refusals are the anonymous property's (AUTH-5).
 */
import type { BmcResponse } from '../../../client/http.js';
import { envelopeOf, envelopeProblems, show, type Problem } from '../../harness/assert.js';
import type { FuzzRequest } from '../requests.js';
import type { FuzzProperty } from '../runner.js';
import { API_METHODS, asSent, isSuccess, line, boundariesOf, requestsOf, send, statusText, type FuzzEnv } from './common.js';

/** The members a JSON body has of {data, message, status}. */
function envelopeMembers(res: BmcResponse): number {
  const env = envelopeOf(res);
  if (!env) return 0;
  return ['data', 'message', 'status'].filter((m) => m in env).length;
}

/**
 * ENV-1..4 for any answer: a spec envelope whose message is this status line and whose status
 * agrees with the code, or, for a refusal, a body that is no envelope at all (bmcweb refuses with
 * an empty body). HEAD answers have no body by definition. Leaks are the anonymous property's.
 */
export function envelopeVerdict(req: FuzzRequest, res: BmcResponse): Problem[] {
  if (req.method.toUpperCase() === 'HEAD') return [];
  // Methods outside the interface (OPTIONS, TRACE, …) may be answered by the HTTP layer itself
  // (an Allow list, an echo): only a body meant as an envelope is held to the envelope rules.
  const apiMethod = API_METHODS.has(req.method);
  const refusal = !isSuccess(res.status) || !apiMethod;
  if (res.text.trim() === '') {
    // No body is no JSON (ENV-4), as the envelope area and the run's answers judge it.
    return refusal ? [] : [{ requirement: 'ENV-4', problem: 'a successful answer with an empty body: no JSON, no envelope' }];
  }
  if (res.json === undefined) {
    return refusal ? [] : [{ requirement: 'ENV-4', problem: `a successful answer that is not JSON: ${show(res.text, 80)}` }];
  }
  // Two or more envelope members: meant as an envelope, so it must be a correct one.
  if (refusal && envelopeMembers(res) < 2) return [];
  return envelopeProblems(res);
}

export function envelopeProperty(env: FuzzEnv): FuzzProperty<FuzzRequest> {
  return {
    key: 'env',
    requirements: ['ENV-1', 'ENV-2', 'ENV-3', 'ENV-4'],
    requestsPerRun: 1,
    arbitrary: requestsOf(env),
    examples: boundariesOf(env),
    reproOf: asSent,
    predicate: async (req, judge) => {
      const o = await send(env, req);
      if (o.kind !== 'answered') return; // dropped connections are ERR-5's to judge
      for (const p of envelopeVerdict(req, o.res))
        judge.violation(p.requirement, `${line(req)} answered ${statusText(o.res)}: ${p.problem}`, [req]);
    },
  };
}
