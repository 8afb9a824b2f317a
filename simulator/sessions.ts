/**
 * Cookie sessions. Login hands out `sid=<64 hex>`; logout forgets it server-side, so a client that
 * replays the old cookie is refused.
 */
import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { HttpError } from './envelope.js';
import type { FaultSet } from './faults.js';

export const SESSION_COOKIE = 'sid';
/** Oldest sessions are forgotten beyond this many, so endless logins cannot exhaust memory. */
const MAX_SESSIONS = 4096;

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

export class Sessions {
  private readonly live = new Map<string, { user: string; since: number }>();
  private readonly endListeners: ((sid: string) => void)[] = [];

  constructor(
    private readonly user: string,
    private readonly password: string,
    private readonly faults: FaultSet,
  ) {}

  /** Validates `{"data": [user, password]}` and returns a new session id. */
  login(body: unknown): string {
    const data = (body as { data?: unknown } | null)?.data;
    if (
      body === null ||
      typeof body !== 'object' ||
      Array.isArray(body) ||
      !Array.isArray(data) ||
      data.length !== 2 ||
      typeof data[0] !== 'string' ||
      typeof data[1] !== 'string'
    ) {
      throw new HttpError(400, 'Login body must be {"data": [username, password]}');
    }
    const [user, password] = data as [string, string];
    const userOk = timingSafeEqual(digest(user), digest(this.user));
    const passwordOk =
      timingSafeEqual(digest(password), digest(this.password)) || this.faults.has('login-any-password');
    if (!userOk || !passwordOk) throw new HttpError(401, 'Invalid username or password');

    const sid = randomBytes(32).toString('hex');
    this.live.set(sid, { user, since: Date.now() });
    if (this.live.size > MAX_SESSIONS) {
      const oldest = this.live.keys().next().value as string;
      this.end(oldest);
    }
    return sid;
  }

  /** `secure` is false only when the http-plain fault serves plain HTTP, where Secure cookies would be dropped. */
  cookieFor(sid: string, secure = true): string {
    return `${SESSION_COOKIE}=${sid}; Path=/;${secure ? ' Secure;' : ''} HttpOnly; SameSite=Strict`;
  }

  logout(sid: string): void {
    if (this.faults.has('logout-keeps-session')) return;
    this.end(sid);
  }

  /** The valid session id carried by a Cookie header, if any. */
  fromCookieHeader(header: string | string[] | undefined): string | undefined {
    if (!header) return undefined;
    const text = Array.isArray(header) ? header.join(';') : header;
    for (const part of text.split(';')) {
      const eq = part.indexOf('=');
      if (eq < 0) continue;
      if (part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
      const value = part.slice(eq + 1).trim();
      if (this.live.has(value)) return value;
    }
    return undefined;
  }

  /** Called with a session id when it ends (logout or eviction): event sockets close with it. */
  onEnd(listener: (sid: string) => void): void {
    this.endListeners.push(listener);
  }

  private end(sid: string): void {
    if (!this.live.delete(sid)) return;
    for (const l of this.endListeners) l(sid);
  }
}
