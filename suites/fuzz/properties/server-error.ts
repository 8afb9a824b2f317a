/**
 * ERR-5: no input makes the target answer with a server error or drop the connection. A
 * well-formed write of an attribute that fails so is WR-1's (a value of another type) or EP-8's
 * (a value of the attribute's type) instead.
 */
import type { FuzzRequest } from '../requests.js';
import type { FuzzProperty } from '../runner.js';
import type { TargetModel } from '../model.js';
import { asSent, describeDrop, line, boundariesOf, requestsOf, send, statusText, type FuzzEnv } from './common.js';
import { effectiveData, typedAs } from './value-type.js';

/**
 * Whose failure a server error is: a well-formed {"data": value} PUT of an attribute is WR-1's
 * when the value has another type than the attribute shows (EP-8's when it has the same); any
 * other input is ERR-5's.
 */
function serverErrorOwner(model: TargetModel, req: FuzzRequest): string {
  const m = req.method === 'PUT' ? /^(.*)\/attr\/([^/]+)$/.exec(req.path) : null;
  const eff = m && req.body !== undefined ? effectiveData(req.body) : undefined;
  if (!m || !eff) return 'ERR-5';
  const kind = model.kinds.get(`${m[1]}\u0000${m[2]}`);
  if (!kind) return 'WR-1';
  return typedAs(kind, eff, { path: m[1]!, name: m[2]! }) === 'right' ? 'EP-8' : 'WR-1';
}

export function serverErrorProperty(env: FuzzEnv): FuzzProperty<FuzzRequest> {
  return {
    key: 'err5',
    requirements: ['ERR-5', 'WR-1', 'EP-8'],
    requestsPerRun: 1,
    arbitrary: requestsOf(env),
    examples: boundariesOf(env),
    reproOf: asSent,
    predicate: async (req, judge) => {
      const o = await send(env, req);
      const owner = serverErrorOwner(env.model, req);
      if (o.kind === 'dropped') judge.violation(owner, `${line(req)} got no answer: ${describeDrop(o)}`, [req]);
      if (o.kind === 'answered' && o.res.status >= 500)
        judge.violation(owner, `${line(req)} answered ${statusText(o.res)}: a server error`, [req]);
    },
  };
}
