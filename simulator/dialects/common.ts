/**
 * What the two field dialects' request handlers share: the account check, the envelope faults
 * applied on top of a dialect's own envelopes, and plain response helpers.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from '../context.js';
import type { FaultSet } from '../faults.js';

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** The one account the simulator knows (login-any-password: any password of it). */
export function credentialsValid(ctx: Context, user: string, password: string): boolean {
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
