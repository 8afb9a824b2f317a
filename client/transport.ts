/**
 * One HTTP exchange over an undici Agent. The low-level dispatch API is used (not `request()`)
 * because it hands over the reason phrase of the status line, which the envelope's `message`
 * is compared with, and because it sends the request target exactly as given.
 */
import type { Agent, Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';

export interface RawRequest {
  origin: string;
  /** Request target, already checked by `requestTarget()`. */
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
}

export interface RawResponse {
  status: number;
  /** Reason phrase as received ('' when the server sent none). */
  statusText: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Thrown (as the rejection) when the overall limit of one exchange passes. */
export class ExchangeTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`No complete response within ${timeoutMs} ms.`);
    this.name = 'TimeoutError';
  }
}

/**
 * Makes a request target undici accepts while changing as little as possible: only characters
 * that cannot appear in an HTTP request line (controls, space, non-ASCII) are percent-encoded,
 * and a target without a leading slash gets one.
 */
export function requestTarget(prefix: string, path: string): string {
  const absoluteForm = /^https?:\/\//i.test(path);
  let target = absoluteForm ? path : `${prefix}${path.startsWith('/') ? '' : '/'}${path}`;
  target = target.replace(/[^\x21-\x7e]/gu, (ch) =>
    [...Buffer.from(ch, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
  return target;
}

export function exchange(agent: Agent, req: RawRequest): Promise<RawResponse> {
  return new Promise<RawResponse>((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let settled = false;
    let status = 0;
    let statusText = '';
    let headers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];

    const finish = (err: Error | undefined, res?: RawResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(res as RawResponse);
    };
    // Covers queueing, connect, headers and body together; undici's own timeouts cover stalls.
    const timer = setTimeout(() => {
      const err = new ExchangeTimeout(req.timeoutMs);
      finish(err);
      controller?.abort(err);
    }, req.timeoutMs);

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(ctl) {
        controller = ctl;
        // The limit passed while the request waited for a connection: do not send it late.
        if (settled) ctl.abort(new ExchangeTimeout(req.timeoutMs));
      },
      onResponseStart(_ctl, statusCode, responseHeaders, statusMessage) {
        if (statusCode < 200) return; // 1xx interim responses carry no answer
        status = statusCode;
        statusText = statusMessage ?? '';
        headers = responseHeaders;
      },
      onResponseData(_ctl, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        finish(undefined, { status, statusText, headers, body: Buffer.concat(chunks) });
      },
      onResponseError(_ctl, err) {
        finish(err);
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
        },
        handler,
      );
    } catch (err) {
      finish(err instanceof Error ? err : new Error(String(err)));
    }
  });
}
