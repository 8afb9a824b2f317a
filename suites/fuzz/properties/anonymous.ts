/**
 * AUTH-1 AUTH-5: a request without credentials is refused (AUTH-1), and the refusal carries nothing
 * of the tree the request did not carry (AUTH-5, judged by the leak oracle in ../../leak.ts).
 */
import { leakIn } from '../../harness/leak.js';
import { anonymousRequestArb, type FuzzRequest } from '../requests.js';
import type { FuzzProperty } from '../runner.js';
import { API_METHODS, asSent, isSuccess, line, send, statusText, type FuzzEnv } from './common.js';

export function anonymousProperty(env: FuzzEnv): FuzzProperty<FuzzRequest> {
  return {
    key: 'auth1',
    requirements: ['AUTH-1', 'AUTH-5'],
    requestsPerRun: 1,
    arbitrary: anonymousRequestArb({
      model: env.model,
      profile: env.profile,
      who: env.who,
      writable: env.writable,
      allowReset: env.allowReset,
    }),
    reproOf: asSent,
    predicate: async (req, judge) => {
      const o = await send(env, req);
      if (o.kind !== 'answered') return;
      // OPTIONS, TRACE and the like may be answered by the HTTP layer (Allow, an echo): for them
      // only object data counts; a request of the interface must be refused outright.
      if (isSuccess(o.res.status) && API_METHODS.has(req.method)) {
        judge.violation('AUTH-1', `${line(req)} without credentials answered ${statusText(o.res)}: not refused`, [req]);
        return; // what a success carries is AUTH-1's failure, not a leak of a refusal
      }
      const leak = leakIn(o.res, req, env.model.knowledge);
      if (leak) judge.violation('AUTH-5', `${line(req)} without credentials answered ${o.res.status} and ${leak}`, [req]);
    },
  };
}
