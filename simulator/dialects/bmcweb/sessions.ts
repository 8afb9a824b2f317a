/**
 * bmcweb's session store and request authentication (include/sessions.hpp SessionStore,
 * include/authentication.hpp authenticate, include/cookies.hpp):
 *
 * - a session has a 20-character alphanumeric token and a separate 20-character CSRF token; it
 *   expires after an hour without use; there is no cap on the number of sessions;
 * - a request authenticates by, in order: `X-Auth-Token: <token>`; the session cookie
 *   (`BMCWEB-SESSION`, before 2025 `SESSION`),
 *   which for every method but GET also needs `X-XSRF-TOKEN` equal to the CSRF token (the
 *   `XSRF-TOKEN` cookie); `Authorization: Token <token>`; `Authorization: Basic` (one session per
 *   user and client address).
 */
import { randomInt } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const TOKEN_SIZE = 20;
const ALPHANUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Not bmcweb's: the simulator forgets the oldest sessions beyond this many, so logins cannot exhaust memory. */
const MEMORY_BOUND = 4096;

export interface BmcwebSession {
  token: string;
  csrf: string;
  user: string;
  kind: 'session' | 'basic';
  clientIp: string;
  lastUsed: number;
  /** Set for good once the session authenticated a request by cookie: the WebSocket then wants the CSRF token. */
  cookieAuth: boolean;
}

function randomToken(n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += ALPHANUM[randomInt(ALPHANUM.length)];
  return out;
}

/** The session cookie as a version names it, and whether its cookies carry `Path=/`. */
export interface SessionCookieStyle {
  name: string;
  path: boolean;
}

export class BmcwebSessions {
  private readonly byToken = new Map<string, BmcwebSession>();

  constructor(
    readonly cookie: SessionCookieStyle = { name: 'BMCWEB-SESSION', path: true },
    private readonly idleTimeoutMs = 3_600_000,
  ) {}

  /** login_routes.hpp / cookies.hpp setSessionCookies. */
  cookiesFor(session: BmcwebSession, secure: boolean): string[] {
    const attrs = this.cookieAttributes(secure);
    return [`XSRF-TOKEN=${session.csrf}${attrs}`, `${this.cookie.name}=${session.token}${attrs}; HttpOnly`];
  }

  /** handleLogout / cookies.hpp clearSessionCookies. */
  clearedCookie(secure: boolean): string {
    return `${this.cookie.name}=${this.cookieAttributes(secure)}; HttpOnly; expires=Thu, 01 Jan 1970 00:00:00 GMT`;
  }

  private cookieAttributes(secure: boolean): string {
    return `${this.cookie.path ? '; Path=/' : ''}; SameSite=Strict${secure ? '; Secure' : ''}`;
  }

  create(user: string, kind: 'session' | 'basic', clientIp: string): BmcwebSession {
    const session: BmcwebSession = {
      token: randomToken(TOKEN_SIZE),
      csrf: randomToken(TOKEN_SIZE),
      user,
      kind,
      clientIp,
      lastUsed: Date.now(),
      cookieAuth: false,
    };
    this.byToken.set(session.token, session);
    if (this.byToken.size > MEMORY_BOUND) this.byToken.delete(this.byToken.keys().next().value as string);
    return session;
  }

  remove(session: BmcwebSession): void {
    this.byToken.delete(session.token);
  }

  get count(): number {
    return this.byToken.size;
  }

  /** loginSessionByToken: only a 20-character token can name a session; use keeps it alive. */
  byTokenValue(token: string): BmcwebSession | undefined {
    if (token.length !== TOKEN_SIZE) return undefined;
    const now = Date.now();
    for (const [t, s] of this.byToken) if (now - s.lastUsed >= this.idleTimeoutMs) this.byToken.delete(t);
    const session = this.byToken.get(token);
    if (session) session.lastUsed = now;
    return session;
  }

  basicFor(user: string, clientIp: string): BmcwebSession | undefined {
    for (const s of this.byToken.values()) if (s.kind === 'basic' && s.user === user && s.clientIp === clientIp) return s;
    return undefined;
  }
}

function header(req: IncomingMessage, name: string): string {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : (v ?? '');
}

/** authentication.hpp authenticate(): the session a request carries, if any. */
export function authenticate(
  sessions: BmcwebSessions,
  req: IncomingMessage,
  checkPassword: (user: string, password: string) => boolean,
): BmcwebSession | undefined {
  const xToken = header(req, 'x-auth-token');
  let session = xToken ? sessions.byTokenValue(xToken) : undefined;
  session ??= cookieSession(sessions, req);
  if (session) return session;
  const auth = header(req, 'authorization');
  if (auth.startsWith('Token ')) return sessions.byTokenValue(auth.slice('Token '.length));
  if (auth.startsWith('Basic ')) {
    const b64 = auth.slice('Basic '.length);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) return undefined;
    const text = Buffer.from(b64, 'base64').toString('utf8');
    const colon = text.indexOf(':');
    if (colon < 0) return undefined;
    const user = text.slice(0, colon);
    if (!checkPassword(user, text.slice(colon + 1))) return undefined;
    const ip = req.socket.remoteAddress ?? '';
    return sessions.basicFor(user, ip) ?? sessions.create(user, 'basic', ip);
  }
  return undefined;
}

/** performCookieAuth: the first `<name>=` decides (a substring find); non-GET requests need the CSRF header. */
function cookieSession(sessions: BmcwebSessions, req: IncomingMessage): BmcwebSession | undefined {
  const cookies = header(req, 'cookie');
  const key = `${sessions.cookie.name}=`;
  const at = cookies.indexOf(key);
  if (at < 0) return undefined;
  const start = at + key.length;
  const end = cookies.indexOf(';', start);
  const session = sessions.byTokenValue(cookies.slice(start, end < 0 ? undefined : end));
  if (!session) return undefined;
  session.cookieAuth = true;
  if (req.method !== 'GET') {
    const csrf = header(req, 'x-xsrf-token');
    if (csrf.length !== TOKEN_SIZE || csrf !== session.csrf) return undefined;
  }
  return session;
}
