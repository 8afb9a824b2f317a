/**
 * The simulator process: one HTTPS port whose requests and WebSocket upgrades the chosen dialect's
 * server answers (dialects/registry.ts; the spec's own by default).
 */
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { selfSignedCertificate } from './certificate.js';
import { createContext } from './context.js';
import { rawErrorResponse, refuseSocket } from './envelope.js';
import { FaultSet } from './faults.js';
import { terminalLog } from './log.js';
import { holdServedAnswer, isReadRoute, routeDelayMs, type RouteLatency } from './route-latency.js';
import { DIALECTS, isDialect, type DialectName } from './dialects/dialect.js';
import { dialectNamed } from './dialects/registry.js';

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
  /** Extra time per route (`--route-latency ROUTE=MS`): a read's served answer is held for it, any other request waits it before it is served. */
  routeLatencyMs?: RouteLatency;
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

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const faults = new FaultSet(options.faults ?? []);
  const host = options.host ?? '127.0.0.1';
  const namespace = options.namespace ?? 'mgmt_project';
  if (!/^[A-Za-z0-9_]+$/.test(namespace)) throw new Error('namespace must be a D-Bus path element ([A-Za-z0-9_]+)');
  const log = options.log ?? terminalLog;

  const name = options.dialect ?? 'spec';
  if (!isDialect(name)) throw new Error(`unknown dialect ${String(name)}; dialects: ${DIALECTS.join(', ')}`);
  const dialect = dialectNamed(name);
  const { defaults } = dialect;
  const latencyMs = checkDelay('eventLatencyMs', options.eventLatencyMs ?? defaults.eventLatencyMs);
  const uploadFailDelayMs = checkDelay('uploadFailDelayMs', options.uploadFailDelayMs ?? defaults.uploadFailDelayMs);
  const requestMs = checkDelay('requestMs', options.requestMs ?? defaults.requestMs);
  const plain = faults.has('http-plain');
  const ctx = createContext({
    faults,
    hub: dialect.hub(faults, { pingIntervalMs: options.pingIntervalMs ?? defaults.pingIntervalMs, latencyMs }),
    wire: dialect.wire,
    namespace,
    user: options.user ?? 'root',
    password: options.password ?? '0penBmc',
    plain,
    requestMs,
    log,
    entries: checkCount('entries', options.entries ?? 5, 100_000),
    objects: checkCount('objects', options.objects ?? 0, 1_000_000),
    transitionDelayMs: options.transitionDelayMs ?? 50,
    uploadFailDelayMs,
  });
  const dialectServer = dialect.server(ctx);

  // The dialect's limit on a request's head, as its server reads it (Node's 16 KiB otherwise).
  const headLimit = dialect.headLimit ? { maxHeaderSize: dialect.headLimit.bytes } : {};
  let server: Server;
  if (plain) {
    server = createHttpServer({ ...headLimit });
  } else {
    const pair = options.cert && options.key ? { cert: options.cert, key: options.key } : await selfSignedCertificate();
    server = createHttpsServer({ cert: pair.cert, key: pair.key, ...headLimit });
  }
  const routeLatency = options.routeLatencyMs;
  server.on('request', (req, res) => {
    faults.load.track(res);
    const delay = routeDelayMs(routeLatency, req.method ?? '', req.url ?? '');
    const read = delay > 0 && isReadRoute(req.method ?? '', req.url ?? '');
    if (read) holdServedAnswer(res, delay, sleepFor);
    (delay > 0 && !read ? sleepFor(delay).then(() => dialectServer.handle(req, res)) : dialectServer.handle(req, res)).catch((e) => {
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
    // bmcweb of 2023 closes the connection on a head over its limit, answering nothing.
    if (err.code === 'HPE_HEADER_OVERFLOW' && dialect.headLimit?.overflow === 'close') {
      s.destroy();
      return;
    }
    const code = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'HPE_REQUEST_TIMEOUT' ? 408 : 400;
    refuseSocket(s, rawErrorResponse(code, code === 431 ? 'Request header fields too large' : 'Malformed HTTP request', faults));
  });
  server.on('tlsClientError', () => {});

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const upgrade = (): void => {
      try {
        dialectServer.upgrade(req, socket, head);
      } catch (e) {
        log(`internal error on upgrade ${req.url}: ${(e as Error)?.stack ?? String(e)}`);
        socket.destroy();
      }
    };
    const delay = routeDelayMs(routeLatency, req.method ?? '', req.url ?? '', true);
    if (delay > 0) void sleepFor(delay).then(() => !socket.destroyed && upgrade());
    else upgrade();
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
    typicalRequestMs: dialect.typicalRequestMs(requestMs),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        ctx.hostState.cancel();
        ctx.hub.close();
        dialectServer.close();
        ctx.service.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function sleepFor(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
