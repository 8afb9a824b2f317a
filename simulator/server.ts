/**
 * The simulator process: one HTTPS port serving the REST interface and, on /subscribe only, the
 * wss event channel.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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
import { terminalLog } from './log.js';
import { UPLOAD_LIMIT } from './request-body.js';
import { targetPath } from './route-parse.js';
import { handleRequest, type Context } from './routes.js';
import { Sessions } from './sessions.js';
import { SoftwareRegistry } from './software.js';
import { Writer } from './writes.js';
import { dialectDefaults, dialectFamily, isDialect, type DialectContext, type DialectName, DIALECTS } from './dialects/common.js';
import { BMCWEB_WIRE, PHOSPHOR_WIRE, SPEC_WIRE } from './dialects/wire.js';
import { PhosphorHub } from './dialects/phosphor/events.js';
import { answerFidelityFault } from './fidelity-answers.js';
import { PhosphorRestServer, serviceMs } from './dialects/phosphor/server.js';
import { BmcwebHub } from './dialects/bmcweb/events.js';
import { BmcwebServer } from './dialects/bmcweb/server.js';
import { ServiceQueue } from './dialects/service-time.js';

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
  /** Where internal errors are reported (default: stderr; see log.ts). */
  log?: (message: string) => void;
  /**
   * Which server to behave as: 'spec' (default) follows the specification; 'phosphor-rest' and
   * 'bmcweb' behave as the two field implementations (see README "Field dialects").
   */
  dialect?: DialectName;
  /** Events wait for the server's next poll, every this many ms (default: the dialect's; spec 0). */
  eventLatencyMs?: number;
  /** A failed or duplicate upload answers only after this many ms (default: the dialect's; spec 0). */
  uploadFailDelayMs?: number;
  /**
   * The server's time per plain request, one request served at a time (default: the dialect's,
   * phosphor-rest 10, which adds to it per kind; bmcweb and spec 0, answered at once and in parallel).
   */
  requestMs?: number;
}

interface DialectServer {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): void;
}

export interface RunningSimulator {
  url: string;
  port: number;
  /** How late events come: the dialect's poll interval, or what the options set (0: at once). */
  eventLatencyMs: number;
  /** How long a typical request (a GET of an object) takes, queueing aside (0: answered at once). */
  typicalRequestMs: number;
  close(): Promise<void>;
}

function checkDelay(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > 600_000)
    throw new Error(`${name} must be a whole number of ms between 0 and 600000`);
  return value;
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
  const log = options.log ?? terminalLog;

  const dialect = options.dialect ?? 'spec';
  if (!isDialect(dialect)) throw new Error(`unknown dialect ${String(dialect)}; dialects: ${DIALECTS.join(', ')}`);
  const defaults = dialectDefaults(dialect);
  const family = dialectFamily(dialect);
  const bmcwebVersion = dialect === 'bmcweb@2023' ? '2023' : 'current';
  const latencyMs = checkDelay('eventLatencyMs', options.eventLatencyMs ?? defaults.eventLatencyMs);
  const failDelayMs = checkDelay('uploadFailDelayMs', options.uploadFailDelayMs ?? defaults.uploadFailDelayMs);
  const pingIntervalMs = options.pingIntervalMs ?? defaults.pingIntervalMs;
  const requestMs = checkDelay('requestMs', options.requestMs ?? defaults.requestMs);
  const service = new ServiceQueue();

  const hub =
    family === 'phosphor-rest'
      ? new PhosphorHub(faults, pingIntervalMs, { latencyMs, terminateOnMissedPong: false, pingPayload: 'ping' })
      : family === 'bmcweb'
        ? new BmcwebHub(faults, pingIntervalMs, { latencyMs })
        : new EventHub(faults, pingIntervalMs, latencyMs > 0 ? { latencyMs } : {});
  const wire = family === 'phosphor-rest' ? PHOSPHOR_WIRE : family === 'bmcweb' ? BMCWEB_WIRE : SPEC_WIRE;
  const bus = new Bus(
    hub,
    faults,
    {
      namespace,
      faults,
      entries: checkCount('entries', options.entries ?? 5, 100_000),
      objects: checkCount('objects', options.objects ?? 0, 1_000_000),
    },
    wire,
  );
  const host0 = new HostStateMachine(bus, options.transitionDelayMs ?? 50);
  const registry = new SoftwareRegistry(bus, { failDelayMs });
  const sessions = new Sessions(options.user ?? 'root', options.password ?? '0penBmc', faults);
  // Field servers leave event sockets open when their session ends (so does the logout-keeps-socket fault).
  if (dialect === 'spec' && !faults.has('logout-keeps-socket')) sessions.onEnd((sid) => hub.closeSession(sid));
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
  const dialectCtx: DialectContext = {
    bus,
    faults,
    hub,
    writer: ctx.writer,
    listings: ctx.listings,
    actions: ctx.actions,
    registry,
    namespace,
    user: options.user ?? 'root',
    password: options.password ?? '0penBmc',
    plain,
    requestMs,
    service,
    log,
  };
  const runtime: DialectServer | undefined =
    family === 'phosphor-rest'
      ? new PhosphorRestServer(dialectCtx)
      : family === 'bmcweb'
        ? new BmcwebServer(dialectCtx, bmcwebVersion)
        : undefined;

  let server: Server;
  if (plain) {
    server = createHttpServer();
  } else {
    const pair = options.cert && options.key ? { cert: options.cert, key: options.key } : await selfSignedCertificate();
    server = createHttpsServer({ cert: pair.cert, key: pair.key });
  }
  server.on('request', (req, res) => {
    if (!runtime && answerFidelityFault(faults, req, res, () => sessions.fromCookieHeader(req.headers.cookie) !== undefined)) return;
    // The phosphor-rest dialect queues each answer by its kind; elsewhere every request waits its turn first.
    const answer = (): Promise<void> => (runtime ? runtime.handle(req, res) : handleRequest(ctx, req, res));
    const queued = family === 'phosphor-rest' || requestMs === 0 ? answer() : service.serve(requestMs).then(answer);
    queued.catch((e) => {
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
    if (runtime) {
      try {
        runtime.upgrade(req, socket, head);
      } catch (e) {
        log(`internal error on upgrade ${req.url}: ${(e as Error)?.stack ?? String(e)}`);
        socket.destroy();
      }
      return;
    }
    try {
      if (targetPath(req.url) !== '/subscribe') {
        refuseUpgrade(socket, rawErrorResponse(404, 'WebSocket is served on /subscribe only', faults));
        return;
      }
      // Same rule as every other route: no session, no handshake.
      const sid = sessions.handshakeSession(req.headers.cookie);
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
    eventLatencyMs: latencyMs,
    typicalRequestMs: family === 'phosphor-rest' ? serviceMs(requestMs, { objects: 1 }) : requestMs,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        host0.cancel();
        hub.close();
        wss.close();
        runtime?.close();
        service.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
