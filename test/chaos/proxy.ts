/**
 * A TLS proxy in front of the simulator that breaks the network, not the interface: per request
 * latency, a stall mid-answer, a reset, a truncated body, a huge body, a trickle, an HTML page of a
 * front proxy; per connection a refused TLS handshake; and a restart (every connection dropped,
 * connections refused for a while). It counts what the client did: connections, requests per
 * second, sessions opened and closed. A tool for the project's tests, not a product feature.
 */
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { Agent, createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect as tlsConnect } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import { testCert } from '../client/servers.js';

export type Fault =
  | { kind: 'latency'; ms: number }
  /** The status line, the headers and half the body, then nothing (the connection stays open). */
  | { kind: 'stall' }
  /** The connection is reset (TCP RST) instead of an answer. */
  | { kind: 'reset' }
  /** The real answer's headers (its full Content-Length) and half its body, then the connection closes. */
  | { kind: 'truncate' }
  /** 200 with a JSON body of this many bytes, made as it is sent; `chunked` does not announce its length. */
  | { kind: 'huge'; bytes: number; chunked?: boolean }
  /** The real answer, one byte a second. */
  | { kind: 'trickle' }
  /** An HTML page, as a front proxy answers when the service behind it is down. */
  | { kind: 'html'; status: number };

export interface ChaosRequest {
  /** Requests through the proxy so far, this one included (WebSocket handshakes too). */
  seq: number;
  method: string;
  path: string;
}

export interface ChaosOptions {
  /** Port of the simulator on 127.0.0.1 (it may change with a restart). */
  upstream: number;
  /** The fault a request meets, if any. */
  fault?: (req: ChaosRequest) => Fault | undefined;
  /** Connections (numbered from 1) whose TLS handshake is refused. */
  refuseTls?: (connection: number) => boolean;
}

export interface ChaosStats {
  connections: number;
  /** Most connections open at once (WebSocket connections included). */
  peakConnections: number;
  requests: number;
  /** Request arrival times (performance.now()), for the rate seen. */
  arrivals: number[];
  sessionsOpened: number;
  sessionsClosed: number;
  /** Most sessions open at once, as the proxy saw them (logins minus logouts). */
  peakSessions: number;
  /** Sessions still open when the last restart dropped them with the target. */
  sessionsLostInRestart: number;
}

export interface ChaosProxy {
  url: string;
  port: number;
  stats: ChaosStats;
  /** Requests that arrived in the busiest second (a sliding window), from the `from`th arrival on. */
  busiestSecond(from?: number): number;
  /** The simulator behind the proxy. */
  upstream: number;
  /**
   * The target goes away: every connection is reset and new ones are refused for `seconds`;
   * `whileDown` runs meanwhile (restarting the simulator behind, for instance).
   */
  restart(seconds: number, whileDown?: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

const HTML_PAGE =
  '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr><center>nginx</center></body></html>\n';
const HUGE_CHUNK = Buffer.alloc(64 * 1024, 'x');

export async function startChaosProxy(opts: ChaosOptions): Promise<ChaosProxy> {
  const { key, cert } = await testCert();
  const upstreamAgent = new Agent({ keepAlive: true, rejectUnauthorized: false });
  const stats: ChaosStats = {
    connections: 0,
    peakConnections: 0,
    requests: 0,
    arrivals: [],
    sessionsOpened: 0,
    sessionsClosed: 0,
    peakSessions: 0,
    sessionsLostInRestart: 0,
  };
  const open = new Set<Socket>();
  const sessions = new Set<string>();
  let down = false;

  const https = createHttpsServer({ key, cert });
  https.on('tlsClientError', () => undefined);
  https.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const seq = ++stats.requests;
    stats.arrivals.push(performance.now());
    const fault = opts.fault?.({ seq, method: req.method ?? '', path: req.url ?? '' });
    void forward(req, res, fault).catch(() => res.destroy());
  });
  https.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    stats.requests++;
    stats.arrivals.push(performance.now());
    const up = tlsConnect({ host: '127.0.0.1', port: proxy.upstream, rejectUnauthorized: false });
    const lines = [`${req.method} ${req.url} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    up.write(`${lines.join('\r\n')}\r\n\r\n`);
    up.write(head);
    for (const s of [socket, up])
      s.on('error', () => {
        socket.destroy();
        up.destroy();
      });
    socket.on('close', () => up.destroy());
    up.on('close', () => socket.destroy());
    socket.pipe(up).pipe(socket);
  });

  async function forward(req: IncomingMessage, res: ServerResponse, fault: Fault | undefined): Promise<void> {
    if (fault?.kind === 'reset') {
      rawSocket(req).resetAndDestroy();
      return;
    }
    if (fault?.kind === 'html') {
      req.resume();
      res.writeHead(fault.status, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(HTML_PAGE) });
      res.end(HTML_PAGE);
      return;
    }
    if (fault?.kind === 'huge') {
      req.resume();
      await sendHuge(res, fault.bytes, fault.chunked ?? false);
      return;
    }
    if (fault?.kind === 'latency') await sleep(fault.ms);
    const headers = { ...req.headers };
    delete headers.connection;
    delete headers['keep-alive'];
    const up = httpsRequest({ host: '127.0.0.1', port: proxy.upstream, method: req.method, path: req.url, headers, agent: upstreamAgent });
    req.pipe(up);
    const answer = await new Promise<IncomingMessage>((resolve, reject) => up.on('response', resolve).on('error', reject));
    trackSession(req, answer);
    if (!fault || fault.kind === 'latency') {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
      answer.pipe(res);
      return;
    }
    const body = await readAll(answer);
    const rawHeaders = withoutFraming(answer.rawHeaders);
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, [...rawHeaders, 'content-length', String(body.length)]);
    const half = body.subarray(0, Math.floor(body.length / 2));
    if (fault.kind === 'stall') {
      res.write(half);
    } else if (fault.kind === 'truncate') {
      res.write(half, () => req.socket.destroy());
    } else {
      for (let i = 0; i < body.length && !res.destroyed; i++) {
        res.write(body.subarray(i, i + 1));
        await sleep(1000);
      }
      res.end();
    }
  }

  function trackSession(req: IncomingMessage, answer: IncomingMessage): void {
    const ok = (answer.statusCode ?? 0) >= 200 && (answer.statusCode ?? 0) < 300;
    if (!ok || req.method !== 'POST') return;
    if (/^\/login\/?$/.test(req.url ?? '')) {
      const sid = cookieValue(answer.headers['set-cookie']?.join(';'));
      if (sid && !sessions.has(sid)) {
        sessions.add(sid);
        stats.sessionsOpened++;
        stats.peakSessions = Math.max(stats.peakSessions, sessions.size);
      }
    } else if (/^\/logout\/?$/.test(req.url ?? '')) {
      const sid = cookieValue(req.headers.cookie);
      if (sid && sessions.delete(sid)) stats.sessionsClosed++;
    }
  }

  const tcp: TcpServer = createTcpServer((socket) => {
    const number = ++stats.connections;
    open.add(socket);
    stats.peakConnections = Math.max(stats.peakConnections, open.size);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
    if (opts.refuseTls?.(number)) {
      // The ClientHello arrives and the connection closes without a ServerHello.
      socket.once('data', () => socket.destroy());
      return;
    }
    https.emit('connection', socket);
  });
  await listen(tcp, 0);
  const port = (tcp.address() as AddressInfo).port;

  const proxy: ChaosProxy = {
    url: `https://127.0.0.1:${port}`,
    port,
    stats,
    upstream: opts.upstream,
    busiestSecond: (from = 0) => busiest(stats.arrivals.slice(from)),
    async restart(seconds, whileDown) {
      down = true;
      await new Promise<void>((resolve) => {
        tcp.close(() => resolve());
        for (const s of open) s.resetAndDestroy();
      });
      stats.sessionsLostInRestart += sessions.size;
      sessions.clear();
      upstreamAgent.destroy();
      await Promise.all([sleep(seconds * 1000), whileDown?.()]);
      await listen(tcp, port);
      down = false;
    },
    async close() {
      if (!down)
        await new Promise<void>((resolve) => {
          tcp.close(() => resolve());
          for (const s of open) s.destroy();
        });
      https.close();
      upstreamAgent.destroy();
    },
  };
  return proxy;
}

/** The TCP socket under the request's TLS socket: a reset must go out on it, or TLS just closes. */
function rawSocket(req: IncomingMessage): Socket {
  return (req.socket as Socket & { _parent?: Socket })._parent ?? req.socket;
}

function listen(server: TcpServer, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function readAll(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Raw headers without the ones that frame the body (the proxy frames what it sends itself). */
function withoutFraming(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    if (!/^(content-length|transfer-encoding|connection|keep-alive)$/i.test(raw[i]!)) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

/** Writes `bytes` of a JSON string body, chunk by chunk, as fast as the client reads it. */
async function sendHuge(res: ServerResponse, bytes: number, chunked: boolean): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/json', ...(chunked ? {} : { 'content-length': bytes }) });
  const head = Buffer.from('{"data": "');
  const tail = Buffer.from('", "message": "200 OK", "status": "ok"}');
  res.write(head);
  let left = bytes - head.length - tail.length;
  while (left > 0 && !res.destroyed) {
    const chunk = left >= HUGE_CHUNK.length ? HUGE_CHUNK : HUGE_CHUNK.subarray(0, left);
    left -= chunk.length;
    if (!res.write(chunk))
      await new Promise<void>((resolve) => {
        // Whichever comes first removes the other: a listener left per wait adds up over a long body.
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.once('drain', done);
        res.once('close', done);
      });
  }
  if (!res.destroyed) res.end(tail);
}

function cookieValue(header: string | undefined): string | undefined {
  return /(?:^|[;,]\s*)sid=([0-9a-f]+)/.exec(header ?? '')?.[1];
}

function busiest(arrivals: number[]): number {
  let most = 0;
  let start = 0;
  for (let end = 0; end < arrivals.length; end++) {
    while (arrivals[end]! - arrivals[start]! >= 1000) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}
