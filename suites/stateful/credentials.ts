/**
 * Session credentials as the stateful checks handle them: the cookies one login set, variants of
 * them (cut, lengthened, one character changed, chosen by the client), and the three channels they
 * are tried on: an HTTP read, an upload, the WebSocket handshake.
 */
import { randomInt } from 'node:crypto';
import { SessionCookies, XSRF_COOKIE } from '../../client/cookies.js';
import type { BmcClient, BmcResponse } from '../../client/http.js';
import { EventSubscriber } from '../../client/subscriber.js';

export const TAMPERS = ['truncated', 'extended', 'altered'] as const;
export type Tamper = (typeof TAMPERS)[number];

export const CHANNELS = ['HTTP', 'upload', 'WebSocket'] as const;
export type Channel = (typeof CHANNELS)[number];

/** What a channel taking a request with no credentials or a forged cookie breaks, by channel. */
export const TAKEN_BREAKS: Readonly<Record<Channel, string>> = { HTTP: 'AUTH-1', upload: 'AUTH-2', WebSocket: 'AUTH-3' };

/** A cookie as the client's cookie jar holds it (tough-cookie's key and value). */
export interface Cookie {
  key: string;
  value: string;
}

const CLASSES = ['0123456789abcdef', 'ghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'];

/** Another character of the same kind (hex digit, letter), so a server's format check still passes. */
export function otherCharacter(c: string): string {
  const set = CLASSES.find((s) => s.includes(c));
  return set ? set[(set.indexOf(c) + 1) % set.length]! : c === 'A' ? 'B' : 'A';
}

function randomLike(c: string): string {
  const set = CLASSES.find((s) => s.includes(c)) ?? CLASSES[0]!;
  return set[randomInt(set.length)]!;
}

function splitQuotes(value: string): { inner: string; wrap: (s: string) => string } {
  const quoted = value.length >= 2 && value.startsWith('"') && value.endsWith('"');
  return quoted ? { inner: value.slice(1, -1), wrap: (s) => `"${s}"` } : { inner: value, wrap: (s) => s };
}

/** The cookie value changed as `how` says; quotes around it stay. */
export function tamperValue(value: string, how: Tamper): string {
  const { inner, wrap } = splitQuotes(value);
  if (how === 'truncated') return wrap(inner.slice(0, -1));
  if (how === 'extended') return wrap(inner + otherCharacter(inner.at(-1) ?? 'a'));
  const at = Math.floor(inner.length / 2);
  return wrap(inner.slice(0, at) + otherCharacter(inner[at] ?? 'a') + inner.slice(at + 1));
}

/** A value of the same shape as `like` (length, kinds of characters, quotes) that no server issued. */
export function chosenValue(like: string): string {
  const { inner, wrap } = splitQuotes(like);
  return wrap([...inner].map(randomLike).join(''));
}

/** The cookies of one session (or a variant of them), and how a printed curl line names them. */
export class Credential {
  constructor(
    readonly cookies: readonly Cookie[],
    /** The shell variable a printed curl line uses for these cookies, e.g. $COOKIE_A. */
    readonly shown: string,
  ) {}

  static fromLogin(res: BmcResponse, baseUrl: string, shown: string): Credential {
    return new Credential(new SessionCookies(baseUrl).store(res.headers['set-cookie'], '/login'), shown);
  }

  /** The cookies that identify the session (all but the XSRF token). */
  get session(): Cookie[] {
    return this.cookies.filter((c) => c.key !== XSRF_COOKIE);
  }

  /** Whether the two carry a session cookie of the same name and value. */
  sharesSession(other: Credential): boolean {
    return this.session.some((c) => other.session.some((o) => o.key === c.key && o.value === c.value));
  }

  get xsrf(): string | undefined {
    return this.cookies.find((c) => c.key === XSRF_COOKIE)?.value;
  }

  get header(): string {
    return this.cookies.map((c) => `${c.key}=${c.value}`).join('; ');
  }

  tampered(how: Tamper): Credential {
    return new Credential(
      this.cookies.map((c) => (c.key === XSRF_COOKIE ? c : { key: c.key, value: tamperValue(c.value, how) })),
      `${this.shown}_${how.toUpperCase()}`,
    );
  }

  /** Session cookies of the same names and shapes with values the client made up. */
  chosen(shown: string): Credential {
    return new Credential(
      this.session.map((c) => ({ key: c.key, value: chosenValue(c.value) })),
      shown,
    );
  }

  /** Headers that send exactly these cookies (and the XSRF echo a non-GET request needs on bmcweb). */
  headers(method: string): Record<string, string> {
    const out: Record<string, string> = { cookie: this.header };
    if (this.xsrf && method !== 'GET') out['x-xsrf-token'] = this.xsrf;
    return out;
  }

  /** A client whose cookie jar holds exactly these cookies: the WebSocket handshake takes them from there. */
  client(base: BmcClient): BmcClient {
    const jar = new SessionCookies(base.baseUrl);
    jar.store(
      this.cookies.map((c) => `${c.key}=${c.value}; Path=/`),
      '/',
    );
    return base.fork({ cookies: jar.serialize() });
  }
}

/** What one probe of a channel found: accepted means the request was treated as authenticated. */
export interface Probe {
  accepted: boolean;
  /** The answer, for messages: "200 OK", "401 Unauthorized", "handshake refused (401)"… */
  answer: string;
}

export function describeOutcome(outcome: Awaited<ReturnType<typeof EventSubscriber.tryOpen>>): string {
  if (outcome.kind === 'open') return 'the socket opened and stayed open';
  if (outcome.kind === 'refused') return `handshake refused (${outcome.status ?? 'no status'})`;
  return `socket closed (${outcome.code})`;
}
