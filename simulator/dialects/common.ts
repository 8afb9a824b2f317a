/**
 * What the two field dialects share: their names and realistic defaults, the context their request
 * handlers work in, and the envelope faults applied on top of a dialect's own envelopes.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Actions } from '../actions.js';
import type { Bus } from '../bus.js';
import type { EventHub } from '../events.js';
import type { FaultSet } from '../faults.js';
import type { Listings } from '../listings.js';
import type { SoftwareRegistry } from '../software.js';
import type { Writer } from '../writes.js';
import type { ServiceQueue } from './service-time.js';

/** bmcweb by version: `bmcweb` is current upstream, `bmcweb@2023` a build of June 2023 (bmcweb/versions.ts). */
export const DIALECTS = ['spec', 'phosphor-rest', 'bmcweb', 'bmcweb@2023'] as const;
export type DialectName = (typeof DIALECTS)[number];
/** The server a dialect is a version of. */
export type DialectFamily = 'spec' | 'phosphor-rest' | 'bmcweb';
/** Other spellings a user may write: the version named outright. */
const ALIASES: Readonly<Record<string, DialectName>> = { 'bmcweb@current': 'bmcweb' };

export function isDialect(name: string): name is DialectName {
  return (DIALECTS as readonly string[]).includes(name);
}

/** A dialect name as written on the command line (`bmcweb@current` is `bmcweb`), or undefined. */
export function parseDialect(name: string): DialectName | undefined {
  return isDialect(name) ? name : ALIASES[name];
}

export function dialectFamily(dialect: DialectName): DialectFamily {
  return dialect === 'bmcweb@2023' ? 'bmcweb' : dialect;
}

export interface DialectDefaults {
  /** Events wait for the server's next poll (phosphor-rest polls its D-Bus loop). */
  eventLatencyMs: number;
  /** A failed or duplicate upload answers only after the server gave up waiting for the version. */
  uploadFailDelayMs: number;
  pingIntervalMs: number;
  /**
   * The server's own time for a plain request, one request served at a time (0: at once, in
   * parallel). The dialect adds to it per kind of request (an enumerate per object it returns).
   */
  requestMs: number;
}

/**
 * phosphor-rest: EventNotifier sleeps 5 s between loop polls, events were measured 0-2 s late;
 * ImageUploadUtils.do_upload polls 10 times a second apart; send_ws_ping every 45 s.
 * One thread serves its requests, one at a time: 10 ms a plain request (a 404, a listing), ~30 ms
 * a GET of an object, more for enumerate, writes and uploads (phosphor/server.ts serviceMs).
 * bmcweb: image_upload.hpp gives up after a 15 s timer; C++, its time per request is not modelled.
 */
export function dialectDefaults(dialect: DialectName): DialectDefaults {
  switch (dialectFamily(dialect)) {
    case 'phosphor-rest':
      return { eventLatencyMs: 2_000, uploadFailDelayMs: 10_000, pingIntervalMs: 45_000, requestMs: 10 };
    case 'bmcweb':
      return { eventLatencyMs: 0, uploadFailDelayMs: 15_000, pingIntervalMs: 20_000, requestMs: 0 };
    default:
      return { eventLatencyMs: 0, uploadFailDelayMs: 0, pingIntervalMs: 20_000, requestMs: 0 };
  }
}

export interface DialectContext {
  bus: Bus;
  faults: FaultSet;
  hub: EventHub;
  writer: Writer;
  listings: Listings;
  actions: Actions;
  registry: SoftwareRegistry;
  namespace: string;
  user: string;
  password: string;
  /** Plain HTTP (the http-plain fault): cookies lose their Secure flag. */
  plain: boolean;
  /** The server's time per request (dialectDefaults' requestMs, or the option's), and its queue. */
  requestMs: number;
  service: ServiceQueue;
  log: (message: string) => void;
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** The one account the simulator knows (login-any-password: any password of it). */
export function credentialsValid(ctx: DialectContext, user: string, password: string): boolean {
  const userOk = timingSafeEqual(digest(user), digest(ctx.user));
  const passwordOk = timingSafeEqual(digest(password), digest(ctx.password)) || ctx.faults.has('login-any-password');
  return userOk && passwordOk;
}

/** The envelope faults of faults.ts, applied to a dialect's own {data, message, status}. */
export function envelopeWithFaults(code: number, env: Record<string, unknown>, faults: FaultSet): Record<string, unknown> {
  const isError = code >= 400;
  const out: Record<string, unknown> = { ...env };
  if (!isError && faults.has('missing-data-member')) delete out.data;
  if ('message' in out) {
    if (faults.has('missing-message-member')) delete out.message;
    else if (isError && faults.has('message-wrong-code')) out.message = '200 OK';
    else if (faults.has('message-without-reason')) out.message = String(code);
  }
  if ('status' in out) {
    if (isError && faults.has('status-ok-on-error')) out.status = 'ok';
    const data = out.data;
    if (!isError && faults.has('status-error-on-success') && data !== null && typeof data === 'object' && !Array.isArray(data)) {
      out.status = 'error';
    }
  }
  const data = out.data as { description?: unknown } | undefined;
  if (isError && data && typeof data === 'object' && 'description' in data) {
    if (faults.has('error-data-string')) out.data = data.description;
    else if (faults.has('error-without-description')) {
      const { description, ...rest } = data;
      out.data = { ...rest, error: description };
    }
  }
  return out;
}

export function contentTypeFor(faults: FaultSet, type = 'application/json'): string {
  return faults.has('text-plain-content-type') ? 'text/plain; charset=utf-8' : type;
}

/** Writes a complete response (a HEAD answer carries the headers only). */
export function send(res: ServerResponse, status: number, body: string, headers: Record<string, string | string[]> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** Sends the answer and closes the connection, as a server that gave up on the request body does. */
export function sendAndClose(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body = '',
  headers: Record<string, string> = {},
): void {
  send(res, status, body, { ...headers, Connection: 'close' });
  res.on('finish', () => setTimeout(() => req.socket.destroy(), 50).unref());
}

/** The query parameter `name` of a request target, if present. */
export function queryParam(url: string | undefined, name: string): string | undefined {
  const q = (url ?? '').indexOf('?');
  if (q < 0) return undefined;
  return new URLSearchParams((url ?? '').slice(q + 1)).get(name) ?? undefined;
}
