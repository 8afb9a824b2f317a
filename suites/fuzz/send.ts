/**
 * Sending a generated request and sorting the result: answered, refused by our own HTTP client
 * before anything was sent (never the target's fault), or a dropped connection or time-out (the
 * target's fault: ERR-5).
 */
import { METHODS } from 'node:http';
import type { BmcClient, BmcResponse } from '../../client/http.js';
import { ConnectionLostError, InvalidRequestError, TargetTimeoutError, TlsError, UnreachableError } from '../../client/errors.js';
import { unsendable } from '../../client/transport.js';
import type { FuzzRequest } from './requests.js';

export type Outcome = { kind: 'answered'; res: BmcResponse } | { kind: 'not-sent'; reason: string } | { kind: 'dropped'; error: Error };

/** Error codes by which undici or Node refuse to form a request: nothing reached the target. */
const CLIENT_REFUSALS = new Set([
  'UND_ERR_INVALID_ARG',
  'UND_ERR_NOT_SUPPORTED',
  'ERR_INVALID_ARG_TYPE',
  'ERR_INVALID_ARG_VALUE',
  'ERR_INVALID_CHAR',
  'ERR_INVALID_HTTP_TOKEN',
  'ERR_UNESCAPED_CHARACTERS',
  'ERR_HTTP_INVALID_HEADER_VALUE',
]);

function codes(err: unknown, depth = 0, out: string[] = []): string[] {
  if (depth > 6 || err === null || typeof err !== 'object') return out;
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string') out.push(e.code);
  if (Array.isArray(e.errors)) for (const inner of e.errors) codes(inner, depth + 1, out);
  codes(e.cause, depth + 1, out);
  return out;
}

export function isClientRefusal(err: unknown): boolean {
  if (err instanceof InvalidRequestError) return true;
  if (
    err instanceof ConnectionLostError ||
    err instanceof TargetTimeoutError ||
    err instanceof UnreachableError ||
    err instanceof TlsError
  ) {
    return false;
  }
  return codes(err).some((c) => CLIENT_REFUSALS.has(c));
}

/** Counts what was sent, for statistics and the throughput bench. */
export class FuzzStats {
  sent = 0;
  notSent = 0;
  dropped = 0;
  readonly statuses = new Map<number, number>();

  record(o: Outcome): void {
    if (o.kind === 'answered') {
      this.sent++;
      this.statuses.set(o.res.status, (this.statuses.get(o.res.status) ?? 0) + 1);
    } else if (o.kind === 'not-sent') this.notSent++;
    else {
      this.sent++;
      this.dropped++;
    }
  }

  summary(): Record<string, number> {
    const out: Record<string, number> = { sent: this.sent, 'not sent (refused by the client)': this.notSent, dropped: this.dropped };
    for (const [status, n] of [...this.statuses].sort((a, b) => a[0] - b[0])) out[`HTTP ${status}`] = n;
    return out;
  }
}

/** Methods undici sends a body with and keeps the connection open afterwards. */
const PAYLOAD_METHODS = new Set(['PUT', 'POST', 'PATCH', 'QUERY', 'PROPFIND', 'PROPPATCH']);

/**
 * A body on another method (a GET with a body) makes undici 7 close the connection after the
 * answer, and from then on the pool opens a new TLS connection for every request: such requests
 * go through a side client so that the main pool stays fast.
 */
export function needsSideClient(req: Pick<FuzzRequest, 'method' | 'body' | 'path'>): boolean {
  if (req.body !== undefined && !PAYLOAD_METHODS.has(req.method)) return true;
  // Likely to make the server close the connection (unknown method, a request line beyond the
  // usual header limits): a new TLS handshake is cheaper on the side pool than on the main one.
  return !METHODS.includes(req.method) || req.path.length > 8000;
}

/**
 * Requests undici would refuse to form (a method that is no HTTP token, control characters in a
 * header value). They are never handed to the client: undici 7 loses a pooled connection slot on
 * each such refusal, and later requests then wait for a connection until they time out.
 */
export function clientWouldRefuse(req: Pick<FuzzRequest, 'method' | 'contentType'>): string | undefined {
  return unsendable(req.method, req.contentType === undefined ? {} : { 'content-type': req.contentType });
}

export async function sendFuzz(client: BmcClient, req: FuzzRequest, stats?: FuzzStats): Promise<Outcome> {
  let outcome: Outcome;
  const refusal = clientWouldRefuse(req);
  if (refusal) {
    outcome = { kind: 'not-sent', reason: refusal };
    stats?.record(outcome);
    return outcome;
  }
  try {
    const res = await client.request(req.method, req.path, {
      body: req.body,
      contentType: req.contentType,
      auth: req.credentials,
      relogin: req.credentials,
    });
    outcome = { kind: 'answered', res };
  } catch (err) {
    outcome = isClientRefusal(err)
      ? { kind: 'not-sent', reason: (err as Error).message }
      : { kind: 'dropped', error: err instanceof Error ? err : new Error(String(err)) };
  }
  stats?.record(outcome);
  return outcome;
}
