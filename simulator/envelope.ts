/**
 * The response envelope `{data, message, status}` that every JSON response carries: message is the
 * status line text of that very response, status follows the HTTP code.
 */
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FaultSet } from './faults.js';
import { stringifyJson } from './json.js';

/** Thrown anywhere below a route; the router turns it into an error envelope. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

export function statusLine(code: number): string {
  return `${code} ${STATUS_CODES[code] ?? 'Unknown'}`;
}

export function envelopeBody(code: number, data: unknown, faults: FaultSet): string {
  const isError = code >= 400;
  const envelope: Record<string, unknown> = !isError && faults.has('missing-data-member') ? {} : { data };
  if (!faults.has('missing-message-member')) {
    envelope.message =
      isError && faults.has('message-wrong-code') ? '200 OK' : faults.has('message-without-reason') ? String(code) : statusLine(code);
  }
  envelope.status = !isError || faults.has('status-ok-on-error') ? 'ok' : 'error';
  // status-error-on-success: an attribute map (a GET of an object) answered with status "error".
  if (!isError && faults.has('status-error-on-success') && data !== null && typeof data === 'object' && !Array.isArray(data))
    envelope.status = 'error';
  return stringifyJson(envelope);
}

export function errorData(description: string, faults: FaultSet): unknown {
  if (faults.has('error-data-string')) return description;
  return faults.has('error-without-description') ? { error: description } : { description };
}

export function contentType(faults: FaultSet): string {
  return faults.has('text-plain-content-type') ? 'text/plain; charset=utf-8' : 'application/json';
}

/** How the answer faults of a request's site change its answer (answer-faults.ts). */
export type AnswerTransform = (answer: { status: number; body: string; contentType: string }) => {
  status: number;
  body: string;
  contentType: string;
};

export function sendEnvelope(
  res: ServerResponse,
  code: number,
  data: unknown,
  faults: FaultSet,
  headers: Record<string, string | string[]> = {},
  transform?: AnswerTransform,
): void {
  if (res.headersSent || res.destroyed) return;
  const plain = { status: code, body: envelopeBody(code, data, faults), contentType: contentType(faults) };
  const { status, body, contentType: type } = transform ? transform(plain) : plain;
  res.writeHead(status, {
    ...headers,
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

export function sendError(
  res: ServerResponse,
  code: number,
  description: string,
  faults: FaultSet,
  headers: Record<string, string> = {},
  transform?: AnswerTransform,
): void {
  sendEnvelope(res, code, errorData(description, faults), faults, headers, transform);
}

/** A complete raw HTTP/1.1 error response, for sockets that never became an HTTP response. */
export function rawErrorResponse(code: number, description: string, faults: FaultSet): string {
  const body = envelopeBody(code, errorData(description, faults), faults);
  return (
    `HTTP/1.1 ${statusLine(code)}\r\n` +
    `Content-Type: ${contentType(faults)}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/** Answers a socket that never became an HTTP exchange, then makes sure it goes away. */
export function refuseSocket(socket: Duplex, response: string): void {
  socket.end(response);
  setTimeout(() => socket.destroy(), 1000).unref();
}
