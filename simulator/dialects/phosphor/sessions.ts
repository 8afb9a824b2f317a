/**
 * phosphor-rest-server sessions (rest_dbus.py SessionHandler): at most MAX_SESSIONS = 16, newest
 * first; the 17th login silently pops the oldest. The cookie `sid` is bottle's signed cookie
 * (`!<base64 HMAC>?<base64 payload>`, quoted because '?', '=' and '/' are not cookie-safe), set with
 * secure=True and httponly=True and no Path; logout sends bottle's delete_cookie.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const MAX_SESSIONS = 16;

export interface PhosphorSession {
  sid: string;
  user: string;
}

export class PhosphorSessions {
  /** Newest first, as session_store.insert(0, ...). */
  private readonly store: PhosphorSession[] = [];
  private readonly key = randomBytes(128);

  login(user: string): PhosphorSession {
    if (this.store.length >= MAX_SESSIONS) this.store.pop();
    const payload = randomBytes(48).toString('base64');
    const sig = createHmac('md5', this.key).update(payload).digest('base64');
    const session = { sid: `!${sig}?${payload}`, user };
    this.store.unshift(session);
    return session;
  }

  logout(session: PhosphorSession): void {
    const at = this.store.indexOf(session);
    if (at >= 0) this.store.splice(at, 1);
  }

  get count(): number {
    return this.store.length;
  }

  /** The session named by the last `sid` cookie of the request, if it is live. */
  fromCookieHeader(header: string | string[] | undefined): PhosphorSession | undefined {
    if (!header) return undefined;
    const text = Array.isArray(header) ? header.join('; ') : header;
    let value: string | undefined;
    for (const part of text.split(';')) {
      const eq = part.indexOf('=');
      if (eq < 0 || part.slice(0, eq).trim() !== 'sid') continue;
      value = part.slice(eq + 1).trim();
    }
    if (value === undefined) return undefined;
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1).replace(/\\(.)/g, '$1');
    return this.store.find((s) => s.sid === value);
  }

  static setCookie(session: PhosphorSession, secure: boolean): string {
    return `sid="${session.sid}"; HttpOnly${secure ? '; Secure' : ''}`;
  }

  static deleteCookie(): string {
    return 'sid=""; expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=-1';
  }
}
