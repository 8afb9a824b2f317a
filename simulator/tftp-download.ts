/**
 * The TFTP fetch behind DownloadViaTFTP: an RFC 1350 read request through the `tftp` package's
 * stream API (its `get(remote, cb)` would write into the working directory), bounded in time and
 * size. The simulator only fetches from loopback addresses: it is a local test double and must not
 * send traffic off the machine.
 */
import tftp, { type GetStream } from 'tftp';
import { HttpError } from './envelope.js';

export interface TftpFetchLimits {
  timeoutMs: number;
  maxBytes: number;
}

export function parseTftpServer(server: string): { host: string; port: number } {
  let host = server;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(server);
  if (bracketed?.[1] !== undefined) {
    host = bracketed[1];
    portText = bracketed[2];
  } else if (server.split(':').length === 2) {
    [host, portText] = server.split(':') as [string, string];
  }
  let port = 69;
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
      throw new HttpError(400, `Invalid TFTP server port in ${JSON.stringify(server)}`);
    }
    port = Number(portText);
  }
  if (host === 'localhost') host = '127.0.0.1';
  const loopback = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === '::1';
  if (!loopback) {
    throw new HttpError(
      400,
      `TFTP server ${JSON.stringify(server)} is not a loopback address; the simulator only fetches from its own machine`,
    );
  }
  return { host, port };
}

export function fetchViaTftp(file: string, server: string, limits: TftpFetchLimits): Promise<Buffer> {
  const { host, port } = parseTftpServer(server);
  if (file.length === 0 || file.length > 255 || file.includes('..') || !/^[\x21-\x7e]+$/.test(file)) {
    return Promise.reject(new HttpError(400, `Invalid TFTP file name ${JSON.stringify(file.slice(0, 80))}`));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err: HttpError | undefined): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(Buffer.concat(chunks));
    };
    let stream: GetStream;
    try {
      stream = tftp.createClient({ host, port, retries: 2, timeout: 1000 }).createGetStream(file);
    } catch (e) {
      reject(new HttpError(400, `TFTP download of ${file} failed: ${(e as Error).message}`));
      return;
    }
    const timer = setTimeout(() => {
      finish(new HttpError(400, `TFTP download of ${file} from ${server} timed out after ${limits.timeoutMs} ms`));
      try {
        stream.abort();
      } catch {
        // already finished
      }
    }, limits.timeoutMs);
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.maxBytes) {
        finish(new HttpError(400, `TFTP file ${file} exceeds ${limits.maxBytes} bytes`));
        stream.abort();
        return;
      }
      chunks.push(chunk);
    });
    stream.on('error', (e: Error) => finish(new HttpError(400, `TFTP download of ${file} from ${server} failed: ${e.message}`)));
    stream.on('abort', () => finish(new HttpError(400, `TFTP download of ${file} was aborted`)));
    stream.on('end', () => finish(undefined));
  });
}
