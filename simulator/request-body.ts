/**
 * Reading request bodies within limits and checking their media type. A body is always read to
 * its end (discarding what exceeds the limit) before answering, so that the client sees the
 * answer rather than a reset connection.
 */
import type { IncomingMessage } from 'node:http';
import { HttpError } from './envelope.js';
import type { FaultSet } from './faults.js';
import { parseJson } from './json.js';

export const JSON_LIMIT = 1024 * 1024;
export const UPLOAD_LIMIT = 32 * 1024 * 1024;
/** Past this much an oversized body is no longer drained: the connection is dropped. */
const DRAIN_CAP = 256 * 1024 * 1024;

/** Reads the whole body; throws 413 when it exceeds `limit`. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > DRAIN_CAP) {
      req.socket.destroy();
      reject(new HttpError(413, 'Request body too large'));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else if (size > DRAIN_CAP) req.socket.destroy();
    });
    req.on('end', () => {
      if (size > limit) reject(new HttpError(413, `Request body exceeds ${limit} bytes`));
      else resolve(Buffer.concat(chunks, size));
    });
    req.on('error', () => reject(new HttpError(400, 'Request body could not be read')));
    // A client that goes away mid-body never produces 'end'.
    req.on('close', () => {
      if (!req.complete) reject(new HttpError(400, 'Request body was cut off'));
    });
  });
}

/** Consumes and discards a body we will not use. */
export async function discardBody(req: IncomingMessage): Promise<void> {
  if (req.readableEnded) return;
  await readBody(req, 0).catch(() => undefined);
}

function mediaType(req: IncomingMessage): string | undefined {
  const header = req.headers['content-type'];
  if (header === undefined) return undefined;
  const semicolon = header.indexOf(';');
  return (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a JSON request body. `optional` bodies (logout) may be empty. Content-Type must be
 * application/json (parameters such as charset allowed), else 415.
 */
export async function readJsonBody(req: IncomingMessage, faults: FaultSet, optional = false): Promise<unknown> {
  const buf = await readBody(req, JSON_LIMIT);
  const type = mediaType(req);
  if (buf.length === 0 && type === undefined) {
    if (optional) return undefined;
    throw new HttpError(400, 'A JSON body {"data": ...} is required');
  }
  if (type !== 'application/json') {
    throw new HttpError(415, 'Content-Type must be application/json');
  }
  if (buf.length === 0) {
    if (optional) return undefined;
    throw new HttpError(400, 'A JSON body {"data": ...} is required');
  }
  let text: string;
  try {
    text = utf8.decode(buf);
  } catch {
    // lenient-utf8: invalid sequences become U+FFFD, as some field servers decode.
    if (!faults.has('lenient-utf8')) throw new HttpError(400, 'Request body is not valid UTF-8');
    text = buf.toString('utf8');
  }
  try {
    return parseJson(text);
  } catch (e) {
    if (faults.has('malformed-json-500')) throw new Error(`unparsed body: ${(e as Error).message}`);
    throw new HttpError(400, `Malformed JSON: ${(e as Error).message}`);
  }
}

/** Reads an image upload: application/octet-stream only, at most UPLOAD_LIMIT bytes. */
export async function readImageBody(req: IncomingMessage): Promise<Buffer> {
  const type = mediaType(req);
  if (type !== 'application/octet-stream') {
    await discardBody(req);
    throw new HttpError(415, 'Content-Type must be application/octet-stream');
  }
  const buf = await readBody(req, UPLOAD_LIMIT);
  if (buf.length === 0) throw new HttpError(400, 'The image body is empty');
  return buf;
}
