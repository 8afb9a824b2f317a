/**
 * One HTTP exchange over an undici Agent. The low-level dispatch API is used (not `request()`)
 * because it hands over the reason phrase of the status line, which the envelope's `message`
 * is compared with, and because it sends the request target exactly as given.
 */
import type { Agent, Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import { InvalidRequestError, messageOf } from './errors.js';

export interface RawRequest {
  origin: string;
  /** Request target, already checked by `requestTarget()`. */
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
  /** A longer answer is cut off at this many bytes and the exchange fails (never buffered whole). */
  maxResponseBytes: number;
  /** Aborting it ends the exchange at once with the signal's reason. */
  signal?: AbortSignal;
}

export interface RawResponse {
  status: number;
  /** Reason phrase as received ('' when the server sent none). */
  statusText: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** How far an answer had come: whether its head arrived, and how much of its body. */
export interface Progress {
  answered: boolean;
  bytes: number;
  /** Content-Length, when the answer announced one. */
  announced?: number;
  /** Since the last byte of the body arrived (or since the request was sent, before any). */
  quietMs: number;
  /** The longest wait between two pieces of the body (from the head on) before this one. */
  longestGapMs: number;
}

/** Thrown (as the rejection) when the overall limit of one exchange passes. */
export class ExchangeTimeout extends Error {
  constructor(
    readonly timeoutMs: number,
    readonly progress: Progress,
  ) {
    super(`No complete response within ${timeoutMs} ms.`);
    this.name = 'TimeoutError';
  }
}

/** Thrown when the answer passes `maxResponseBytes`: the rest is not read. */
export class ExchangeTooLarge extends Error {
  constructor(
    readonly limit: number,
    readonly progress: Progress,
  ) {
    super(`The answer passed ${limit} bytes.`);
  }
}

/** Any other failure of the exchange, with how far the answer had come. */
export class ExchangeFailed extends Error {
  constructor(
    override readonly cause: unknown,
    readonly progress: Progress,
  ) {
    super(messageOf(cause), { cause });
  }
}

/**
 * Makes a request target undici accepts while changing as little as possible: only characters
 * that cannot appear in an HTTP request line (controls, space, non-ASCII) are percent-encoded,
 * and a target without a leading slash gets one.
 */
export function requestTarget(prefix: string, path: string): string {
  const absoluteForm = /^https?:\/\//i.test(path);
  const target = absoluteForm ? path : `${prefix}${path.startsWith('/') ? '' : '/'}${path}`;
  return target.replace(/[^\x21-\x7e]/gu, percentEncoded);
}

/** One character as UTF-8 bytes in upper-case %XX (none of those matched is left alone by encodeURIComponent). */
function percentEncoded(ch: string): string {
  try {
    return encodeURIComponent(ch);
  } catch {
    // A lone surrogate: UTF-8 has no bytes for it; Buffer.from writes U+FFFD in its place.
    return '%EF%BF%BD';
  }
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Why a request cannot be put on the wire (a method that is no HTTP token, control characters in
 * a header value), or undefined. Checked before undici sees it: undici 7 loses a pooled connection
 * slot on each such refusal, and later requests then wait for a connection until they time out.
 */
export function unsendable(method: string, headers: Record<string, string>): string | undefined {
  if (!TOKEN.test(method)) return `the method ${JSON.stringify(method)} is not an HTTP token`;
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_VALUE.test(value)) return `the ${name} header holds control characters`;
  }
  return undefined;
}

export function exchange(agent: Agent, req: RawRequest): Promise<RawResponse> {
  const refusal = unsendable(req.method, req.headers);
  if (refusal) return Promise.reject(new InvalidRequestError(`Request not sent: ${refusal}.`));
  if (req.signal?.aborted) return Promise.reject(req.signal.reason);
  return new Promise<RawResponse>((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let settled = false;
    let status = 0;
    let statusText = '';
    let headers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let answered = false;
    let bytes = 0;
    let announced: number | undefined;
    let lastByteAt = performance.now();
    let longestGapMs = 0;
    const progress = (): Progress => ({ answered, bytes, announced, quietMs: performance.now() - lastByteAt, longestGapMs });

    const finish = (err: Error | undefined, res?: RawResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(res as RawResponse);
    };
    const stop = (err: Error): void => {
      finish(err);
      controller?.abort(err);
    };
    const onAbort = (): void => stop(req.signal!.reason as Error);
    req.signal?.addEventListener('abort', onAbort, { once: true });
    // Covers queueing, connect, headers and body together; undici's own timeouts cover stalls.
    const timer = setTimeout(() => stop(new ExchangeTimeout(req.timeoutMs, progress())), req.timeoutMs);

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(ctl) {
        controller = ctl;
        // The limit passed (or the run stopped) while the request waited for a connection: do not send it late.
        if (settled) ctl.abort(new ExchangeTimeout(req.timeoutMs, progress()));
      },
      onResponseStart(_ctl, statusCode, responseHeaders, statusMessage) {
        if (statusCode < 200) return; // 1xx interim responses carry no answer
        status = statusCode;
        statusText = statusMessage ?? '';
        headers = responseHeaders;
        answered = true;
        lastByteAt = performance.now();
        const length = Number(responseHeaders['content-length']);
        if (Number.isSafeInteger(length)) announced = length;
        // Announced too long: not one byte of it is read.
        if (announced !== undefined && announced > req.maxResponseBytes) stop(new ExchangeTooLarge(req.maxResponseBytes, progress()));
      },
      onResponseData(_ctl, chunk) {
        if (settled) return;
        bytes += chunk.length;
        longestGapMs = Math.max(longestGapMs, performance.now() - lastByteAt);
        lastByteAt = performance.now();
        if (bytes > req.maxResponseBytes) return stop(new ExchangeTooLarge(req.maxResponseBytes, progress()));
        chunks.push(chunk);
      },
      onResponseEnd() {
        finish(undefined, { status, statusText, headers, body: Buffer.concat(chunks) });
      },
      onResponseError(_ctl, err) {
        finish(new ExchangeFailed(err, progress()));
      },
    };

    try {
      agent.dispatch(
        {
          origin: req.origin,
          path: req.path,
          method: req.method as Dispatcher.HttpMethod,
          headers: req.headers,
          body: req.body ?? null,
          headersTimeout: req.timeoutMs,
          bodyTimeout: req.timeoutMs,
          // undici closes the socket after a GET/DELETE with a body unless told not to; every
          // later request would then pay for a new TLS handshake.
          reset: false,
        },
        handler,
      );
    } catch (err) {
      finish(new ExchangeFailed(err, progress()));
    }
  });
}
