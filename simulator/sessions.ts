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

/** `{"username", "password"}` read as the spec's body; the spec's own body becomes unreadable. */
function usernamePasswordAsData(body: unknown): unknown {
  const b = body as { username?: unknown; password?: unknown; data?: unknown } | null;
  if (b === null || typeof b !== 'object' || Array.isArray(b) || 'data' in b) return {};
  return { data: [b.username, b.password] };
}

export class Sessions {
  private readonly live = new Map<string, { user: string; since: number }>();
  private readonly endListeners: ((sid: string) => void)[] = [];

  constructor(
    private readonly user: string,
    private readonly password: string,
    private readonly faults: FaultSet,
  ) {}

  /**
   * Validates `{"data": [user, password]}` and returns a new session id. `requested` is the id the
   * client's Cookie header proposed: only the session-fixation fault adopts it.
   */
  login(body: unknown, requested?: string): string {
    // login-spec-body-refused: only {"username", "password"} is taken, as newer bmcweb does.
    if (this.faults.has('login-spec-body-refused')) body = usernamePasswordAsData(body);
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
      timingSafeEqual(digest(password), digest(this.password)) ||
      this.faults.has('login-any-password') ||
      // login-password-prefix: a password is compared over the length of the right one only.
      (this.faults.has('login-password-prefix') && password.startsWith(this.password));
    if (!userOk || !passwordOk) throw new HttpError(401, 'Invalid username or password');

    const adopt =
      requested !== undefined && /^[0-9a-f]{64}$/.test(requested) && !this.live.has(requested) && this.faults.has('session-fixation');
    // session-id-reused: the id of the session that ended last is issued again.
    const reuse =
      this.faults.has('session-id-reused') && this.lastEnded !== undefined && !this.live.has(this.lastEnded) ? this.lastEnded : undefined;
    const sid = adopt ? requested : (reuse ?? randomBytes(32).toString('hex'));
    // second-login-dead: while the user has a session, a further login is answered with a cookie of no session.
    const userBusy = [...this.live.values()].some((s) => s.user === user);
    if (userBusy && this.faults.has('second-login-dead')) return sid;
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
    // logout-ends-newest-session: the most recent login ends, whoever asked.
    this.end(this.faults.has('logout-ends-newest-session') ? [...this.live.keys()].at(-1)! : sid);
  }

  /**
   * The valid session id carried by a Cookie header, if any. `prefixOnly` (the *-prefix-match
   * faults) takes a value whose first half names a live session.
   */
  fromCookieHeader(header: string | string[] | undefined, prefixOnly = this.faults.has('session-prefix-match')): string | undefined {
    for (const value of this.cookieValues(header)) {
      if (this.live.has(value)) return value;
      if (prefixOnly) {
        for (const sid of this.live.keys()) if (value.slice(0, 32) === sid.slice(0, 32)) return sid;
      }
    }
    return undefined;
  }

  /**
   * The session a WebSocket handshake's Cookie header opens a socket for, if any: the same rule as
   * HTTP, unless a fault widens it (the *-prefix-match faults, the *-cookie-subscribes faults).
   */
  handshakeSession(header: string | string[] | undefined): string | undefined {
    const prefix = this.faults.has('session-prefix-match') || this.faults.has('subscribe-session-prefix-match');
    const sid = this.fromCookieHeader(header, prefix);
    if (sid) return sid;
    // ended-cookie-subscribes: a logged-out session's cookie still opens a socket.
    if (this.faults.has('ended-cookie-subscribes')) return this.endedIn(header);
    // tampered-cookie-subscribes: the handshake looks at the cookie's shape only.
    if (this.faults.has('tampered-cookie-subscribes')) return this.shapedIn(header);
    return undefined;
  }

  /** A session cookie value of the right shape (64 hex digits) in this header, live or not. */
  shapedIn(header: string | string[] | undefined): string | undefined {
    return this.cookieValues(header).find((v) => /^[0-9a-f]{64}$/.test(v));
  }

  /** The values of the session cookie in a Cookie header, in order. */
  cookieValues(header: string | string[] | undefined): string[] {
    if (!header) return [];
    const text = Array.isArray(header) ? header.join(';') : header;
    const out: string[] = [];
    for (const part of text.split(';')) {
      const eq = part.indexOf('=');
      if (eq >= 0 && part.slice(0, eq).trim() === SESSION_COOKIE) out.push(part.slice(eq + 1).trim());
    }
    return out;
  }

  /** Called with a session id when it ends (logout or eviction): event sockets close with it. */
  onEnd(listener: (sid: string) => void): void {
    this.endListeners.push(listener);
  }

  /** Only read by the session-id-reused fault. */
  private lastEnded?: string;
  /** Sessions that ended, the most recent last (only read by the logout-ends-reads-only fault). */
  private readonly ended = new Set<string>();

  /** A session that ended (logout or eviction) whose cookie this header still carries. */
  endedIn(header: string | string[] | undefined): string | undefined {
    return this.cookieValues(header).find((v) => this.ended.has(v));
  }

  private end(sid: string): void {
    if (!this.live.delete(sid)) return;
    this.lastEnded = sid;
    this.ended.add(sid);
    if (this.ended.size > 64) this.ended.delete(this.ended.values().next().value as string);
    for (const l of this.endListeners) l(sid);
  }
}
