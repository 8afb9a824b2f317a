/**
 * AUTH-4: no login body but the right one opens a session. A refused login must hand out no cookie
 * or token that reads the tree.
 */
import type { BmcClient, BmcResponse } from '../../../client/http.js';
import { envelopeOf } from '../../harness/assert.js';
import { leakIn } from '../../harness/leak.js';
import { boundaryLoginCases, loginCaseArb, type Credentials, type LoginCase } from '../login.js';
import { loginRequest, type FuzzRequest } from '../requests.js';
import type { FuzzProperty } from '../runner.js';
import { sendFuzz } from '../send.js';
import { isMap, isSuccess, statusText, takeLoginFailure, type FuzzEnv } from './common.js';

/** Cookie header made of every cookie a response set, whatever its status. */
function cookiesOf(res: BmcResponse): string | undefined {
  const raw = res.headers['set-cookie'];
  const all = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const pairs = all.map((c) => c.split(';')[0]!.trim()).filter((p) => p.includes('=') && !/=\s*$/.test(p));
  return pairs.length > 0 ? pairs.join('; ') : undefined;
}

export function loginRequestOf(who: Credentials, c: LoginCase): FuzzRequest {
  return loginRequest('/login', c, who);
}

export function loginProperty(env: FuzzEnv, loginClient: BmcClient): FuzzProperty<LoginCase> {
  return {
    key: 'auth4',
    requirements: ['AUTH-4'],
    requestsPerRun: 1.2,
    arbitrary: loginCaseArb(env.who),
    examples: boundaryLoginCases(env.who),
    reproOf: (c) => [loginRequestOf(env.who, c)],
    predicate: async (c, judge) => {
      const req = loginRequestOf(env.who, c);
      if (req.namesUser && !takeLoginFailure(env)) return;
      const o = await sendFuzz(loginClient, req, env.stats);
      if (o.kind !== 'answered') return;
      const res = o.res;
      if (isSuccess(res.status)) {
        judge.violation('AUTH-4', `POST /login with a wrong or malformed body answered ${statusText(res)}`, [req]);
        return;
      }
      const cookie = cookiesOf(res);
      const data = envelopeOf(res)?.data;
      const token = isMap(data) && typeof data.token === 'string' ? data.token : undefined;
      if (!cookie && !token) return;
      const headers: Record<string, string> = {};
      if (cookie) headers.cookie = cookie;
      if (token) headers['x-auth-token'] = token;
      const probe = await loginClient.request('GET', env.knownGood, { auth: false, relogin: false, headers });
      env.stats.sent++;
      if (isSuccess(probe.status) || leakIn(probe, { path: env.knownGood }, env.model.knowledge)) {
        judge.violation(
          'AUTH-4',
          `POST /login was refused (${res.status}) but the ${cookie ? 'cookie' : 'token'} it handed out reads GET ${env.knownGood} (${probe.status})`,
          [req],
        );
      }
    },
  };
}
