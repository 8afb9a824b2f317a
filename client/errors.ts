/**
 * Errors the client throws. Each message is one self-contained sentence: the CLI prints
 * `.message` as is and exits with code 2.
 */

/** Base class, so callers can tell target/transport trouble from programming errors. */
/** The message of anything thrown: an Error's own, or the thing itself as text. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class BmcClientError extends Error {
  /**
   * Set when the network under the interface failed (no complete answer arrived): a few words
   * naming what was seen ("connection reset", "answer truncated"). Absent for answers the target
   * gave, which are findings about it.
   */
  readonly fault?: string;

  constructor(message: string, options?: { cause?: unknown; fault?: string }) {
    super(message, options);
    this.name = new.target.name;
    if (options?.fault !== undefined) this.fault = options.fault;
  }
}

/** The target could not be reached at all (refused, unknown host, no route, connect timeout). */
export class UnreachableError extends BmcClientError {
  /** What the connection attempt met: "connection refused". */
  readonly reason: string;

  constructor(message: string, reason: string, options?: { cause?: unknown; fault?: string }) {
    super(message, options);
    this.reason = reason;
  }
}

/** The TLS handshake failed (certificate not trusted, wrong name, not a TLS server). */
export class TlsError extends BmcClientError {}

/** The target accepted the connection but did not answer within the limit. */
export class TargetTimeoutError extends BmcClientError {}

/** The connection broke before a complete response arrived. */
export class ConnectionLostError extends BmcClientError {}

/** The status line and headers arrived, then the connection closed before the whole body. */
export class TruncatedResponseError extends ConnectionLostError {}

/** The answer was longer than the client keeps (`maxResponseBytes`): it was cut off, not buffered. */
export class ResponseTooLargeError extends BmcClientError {}

/** A time the target could not be reached: from when, for how long, why, and whether it came back. */
export interface Outage {
  /** ISO time of the first failure. */
  from: string;
  durationMs: number;
  /** What the connection attempts met ("connection refused"). */
  cause: string;
  back: boolean;
}

/**
 * A session that worked stopped working without a logout of ours: the target restarted, or
 * expired or evicted it. The run logs in again and goes on; reports say it happened.
 */
export interface SessionLoss {
  /** ISO time of the answer that showed it. */
  at: string;
  /** The request that met it, and its answer. */
  method: string;
  path: string;
  status: number;
}

/** One sentence for all the sessions the target dropped: how many, the first, what the run did. */
export function sessionLossLines(losses: readonly SessionLoss[]): string[] {
  const first = losses[0];
  if (!first) return [];
  const times = losses.length === 1 ? 'once' : `${losses.length} times`;
  return [
    `The target stopped accepting a working session without a logout ${times} (first at ${first.at}: ${first.method} ${first.path} answered ${first.status}): it restarted, or expired or evicted the session; the run logged in again each time and judged on.`,
  ];
}

/** "from 12:01:03 for 41 s", or "since 12:01:03 (waited 300 s)" when the target did not come back. */
export function outageText(o: Pick<Outage, 'from' | 'durationMs' | 'back'>): string {
  const clock = new Date(o.from).toTimeString().slice(0, 8);
  const seconds = formatLimit(Math.round(o.durationMs / 100) * 100);
  return o.back ? `from ${clock} for ${seconds}` : `since ${clock} (waited ${seconds})`;
}

/**
 * The target was unreachable and the client waited for it to come back (a reboot): the request got
 * no answer. `outage.back` says whether the target answers again.
 */
export class TargetDownError extends UnreachableError {
  constructor(readonly outage: Outage) {
    const seen = `${outageText(outage)} (${outage.cause})`;
    super(
      outage.back
        ? `The target was unreachable ${seen}; it answers again, but this request got no answer.`
        : `The target has been unreachable ${seen}; the run no longer waits for it.`,
      outage.cause,
      { fault: `target unreachable ${seen}` },
    );
  }
}

/** The run was interrupted (SIGINT, SIGTERM) while this request was in flight: it was abandoned. */
export class InterruptedError extends BmcClientError {
  constructor(readonly reason: string) {
    super(`${reason.charAt(0).toUpperCase()}${reason.slice(1)}: the request was abandoned.`, { fault: reason });
  }
}

/** The target refused the login with the configured credentials. */
export class LoginRefusedError extends BmcClientError {
  constructor(
    readonly user: string,
    readonly status: number,
    readonly statusLine: string,
  ) {
    super(`Login as ${user} was refused (${statusLine}).`);
  }
}

/** A WebSocket subscription was refused or closed when it had to stay open. */
export class SubscriptionError extends BmcClientError {}

/** A request that cannot be put on the wire at all: it was never sent. */
export class InvalidRequestError extends BmcClientError {}

/**
 * Why a test stopped by a network fault, with no finding of its own, is not judged: the fault, how
 * many of the test's requests (`exchanges`, its evidence) got no complete answer, and the last
 * error. Undefined for any other error, which stays a finding.
 */
export function networkFaultReason(err: unknown, exchanges: ReadonlyArray<{ error?: string }>): string | undefined {
  if (!(err instanceof BmcClientError) || err.fault === undefined) return undefined;
  if (err instanceof InterruptedError) return `not judged: ${err.reason} while this test ran`;
  const failed = Math.max(1, exchanges.filter((x) => x.error !== undefined).length);
  const count = exchanges.length > 0 ? ` on ${failed} of ${exchanges.length} requests` : '';
  return `not judged: ${err.fault}${count} (${err.message})`;
}

/**
 * For a test that stopped at a prerequisite it could not read: which of its requests got no
 * complete answer (the network may be why), as "; no complete answer to 3 of 3 requests (…)", or ''.
 */
export function networkFaultNote(exchanges: ReadonlyArray<{ error?: string }>): string {
  const failed = exchanges.filter((x) => x.error !== undefined);
  if (failed.length === 0) return '';
  return `; no complete answer to ${failed.length} of ${exchanges.length} requests (${failed.at(-1)!.error})`;
}

/** Context that lets a classified error name the request it broke. */
export interface RequestContext {
  method?: string;
  path?: string;
  timeoutMs?: number;
  /** How far the answer had come when the exchange failed. */
  progress?: { answered: boolean; bytes: number; announced?: number };
}

/** Formats a duration limit for messages: "250 ms", "10 s", "2.5 s". */
export function formatLimit(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}

const TLS_REASONS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate; pass --insecure to accept it',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed certificate in the chain; pass --insecure to accept it',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the certificate is not signed by a trusted authority; pass --insecure to accept it',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'the certificate issuer is unknown; pass --insecure to accept it',
  UNABLE_TO_GET_ISSUER_CERT: 'the certificate issuer is unknown; pass --insecure to accept it',
  CERT_HAS_EXPIRED: 'the certificate has expired; pass --insecure to accept it',
  CERT_NOT_YET_VALID: 'the certificate is not yet valid (check the clock); pass --insecure to accept it',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate does not name this host; pass --insecure to accept it',
  CERT_SIGNATURE_FAILURE: 'the certificate signature is invalid',
  ERR_SSL_WRONG_VERSION_NUMBER: 'the port does not speak TLS (an http:// server?); check the URL scheme and port',
  ERR_SSL_PACKET_LENGTH_TOO_LONG: 'the port does not speak TLS (an http:// server?); check the URL scheme and port',
  ERR_SSL_UNSUPPORTED_PROTOCOL: 'no TLS version in common with the target',
  ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION: 'no TLS version in common with the target',
  ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE: 'no cipher or protocol in common with the target',
};

const UNREACHABLE_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EHOSTDOWN: 'host is down',
  EADDRNOTAVAIL: 'address not available',
  UND_ERR_CONNECT_TIMEOUT: 'no answer to the connection attempt',
  ETIMEDOUT: 'the connection attempt timed out',
};

const LOST_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'ECONNABORTED', 'UND_ERR_CLOSED']);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Collects error codes and messages through `cause` chains and AggregateErrors. */
function collect(err: unknown, out: { codes: string[]; messages: string[] }, depth = 0): void {
  if (depth > 5 || err === null || typeof err !== 'object') return;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string') out.codes.push(e.code);
  if (typeof e.message === 'string') out.messages.push(e.message);
  if (Array.isArray(e.errors)) for (const inner of e.errors) collect(inner, out, depth + 1);
  collect(e.cause, out, depth + 1);
}

function describeRequest(ctx: RequestContext): string {
  return ctx.method && ctx.path !== undefined ? `${ctx.method} ${ctx.path}` : 'the request';
}

/**
 * Maps a transport failure to an error with a plain-sentence message. Already classified errors
 * are returned unchanged.
 */
export function classifyNetworkError(err: unknown, baseUrl: string, ctx: RequestContext = {}): BmcClientError {
  if (err instanceof BmcClientError) return err;
  const found = { codes: [] as string[], messages: [] as string[] };
  collect(err, found);
  const text = found.messages.join(' | ');
  const origin = safeOrigin(baseUrl);

  for (const code of found.codes) {
    const reason = TLS_REASONS[code];
    if (reason) return new TlsError(`TLS handshake with ${origin} failed: ${reason}.`, { cause: err, fault: 'TLS handshake failed' });
  }
  if (/before secure TLS connection was established/i.test(text)) {
    return new TlsError(`TLS handshake with ${origin} failed: the target closed the connection during the handshake.`, {
      cause: err,
      fault: 'TLS handshake refused',
    });
  }
  if (/wrong version number|packet length too long|http request/i.test(text)) {
    return new TlsError(`TLS handshake with ${origin} failed: ${TLS_REASONS.ERR_SSL_WRONG_VERSION_NUMBER}.`, {
      cause: err,
      fault: 'TLS handshake failed',
    });
  }
  if (found.codes.includes('EPROTO') || /ssl|tls/i.test(found.codes.join(' '))) {
    const detail = found.messages[0]?.replace(/\.$/, '') ?? 'protocol error';
    return new TlsError(`TLS handshake with ${origin} failed: ${detail}.`, { cause: err, fault: 'TLS handshake failed' });
  }
  for (const code of found.codes) {
    const reason = UNREACHABLE_REASONS[code];
    if (reason)
      return new UnreachableError(`Cannot reach ${origin}: ${reason}.`, reason, { cause: err, fault: `target unreachable (${reason})` });
  }
  if (found.codes.some((c) => TIMEOUT_CODES.has(c)) || isAbortTimeout(err)) {
    const limit = ctx.timeoutMs !== undefined ? ` within ${formatLimit(ctx.timeoutMs)}` : ' in time';
    return new TargetTimeoutError(`The target did not answer ${describeRequest(ctx)}${limit}.`, { cause: err, fault: 'no answer in time' });
  }
  const lost = found.codes.some((c) => LOST_CODES.has(c)) || /other side closed|socket hang up/i.test(text);
  if (lost && ctx.progress?.answered) {
    const { bytes, announced } = ctx.progress;
    const of = announced !== undefined ? ` of the ${announced} it announced` : '';
    return new TruncatedResponseError(
      `The answer to ${describeRequest(ctx)} was cut short: the connection closed after ${bytes} bytes of its body${of}.`,
      { cause: err, fault: 'answer truncated' },
    );
  }
  if (found.codes.includes('ECONNRESET')) {
    return new ConnectionLostError(`The target reset the connection before ${describeRequest(ctx)} got an answer.`, {
      cause: err,
      fault: 'connection reset',
    });
  }
  if (lost) {
    return new ConnectionLostError(
      `The connection to ${origin} broke before ${describeRequest(ctx)} got a complete answer (${found.messages[0] ?? 'socket closed'}).`,
      { cause: err, fault: 'connection closed' },
    );
  }
  const detail = (found.messages[0] ?? String(err)).replace(/\.$/, '');
  return new BmcClientError(`Request ${describeRequest(ctx)} to ${origin} failed: ${detail}.`, { cause: err, fault: 'network failure' });
}

function isAbortTimeout(err: unknown): boolean {
  return err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
}

function safeOrigin(baseUrl: string): string {
  try {
    return new URL(baseUrl).origin;
  } catch {
    return baseUrl;
  }
}
