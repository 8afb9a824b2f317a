/**
 * Session capacity (destructive profile only: on a real BMC the logins it makes can evict other
 * users' sessions): log in again and again until a login is refused or the oldest session of the
 * probe stops working, up to a bound; every session the probe made is logged out afterwards.
 */
import type { BmcClient } from '../../client/http.js';
import { SessionCookies } from '../../client/cookies.js';

export interface SessionCapacity {
  /** Sessions held at once before the first refusal or eviction (or the bound). */
  sessions: number;
  stoppedBy: 'refused' | 'evicted' | 'bound' | 'interrupted';
  detail: string;
  bound: number;
  loggedOut: number;
}

interface Held {
  cookie: string;
  xsrf?: string;
}

export async function measureSessionCapacity(
  client: BmcClient,
  opts: { user: string; password: string; namespace: string; bound: number; signal?: AbortSignal },
): Promise<SessionCapacity> {
  // A prober without a session of its own: every request carries exactly the session it tests.
  const prober = client.fork({ max503Retries: 0, connections: 1 });
  const probePath = `/xyz/${opts.namespace}/`;
  const held: Held[] = [];
  const works = async (s: Held): Promise<boolean> =>
    (await prober.get(probePath, { auth: false, relogin: false, headers: { cookie: s.cookie } })).status === 200;
  let stoppedBy: SessionCapacity['stoppedBy'] = 'bound';
  let detail = `every one of ${opts.bound} logins kept its session`;
  try {
    for (let i = 0; i < opts.bound; i++) {
      if (opts.signal?.aborted) {
        stoppedBy = 'interrupted';
        detail = `interrupted after ${held.length} logins`;
        break;
      }
      const res = await prober.tryLogin({ data: [opts.user, opts.password] }, { store: false });
      if (res.status < 200 || res.status > 299) {
        stoppedBy = 'refused';
        detail = `login ${i + 1} was refused (${res.statusLine})`;
        break;
      }
      const jar = new SessionCookies(client.baseUrl);
      jar.store(res.headers['set-cookie'], '/login');
      const session: Held = { cookie: jar.header(probePath), xsrf: jar.xsrfToken() };
      held.push(session);
      if (!(await works(session))) {
        stoppedBy = 'refused';
        detail = `login ${i + 1} answered ${res.statusLine} but its session does not work`;
        held.pop();
        break;
      }
      if (!(await works(held[0]!))) {
        stoppedBy = 'evicted';
        detail = `login ${i + 1} evicted the oldest session of the probe`;
        break;
      }
    }
    const sessions = stoppedBy === 'evicted' ? held.length - 1 : held.length;
    return { sessions, stoppedBy, detail, bound: opts.bound, loggedOut: await logoutAll(prober, held) };
  } finally {
    await prober.close();
  }
}

async function logoutAll(prober: BmcClient, held: Held[]): Promise<number> {
  let n = 0;
  for (const s of held) {
    const headers: Record<string, string> = { cookie: s.cookie, ...(s.xsrf && { 'x-xsrf-token': s.xsrf }) };
    const res = await prober
      .request('POST', '/logout', { json: { data: [] }, auth: false, relogin: false, headers })
      .catch(() => undefined);
    if (res && res.status >= 200 && res.status < 300) n++;
  }
  return n;
}
