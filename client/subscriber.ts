/**
 * WebSocket event subscriber for `/subscribe`. Every wait is bounded, and a failed wait says what
 * did arrive, so an event test failure explains itself.
 */
import { withoutTrailingSlashes } from './trim-end.js';
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import WebSocket from 'ws';
import { BmcClientError, SubscriptionError, TargetTimeoutError, classifyNetworkError, formatLimit } from './errors.js';
import type { BmcClient } from './http.js';
import { parseJson, stringifyJson } from './json.js';
import { appendFrame, type Exchange } from './evidence.js';

export interface ReceivedEvent {
  /** performance.now() at arrival. */
  at: number;
  /** Position in arrival order, from 0. */
  seq: number;
  /** Parsed JSON, or undefined when the message is not JSON. */
  data: unknown;
  raw: string;
}

export type ConnectOutcome =
  { kind: 'open'; subscriber: EventSubscriber } | { kind: 'refused'; status?: number } | { kind: 'closed'; code: number; reason: string };

export interface OpenOptions {
  /** Send this exact text instead of the serialised filter. */
  raw?: string;
  /** Default true; false sends no cookie and no XSRF token. */
  auth?: boolean;
  /** Default: the client's connect timeout. */
  handshakeTimeoutMs?: number;
  /** Awaited once the socket is open, before the filter is sent (what arrives meanwhile is recorded). */
  beforeFilter?: (sub: EventSubscriber) => Promise<void>;
  /** A name for the subscription that listeners see (OpenedSubscription.role). */
  role?: string;
}

export interface TryOpenOptions extends OpenOptions {
  /** How long to watch for the server closing the socket after the filter is sent; default 300 ms. */
  settleMs?: number;
}

export type EventPredicate = (data: unknown) => boolean;

/** A subscription as it opened: what the run-wide events oracle needs to judge everything it received. */
export interface OpenedSubscription {
  subscriber: EventSubscriber;
  /** The first message, as sent. */
  filterText: string;
  /** performance.now() once the filter was on the wire: events before it are not judged by it. */
  filterSentAt: number;
  /** Sent without credentials. */
  anonymous: boolean;
  /** The client's run-wide name for it, when it has one (the run's watcher). */
  role?: string;
  /** Its handshake as recorded, with the messages it receives appended: evidence of what it got. */
  exchange?: Exchange;
}

type OpenListener = (s: OpenedSubscription) => void;
const openListeners = new Set<OpenListener>();

const DEFAULT_SETTLE_MS = 300;
const CLOSE_WAIT_MS = 2_000;
const LISTED_EVENTS = 10;
const LISTED_CHARS = 200;

/** wss://host[:port]/subscribe for an https base URL (ws:// for http). */
export function subscribeUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.protocol = url.protocol === 'http:' ? 'ws:' : 'wss:';
  url.pathname = `${withoutTrailingSlashes(url.pathname)}/subscribe`;
  return url.href;
}

interface Handshake {
  socket: WebSocket;
  status: 'open' | 'refused';
  httpStatus?: number;
  /** The handshake as evidence: the messages and the close are added to it as they come. */
  exchange?: Exchange;
}

export class EventSubscriber {
  readonly events: ReceivedEvent[] = [];
  /** Arrival times of the server's pings (ws answers each with a pong by itself). */
  readonly pings: number[] = [];
  private closeState?: { code: number; reason: string };
  /** performance.now() when the socket closed, by either side. */
  closedAt?: number;
  private readonly waiters = new Set<() => void>();

  private constructor(
    private readonly socket: WebSocket,
    exchange?: Exchange,
  ) {
    socket.on('message', (data: WebSocket.RawData) => {
      const raw = rawText(data);
      if (exchange) appendFrame(exchange, raw);
      let parsed: unknown;
      try {
        parsed = parseJson(raw);
      } catch {
        parsed = undefined;
      }
      this.events.push({ at: performance.now(), seq: this.events.length, data: parsed, raw });
      this.wake();
    });
    socket.on('ping', () => this.pings.push(performance.now()));
    socket.on('close', (code: number, reason: Buffer) => {
      this.closedAt = performance.now();
      this.closeState = { code, reason: reason.toString('utf8') };
      if (exchange) exchange.closed = { at: new Date().toISOString(), ...this.closeState };
      this.wake();
    });
    // Errors after the handshake end in 'close'; the listener keeps them from being thrown.
    socket.on('error', () => undefined);
  }

  /** Opens a subscription and sends the filter; throws SubscriptionError if refused or closed at once. */
  static async open(client: BmcClient, filter: unknown, opts: OpenOptions = {}): Promise<EventSubscriber> {
    const outcome = await EventSubscriber.tryOpen(client, filter, { ...opts, settleMs: 0 });
    if (outcome.kind === 'open') return outcome.subscriber;
    const url = subscribeUrl(client.baseUrl);
    if (outcome.kind === 'refused') {
      const reason = outcome.status === undefined ? undefined : STATUS_CODES[outcome.status];
      const status = outcome.status === undefined ? '' : ` (${outcome.status}${reason ? ` ${reason}` : ''})`;
      throw new SubscriptionError(`The WebSocket subscription to ${url} was refused${status}.`);
    }
    throw new SubscriptionError(
      `The WebSocket subscription to ${url} was closed by the target (code ${outcome.code}${outcome.reason ? `, reason "${outcome.reason}"` : ''}).`,
    );
  }

  /**
   * Opens a subscription, sends the filter and watches `settleMs` for the server closing it.
   * Network and TLS failures are thrown classified; refusals are outcomes.
   */
  static async tryOpen(client: BmcClient, filter: unknown, opts: TryOpenOptions = {}): Promise<ConnectOutcome> {
    const text = opts.raw ?? stringifyJson(filter);
    // The handshake is a request too: it keeps to the rate cap.
    await client.paced();
    const hs = await handshake(client, opts, text);
    if (hs.status === 'refused') return { kind: 'refused', status: hs.httpStatus };
    const sub = new EventSubscriber(hs.socket, hs.exchange);
    if (opts.beforeFilter) await opts.beforeFilter(sub);
    await new Promise<void>((resolve) => hs.socket.send(text, () => resolve()));
    const opened: OpenedSubscription = {
      subscriber: sub,
      filterText: text,
      filterSentAt: performance.now(),
      anonymous: opts.auth === false,
    };
    if (opts.role !== undefined) opened.role = opts.role;
    if (hs.exchange) opened.exchange = hs.exchange;
    for (const listener of openListeners) listener(opened);
    // Only a socket provoked before its filter has a moment of its own for it; otherwise the filter
    // follows the opening at once.
    if (hs.exchange && opts.beforeFilter) hs.exchange.filterSentAt = new Date().toISOString();
    const settleMs = opts.settleMs ?? DEFAULT_SETTLE_MS;
    if (settleMs > 0) await sub.waitUntil(() => sub.closed, settleMs);
    if (sub.closeState) return { kind: 'closed', ...sub.closeState };
    return { kind: 'open', subscriber: sub };
  }

  /** Calls `listener` with every subscription opened from now on, once its filter is sent. Returns how to stop. */
  static onOpened(listener: OpenListener): () => void {
    openListeners.add(listener);
    return () => openListeners.delete(listener);
  }

  get closed(): boolean {
    return this.closeState !== undefined;
  }

  get closeInfo(): { code: number; reason: string } | undefined {
    return this.closeState;
  }

  /** Index of the next event to arrive: pass as `from` to ignore everything before now. */
  mark(): number {
    return this.events.length;
  }

  /** First event at or after `from` (default 0) whose parsed data matches. */
  async waitFor(pred: EventPredicate, timeoutMs: number, opts: { from?: number } = {}): Promise<ReceivedEvent> {
    const [event] = await this.waitForCount(pred, 1, timeoutMs, opts);
    return event as ReceivedEvent;
  }

  /** The first `count` matching events at or after `from` (default 0). */
  async waitForCount(pred: EventPredicate, count: number, timeoutMs: number, opts: { from?: number } = {}): Promise<ReceivedEvent[]> {
    const from = opts.from ?? 0;
    const matches = (): ReceivedEvent[] => this.events.slice(from).filter((e) => safeMatch(pred, e.data));
    const done = await this.waitUntil(() => matches().length >= count || this.closed, timeoutMs);
    const found = matches();
    if (found.length >= count) return found.slice(0, count);
    const wanted = count === 1 ? 'a matching event' : `${count} matching events (got ${found.length})`;
    const why =
      done && this.closeState
        ? `the event socket closed (code ${this.closeState.code}) before ${wanted} arrived`
        : `${wanted} did not arrive within ${formatLimit(timeoutMs)}`;
    throw new TargetTimeoutError(`On /subscribe ${why}; ${this.describeSince(from)}.`);
  }

  /** Resolves after `windowMs` if no matching event arrived at or after `from` (default: now). */
  async expectQuiet(pred: EventPredicate, windowMs: number, opts: { from?: number } = {}): Promise<void> {
    const from = opts.from ?? this.events.length;
    const firstMatch = (): ReceivedEvent | undefined => this.events.slice(from).find((e) => safeMatch(pred, e.data));
    await this.waitUntil(() => firstMatch() !== undefined, windowMs);
    const hit = firstMatch();
    if (hit) {
      throw new BmcClientError(`On /subscribe an event arrived that should not have: ${clip(hit.raw)}.`);
    }
  }

  /** Closes the socket (code 1000) and waits briefly for the close handshake. */
  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return;
    if (this.socket.readyState !== WebSocket.CLOSING) this.socket.close(1000);
    const closed = await this.waitUntil(() => this.socket.readyState === WebSocket.CLOSED, CLOSE_WAIT_MS);
    if (!closed) this.socket.terminate();
  }

  /** Resolves true once `cond` holds, false after `timeoutMs`. */
  private waitUntil(cond: () => boolean, timeoutMs: number): Promise<boolean> {
    if (cond()) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const check = (): void => {
        if (!cond()) return;
        cleanup();
        resolve(true);
      };
      const timer = setTimeout(() => {
        cleanup();
        resolve(cond());
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
    });
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  private describeSince(from: number): string {
    const seen = this.events.slice(from);
    if (seen.length === 0) return 'no event arrived at all';
    const shown = seen.slice(-LISTED_EVENTS).map((e) => `#${e.seq} ${clip(e.raw)}`);
    const more = seen.length > LISTED_EVENTS ? ` (last ${LISTED_EVENTS} shown)` : '';
    return `${seen.length} other event(s) arrived${more}: ${shown.join(' ; ')}`;
  }
}

function safeMatch(pred: EventPredicate, data: unknown): boolean {
  try {
    return pred(data);
  } catch {
    return false;
  }
}

function clip(text: string): string {
  return text.length > LISTED_CHARS ? `${text.slice(0, LISTED_CHARS)}…` : text;
}

function rawText(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/** Runs the opening handshake; resolves with the open socket or the refusal. */
function handshake(client: BmcClient, opts: OpenOptions, filterText: string): Promise<Handshake> {
  const settings = client.settings;
  const url = subscribeUrl(settings.baseUrl);
  const auth = opts.auth ?? true;
  const headers: Record<string, string> = {};
  let protocol: string | undefined;
  if (auth) {
    const cookie = client.cookieHeader('/subscribe');
    if (cookie) headers.Cookie = cookie;
    // bmcweb wants the XSRF token as the subprotocol of a cookie-authenticated socket.
    const xsrf = client.xsrfToken();
    if (xsrf && /^[!#$%&'*+\-.0-9A-Z^_`|a-z~]+$/.test(xsrf)) protocol = xsrf;
  }
  const timeoutMs = opts.handshakeTimeoutMs ?? settings.connectTimeoutMs;
  const started = new Date();
  const t0 = performance.now();
  const evidence = client.evidenceLog;
  let exchange: Exchange | undefined;
  const record = (status?: number, error?: string, responseHeaders?: IncomingMessage['headers']): void => {
    const x: Exchange = {
      at: started.toISOString(),
      method: 'GET',
      url: '/subscribe',
      requestHeaders: { upgrade: 'websocket', ...headers, ...(protocol ? { 'sec-websocket-protocol': protocol } : {}) },
      // The filter is sent as the first message once the socket is open.
      requestBody: status === 101 ? filterText : undefined,
      status,
      statusLine: status === undefined ? undefined : `${status} ${STATUS_CODES[status] ?? ''}`.trim(),
      responseHeaders,
      durationMs: performance.now() - t0,
      error,
    };
    // An open subscription stays live in the log: what it receives is part of its evidence.
    if (status === 101) exchange = evidence?.recordLive(x);
    else evidence?.record(x);
  };

  return new Promise<Handshake>((resolve, reject) => {
    const socket = new WebSocket(url, protocol ? [protocol] : [], {
      headers,
      rejectUnauthorized: !settings.insecure,
      handshakeTimeout: timeoutMs,
      perMessageDeflate: false,
    });
    let settled = false;
    const done = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      fn();
    };
    socket.on('upgrade', (res: IncomingMessage) => {
      // Servers that do not echo the subprotocol are still accepted (ws would abort otherwise).
      if (protocol && res.headers['sec-websocket-protocol'] === undefined) res.headers['sec-websocket-protocol'] = protocol;
      record(res.statusCode, undefined, res.headers);
    });
    socket.on('unexpected-response', (req, res: IncomingMessage) => {
      record(res.statusCode, undefined, res.headers);
      res.resume();
      req.destroy();
      done(() => resolve({ socket, status: 'refused', httpStatus: res.statusCode }));
    });
    socket.once('open', () => done(() => resolve({ socket, status: 'open', exchange })));
    socket.on('error', (err: Error) => {
      done(() => {
        const timedOut = /opening handshake has timed out/i.test(err.message);
        const error = timedOut
          ? new TargetTimeoutError(`The target did not complete the WebSocket handshake on ${url} within ${formatLimit(timeoutMs)}.`, {
              cause: err,
            })
          : /^(Unexpected server response|Invalid|Server sent)/.test(err.message)
            ? new SubscriptionError(`The WebSocket handshake with ${url} failed: ${err.message.replace(/\.$/, '')}.`, { cause: err })
            : classifyNetworkError(err, settings.baseUrl, { method: 'GET', path: '/subscribe', timeoutMs });
        record(undefined, error.message);
        reject(error);
      });
    });
    socket.on('close', () => {
      // Closed during the handshake without an HTTP answer or error: a refusal without a status.
      done(() => resolve({ socket, status: 'refused' }));
    });
  });
}
