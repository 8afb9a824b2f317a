/**
 * Plain HTTP and WebSocket helpers for the simulator tests (deliberately independent of client/).
 */
import { Agent, request } from 'undici';
import WebSocket from 'ws';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../simulator/index.js';

export const NS = 'mgmt_project';
export const ROOT = `/xyz/${NS}`;
export const I = `xyz.${NS}`;

export const agent = new Agent({ connect: { rejectUnauthorized: false }, keepAliveTimeout: 1000 });

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Parsed body (JSON.parse), or undefined when the body is not JSON. */
  body: any;
}

export interface CallOptions {
  cookie?: string;
  /** JSON value to send (serialised with JSON.stringify) */
  json?: unknown;
  /** Raw body */
  raw?: string | Buffer;
  contentType?: string;
  headers?: Record<string, string>;
}

export async function call(base: string, method: string, path: string, opts: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  let body: string | Buffer | undefined;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers['content-type'] = opts.contentType ?? 'application/json';
  } else if (opts.raw !== undefined) {
    body = opts.raw;
    if (opts.contentType) headers['content-type'] = opts.contentType;
  } else if (opts.contentType) {
    headers['content-type'] = opts.contentType;
  }
  if (opts.cookie) headers.cookie = opts.cookie;
  const res = await request(base + path, { method: method as 'GET', headers, body, dispatcher: agent });
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, body: parsed };
}

export interface Session {
  sim: RunningSimulator;
  cookie: string;
  get(path: string): Promise<Reply>;
  put(path: string, data: unknown): Promise<Reply>;
  post(path: string, data: unknown): Promise<Reply>;
  del(path: string): Promise<Reply>;
  call(method: string, path: string, opts?: CallOptions): Promise<Reply>;
}

export async function login(base: string, user = 'root', password = '0penBmc'): Promise<string> {
  const r = await call(base, 'POST', '/login', { json: { data: [user, password] } });
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${r.text}`);
  const setCookie = r.headers['set-cookie'];
  const first = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  if (!first) throw new Error('no cookie');
  return first.replace(/;.*/s, '');
}

export function sessionFor(sim: RunningSimulator, cookie: string): Session {
  return {
    sim,
    cookie,
    get: (path) => call(sim.url, 'GET', path, { cookie }),
    put: (path, data) => call(sim.url, 'PUT', path, { cookie, json: { data } }),
    post: (path, data) => call(sim.url, 'POST', path, { cookie, json: { data } }),
    del: (path) => call(sim.url, 'DELETE', path, { cookie }),
    call: (method, path, opts = {}) => call(sim.url, method, path, { cookie, ...opts }),
  };
}

export async function startWithSession(options: SimulatorOptions = {}): Promise<Session> {
  const sim = await startSimulator({ transitionDelayMs: 20, ...options });
  return sessionFor(sim, await login(sim.url, options.user, options.password));
}

export function wsUrl(httpUrl: string): string {
  return httpUrl.replace(/^http/, 'ws') + '/subscribe';
}

export interface Subscription {
  ws: WebSocket;
  messages: any[];
  closed: Promise<{ code: number; reason: string }>;
  /** Resolves once at least n messages arrived (rejects after timeoutMs). */
  waitFor(n: number, timeoutMs?: number): Promise<any[]>;
  close(): void;
}

export interface SocketOptions {
  headers?: Record<string, string>;
  /** Sec-WebSocket-Protocol values to offer. */
  protocols?: string[];
}

export function openSocket(httpUrl: string, cookie?: string, opts: SocketOptions = {}): WebSocket {
  return new WebSocket(wsUrl(httpUrl), opts.protocols ?? [], {
    headers: { ...(cookie ? { cookie } : {}), ...opts.headers },
    rejectUnauthorized: false,
  });
}

/** Opens a subscription and sends the filter (as JSON, or a raw string). */
export async function subscribe(httpUrl: string, cookie: string, filter: unknown, opts: SocketOptions = {}): Promise<Subscription> {
  const ws = openSocket(httpUrl, cookie, opts);
  const messages: any[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (data) => {
    messages.push(JSON.parse(data.toString()));
    for (const w of waiters.splice(0)) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      for (const w of waiters.splice(0)) w();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.send(typeof filter === 'string' ? filter : JSON.stringify(filter));
  // The filter has no acknowledgement: a short pause lets the server apply it.
  await new Promise((r) => setTimeout(r, 30));
  return {
    ws,
    messages,
    closed,
    waitFor(n, timeoutMs = 3000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${messages.length}/${n} messages`)), timeoutMs);
        const check = (): void => {
          if (messages.length >= n) {
            clearTimeout(timer);
            resolve(messages);
          } else if (ws.readyState === ws.CLOSED) {
            clearTimeout(timer);
            reject(new Error(`socket closed with ${messages.length}/${n} messages`));
          } else {
            waiters.push(check);
          }
        };
        check();
      });
    },
    close: () => ws.terminate(),
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Sends bytes as they are over TLS (no client-side URL normalisation) and returns the raw response. */
export async function rawHttps(port: number, requestText: string | Buffer): Promise<{ status: number; text: string; body: any }> {
  const { connect } = await import('node:tls');
  const out = await new Promise<string>((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => socket.write(requestText));
    let text = '';
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('end', () => resolve(text));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(out)?.[1] ?? 0);
  const bodyText = out.slice(out.indexOf('\r\n\r\n') + 4);
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    body = undefined;
  }
  return { status, text: out, body };
}
