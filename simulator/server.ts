/**
 * The simulator process: one HTTPS port serving the REST interface and, on /subscribe only, the
 * wss event channel.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { Actions } from './actions.js';
import { Bus } from './bus.js';
import { selfSignedCertificate } from './certificate.js';
import { rawErrorResponse } from './envelope.js';
import { EventHub } from './events.js';
import { FaultSet } from './faults.js';
import { HostStateMachine } from './host-state.js';
import { Listings } from './listings.js';
import { UPLOAD_LIMIT } from './request-body.js';
import { targetPath } from './route-parse.js';
import { handleRequest, type Context } from './routes.js';
import { Sessions } from './sessions.js';
import { SoftwareRegistry } from './software.js';
import { Writer } from './writes.js';

export interface SimulatorOptions {
  host?: string;
  port?: number;
  /** The vendor word of paths, interfaces and enumerations. */
  namespace?: string;
  user?: string;
  password?: string;
  faults?: string[];
  /** Extra generated objects under inventory/generated/. */
  objects?: number;
  /** PEM certificate and key; a self-signed pair is generated when absent. */
  cert?: string;
  key?: string;
  /** Delay between a RequestedHostTransition write and the CurrentHostState change. */
  transitionDelayMs?: number;
  /** WebSocket ping interval; a socket that missed the previous pong is terminated. */
  pingIntervalMs?: number;
  /** Number of logging entries. */
  entries?: number;
  /** Where internal errors are reported (default: stderr). */
  log?: (message: string) => void;
}

export interface RunningSimulator {
  url: string;
  port: number;
  close(): Promise<void>;
}

function checkCount(name: string, value: number, max: number): number {
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new Error(`${name} must be an integer between 0 and ${max}`);
  }
  return value;
}

/** Answers a socket that never became an HTTP exchange, then makes sure it goes away. */
function refuseUpgrade(socket: Duplex, response: string): void {
  socket.end(response);
  setTimeout(() => socket.destroy(), 1000).unref();
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const faults = new FaultSet(options.faults ?? []);
  const host = options.host ?? '127.0.0.1';
  const namespace = options.namespace ?? 'mgmt_project';
  if (!/^[A-Za-z0-9_]+$/.test(namespace)) throw new Error('namespace must be a D-Bus path element ([A-Za-z0-9_]+)');
  const log = options.log ?? ((m: string) => process.stderr.write(`simulator: ${m}\n`));

  const hub = new EventHub(faults, options.pingIntervalMs ?? 20_000);
  const bus = new Bus(hub, faults, {
    namespace,
    faults,
    entries: checkCount('entries', options.entries ?? 5, 100_000),
    objects: checkCount('objects', options.objects ?? 0, 1_000_000),
  });
  const host0 = new HostStateMachine(bus, options.transitionDelayMs ?? 50);
  const registry = new SoftwareRegistry(bus);
  const sessions = new Sessions(options.user ?? 'root', options.password ?? '0penBmc', faults);
  sessions.onEnd((sid) => hub.closeSession(sid));
  const ctx: Context = {
    bus,
    faults,
    sessions,
    hub,
    registry,
    writer: new Writer(bus, host0),
    listings: new Listings(bus),
    actions: new Actions(bus, registry, host0, { timeoutMs: 5_000, maxBytes: UPLOAD_LIMIT }),
    log,
  };

  const plain = faults.has('http-plain');
  let server: Server;
  if (plain) {
    server = createHttpServer();
  } else {
    const pair = options.cert && options.key ? { cert: options.cert, key: options.key } : await selfSignedCertificate();
    server = createHttpsServer({ cert: pair.cert, key: pair.key });
  }
  server.on('request', (req, res) => {
    handleRequest(ctx, req, res).catch((e) => {
      log(`unanswered request ${req.method} ${req.url}: ${String(e)}`);
      res.destroy();
    });
  });

  // Requests the HTTP parser rejects still get an envelope rather than a bare close.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const s = socket as Socket;
    if (err.code === 'ECONNRESET' || !s.writable || (s as unknown as { _httpMessage?: unknown })._httpMessage) {
      s.destroy();
      return;
    }
    const code = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'HPE_REQUEST_TIMEOUT' ? 408 : 400;
    refuseUpgrade(s, rawErrorResponse(code, code === 431 ? 'Request header fields too large' : 'Malformed HTTP request', faults));
  });
  server.on('tlsClientError', () => {});

  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    try {
      if (targetPath(req.url) !== '/subscribe') {
        refuseUpgrade(socket, rawErrorResponse(404, 'WebSocket is served on /subscribe only', faults));
        return;
      }
      // Same rule as every other route: no session, no handshake.
      const sid = sessions.fromCookieHeader(req.headers.cookie);
      if (!sid && !faults.has('subscribe-without-login')) {
        refuseUpgrade(socket, rawErrorResponse(401, 'Unauthorized: log in with POST /login first', faults));
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        ws.on('error', () => {});
        hub.attach(ws, sid);
      });
    } catch (e) {
      log(`internal error on upgrade ${req.url}: ${(e as Error)?.stack ?? String(e)}`);
      refuseUpgrade(socket, rawErrorResponse(500, 'Internal error', faults));
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (e) => log(`server error: ${e.message}`));

  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `${plain ? 'http' : 'https'}://${shownHost}:${port}`,
    port,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        host0.cancel();
        hub.close();
        wss.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
