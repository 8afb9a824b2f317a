/** Tiny local HTTPS / HTTP / WebSocket servers for the client tests. */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { WebSocketServer, type WebSocket } from 'ws';

export interface Pem {
  key: string;
  cert: string;
}

let pem: Promise<Pem> | undefined;

/** One self-signed certificate per test file. */
export function testCert(): Promise<Pem> {
  pem ??= generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048,
    notAfterDate: new Date(Date.now() + 30 * 86_400_000),
  }).then((p) => ({
    key: p.private,
    cert: p.cert,
  }));
  return pem;
}

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  rawHeaders: string[];
  body: Buffer;
  at: number;
}

export type Handler = (req: SeenRequest, res: ServerResponse) => void | Promise<void>;

export interface TestServer {
  url: string;
  port: number;
  server: Server;
  requests: SeenRequest[];
  close(): Promise<void>;
}

function wrap(server: Server, handler: Handler, scheme: string): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen: SeenRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks),
        at: performance.now(),
      };
      requests.push(seen);
      Promise.resolve(handler(seen, res)).catch((err: unknown) => {
        res.statusCode = 599;
        res.end(String(err));
      });
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      resolve({
        url: `${scheme}://127.0.0.1:${port}`,
        port,
        server,
        requests,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

export async function startHttps(handler: Handler): Promise<TestServer> {
  const { key, cert } = await testCert();
  return wrap(createHttpsServer({ key, cert }), handler, 'https');
}

export function startHttp(handler: Handler): Promise<TestServer> {
  return wrap(createHttpServer(), handler, 'http');
}

/** Sends a JSON envelope. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string | string[]> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

export function envelope(status: number, data: unknown): { data: unknown; message: string; status: string } {
  return { data, message: `${status} ${status === 200 ? 'OK' : 'Error'}`, status: status < 400 ? 'ok' : 'error' };
}

/** A port that refuses connections (a server was bound there and closed). */
export async function closedPort(): Promise<number> {
  const s = await startHttp(() => undefined);
  await s.close();
  return s.port;
}

export interface WsTestServer extends TestServer {
  wss: WebSocketServer;
  sockets: WebSocket[];
  /** Upgrade requests seen (headers included). */
  upgrades: IncomingMessage[];
}

export type UpgradeDecision = { accept: true; protocol?: string } | { accept: false; status: number };

/**
 * An HTTPS server with a WebSocket endpoint at /subscribe. `decide` runs on each upgrade;
 * `onConnection` gets the accepted sockets.
 */
export async function startWss(
  decide: (req: IncomingMessage) => UpgradeDecision,
  onConnection: (ws: WebSocket, req: IncomingMessage) => void,
): Promise<WsTestServer> {
  const base = await startHttps((_req, res) => sendJson(res, 404, envelope(404, { description: 'not found' })));
  const sockets: WebSocket[] = [];
  const upgrades: IncomingMessage[] = [];
  let chosen: string | undefined;
  const wss = new WebSocketServer({ noServer: true, handleProtocols: () => chosen ?? false });
  base.server.on('upgrade', (req: IncomingMessage, socket, head) => {
    upgrades.push(req);
    const d = decide(req);
    if (!d.accept) {
      socket.end(`HTTP/1.1 ${d.status} Refused\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      return;
    }
    chosen = d.protocol;
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.push(ws);
      onConnection(ws, req);
    });
  });
  return {
    ...base,
    wss,
    sockets,
    upgrades,
    close: async () => {
      for (const s of sockets) s.terminate();
      wss.close();
      await base.close();
    },
  };
}
