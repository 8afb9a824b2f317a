/**
 * BmcClient: the only place where requests to the target are formed. Suites, the fuzzer and the
 * load tool all go through it, so session handling, XSRF echo, retries, rate caps, timeouts and
 * evidence work the same everywhere.
 */
import { withoutTrailingSlashes } from './trim-end.js';
import { isUtf8 } from 'node:buffer';
import { STATUS_CODES } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent } from './undici-agent.js';
import { SessionCookies, type SerializedCookies } from './cookies.js';
import {
  BmcClientError,
  ConnectionLostError,
  InterruptedError,
  LoginRefusedError,
  ResponseTooLargeError,
  TargetDownError,
  TargetTimeoutError,
  UnreachableError,
  classifyNetworkError,
  formatLimit,
  messageOf,
} from './errors.js';
import { EvidenceLog, bodyToText } from './evidence.js';
import { parseJson, stringifyJson } from './json.js';
import { RateLimiter } from './rate.js';
import { Reachability } from './reachability.js';
import { clientDefaults, emitClientEvent, interruptSignal } from './run-context.js';
import { threadSessions, type SessionLedger } from './session-ledger.js';
import { wholeTreeRoute } from './tree-reads.js';
import {
  ExchangeFailed,
  ExchangeTimeout,
  ExchangeTooLarge,
  exchange,
  requestTarget,
  type Progress,
  type RawResponse,
} from './transport.js';

export type { SerializedCookies } from './cookies.js';

export interface ClientOptions {
  /** e.g. https://127.0.0.1:8443 (a trailing slash is ignored). */
  baseUrl: string;
  user: string;
  password: string;
  /** Accept self-signed or mismatched certificates. */
  insecure?: boolean;
  /** Per request; default 120 000 ms (an enumerate on real hardware can take minutes). */
  timeoutMs?: number;
  /** Default 10 000 ms. */
  connectTimeoutMs?: number;
  /** Cap on request starts per second (0 = none), shared by this client and the forks that keep it. */
  maxRequestsPerSecond?: number;
  /** Default 3; Retry-After is honoured (capped at 30 s), otherwise exponential backoff. */
  max503Retries?: number;
  evidence?: EvidenceLog;
  /** Start with an existing session. */
  cookies?: SerializedCookies;
  /** Keep-alive pool size; default 4. */
  connections?: number;
  /**
   * When the spec's login body is rejected as malformed (400/415/422), retry once with
   * {"username", "password"} as newer bmcweb wants. Default true. `tryLogin` never falls back.
   */
  loginFallback?: boolean;
  /**
   * Answers longer than this are cut off, never buffered whole, and the request fails with a
   * ResponseTooLargeError. Default: the run's (`setClientDefaults`), else 32 MiB.
   */
  maxResponseBytes?: number;
  /**
   * How long a request that finds the target unreachable (refused, or reset and then refused)
   * waits for it to come back, as after a reboot; it then fails with a TargetDownError naming the
   * outage, and the next request goes on. After a wait in vain, requests fail at once. Default:
   * the run's (`setClientDefaults`), else 0: no waiting.
   */
  outageWaitMs?: number;
  /** Where this client and its forks count the sessions they open and close (default: the thread's). */
  sessions?: SessionLedger;
}

export interface BmcResponse {
  status: number;
  /** `<code> <reason>` with the reason phrase as received, or the standard one if none came. */
  statusLine: string;
  /** Lower-case names. */
  headers: Record<string, string | string[] | undefined>;
  /** Body decoded as UTF-8. */
  text: string;
  /** Lossless-parsed JSON; undefined when the body is empty or not JSON. */
  json: unknown;
  /** Why JSON parsing failed, if it did. */
  jsonError?: string;
  durationMs: number;
}

export interface RequestOptions {
  /** Serialised as is (helpers such as put/post wrap their value in {"data": …}). */
  json?: unknown;
  /** Raw body, for fuzzing and uploads. */
  body?: Buffer | string;
  /** Exact Content-Type value; default application/json when `json` is given, none otherwise. */
  contentType?: string;
  /** Extra headers; they override the defaults. */
  headers?: Record<string, string>;
  /** Default true. false sends no credentials at all and stores no cookies. */
  auth?: boolean;
  /** Default true: a 401 to an authenticated request triggers one new login and one retry. */
  relogin?: boolean;
  timeoutMs?: number;
  /** Overrides the client's max503Retries for this request (0 shows a 503 as is). */
  max503Retries?: number;
}

export type HelperOptions = Omit<RequestOptions, 'json' | 'body'>;

/** Read-only view of the target settings, for the WebSocket subscriber and reports. */
export interface TargetSettings {
  baseUrl: string;
  user: string;
  insecure: boolean;
  timeoutMs: number;
  connectTimeoutMs: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_503_RETRIES = 3;
const DEFAULT_CONNECTIONS = 4;
const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
/** A reachability probe waits no longer than this for its answer. */
const PROBE_TIMEOUT_MS = 5_000;
const RETRY_AFTER_CAP_MS = 30_000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 8_000;
/** Cookie values shorter than this are not treated as secrets (e.g. `lang=en`). */
const SECRET_COOKIE_MIN_LENGTH = 8;

/** Statuses that mean "the body shape was rejected", not "the credentials were wrong". */
const LOGIN_FORM_REJECTED = new Set([400, 415, 422]);

/** A login answered so was refused for its body's shape: the field form `{username, password}` is worth a try. */
export function loginFormRejected(status: number): boolean {
  return LOGIN_FORM_REJECTED.has(status);
}

export type LoginForm = 'data-array' | 'username-password' | 'custom';

interface SendFlags {
  sendCredentials: boolean;
  storeCookies: boolean;
  /** false for the client's own probes, which are no exchange of a test. */
  record?: boolean;
}

export class BmcClient {
  readonly baseUrl: string;
  private readonly options: ClientOptions;
  private readonly origin: string;
  private readonly prefix: string;
  private readonly agent: Agent;
  private readonly cookies: SessionCookies;
  private readonly limiter?: RateLimiter;
  private readonly reachability: Reachability;
  private readonly evidence?: EvidenceLog;
  private token?: string;
  private form?: LoginForm;
  /** Bumped on every stored login, so concurrent 401s share one re-login. */
  private epoch = 0;
  /** An authenticated request of the current session was answered 2xx: the session worked. */
  private sessionWorked = false;
  private relogging?: Promise<boolean>;
  /** The stored session was opened by this client's own login (and not logged out yet). */
  private ownsSession = false;
  private closing?: Promise<void>;

  /** `shared` is for fork(): it passes the rate limiter and what is known of the target's reachability on. */
  constructor(opts: ClientOptions, shared?: { limiter?: RateLimiter; reachability?: Reachability }) {
    const url = parseBaseUrl(opts.baseUrl);
    this.options = { ...opts };
    this.origin = url.origin;
    this.prefix = withoutTrailingSlashes(url.pathname);
    this.baseUrl = this.origin + this.prefix;
    this.cookies = new SessionCookies(this.baseUrl, opts.cookies);
    this.evidence = opts.evidence;
    this.evidence?.addSecret(opts.password);
    // 0 or absent means no cap.
    this.limiter = shared?.limiter ?? (opts.maxRequestsPerSecond ? new RateLimiter(opts.maxRequestsPerSecond) : undefined);
    const waitMs = opts.outageWaitMs ?? clientDefaults().outageWaitMs ?? 0;
    this.reachability = shared?.reachability ?? new Reachability(waitMs, (outage) => emitClientEvent({ type: 'outage', outage }));
    const insecure = opts.insecure ?? false;
    this.agent = new Agent({
      connections: opts.connections ?? DEFAULT_CONNECTIONS,
      headersTimeout: this.timeoutMs(),
      bodyTimeout: this.timeoutMs(),
      connect: {
        rejectUnauthorized: !insecure,
        timeout: opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      },
    });
    for (const c of this.cookies.list()) this.redactCookie(c.value);
  }

  get settings(): TargetSettings {
    return {
      baseUrl: this.baseUrl,
      user: this.options.user,
      insecure: this.options.insecure ?? false,
      timeoutMs: this.timeoutMs(),
      connectTimeoutMs: this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    };
  }

  /** The token a bmcweb-style login returned, if any (cookies stay the credential in use). */
  get authToken(): string | undefined {
    return this.token;
  }

  /** Which body the last successful login used. */
  get loginForm(): LoginForm | undefined {
    return this.form;
  }

  get evidenceLog(): EvidenceLog | undefined {
    return this.evidence;
  }

  // --- Requests ---------------------------------------------------------------------------------

  /** Sends one request; `path` is used verbatim (only bytes illegal in a request line are encoded). */
  async request(method: string, path: string, opts: RequestOptions = {}): Promise<BmcResponse> {
    const auth = opts.auth ?? true;
    const epoch = this.epoch;
    const flags = { sendCredentials: auth, storeCookies: auth };
    const res = await this.send(method, path, opts, flags);
    if (auth && isSuccess(res) && this.epoch === epoch && !isLoginPath(path)) this.sessionWorked = true;
    if (res.status !== 401 || !auth || opts.relogin === false || isLoginPath(path)) return res;
    // One new login, then one retry: a second 401 is returned as it is.
    if (!(await this.renewSession(epoch, { method, path, status: res.status }))) return res;
    return this.send(method, path, opts, flags);
  }

  get(path: string, opts: HelperOptions = {}): Promise<BmcResponse> {
    return this.request('GET', path, opts);
  }

  /** PUT with body {"data": data}. */
  put(path: string, data: unknown, opts: HelperOptions = {}): Promise<BmcResponse> {
    return this.request('PUT', path, { ...opts, json: { data } });
  }

  /** POST with body {"data": data}. */
  post(path: string, data: unknown, opts: HelperOptions = {}): Promise<BmcResponse> {
    return this.request('POST', path, { ...opts, json: { data } });
  }

  delete(path: string, opts: HelperOptions = {}): Promise<BmcResponse> {
    return this.request('DELETE', path, opts);
  }

  /** POST /upload/image, or PUT /upload/image/{remoteName}, as application/octet-stream. */
  upload(image: Buffer, remoteName?: string, opts: HelperOptions = {}): Promise<BmcResponse> {
    const request: RequestOptions = { ...opts, body: image, contentType: 'application/octet-stream' };
    return remoteName === undefined
      ? this.request('POST', '/upload/image', request)
      : this.request('PUT', `/upload/image/${encodeURIComponent(remoteName)}`, request);
  }

  // --- Session ------------------------------------------------------------------------------------

  /**
   * Logs in and stores the session. Default body {"data": [user, password]}; throws
   * LoginRefusedError when the target does not answer 2xx.
   */
  async login(body?: unknown): Promise<BmcResponse> {
    const { user, password } = this.options;
    let res = await this.tryLogin(body ?? { data: [user, password] });
    let form: LoginForm = body === undefined ? 'data-array' : 'custom';
    if (body === undefined && !isSuccess(res) && loginFormRejected(res.status) && this.options.loginFallback !== false) {
      const alt = await this.tryLogin({ username: user, password });
      if (isSuccess(alt)) {
        res = alt;
        form = 'username-password';
      }
    }
    if (!isSuccess(res)) throw new LoginRefusedError(user, res.status, res.statusLine);
    this.form = form;
    return res;
  }

  /**
   * Sends a login body as given and returns the answer without throwing. Only a 2xx answer
   * replaces the stored session (unless `store` is false). No old credentials are sent.
   */
  async tryLogin(body: unknown, opts: { contentType?: string; store?: boolean } = {}): Promise<BmcResponse> {
    const res = await this.send(
      'POST',
      '/login',
      { json: body, contentType: opts.contentType },
      { sendCredentials: false, storeCookies: false },
    );
    if ((opts.store ?? true) && isSuccess(res)) this.storeSession(res);
    return res;
  }

  /**
   * POST /logout {"data": []}. The cookies stay in the jar so a test can show that the target
   * now refuses them; the next 401 starts a new session unless `relogin: false` is passed.
   */
  async logout(): Promise<BmcResponse> {
    const key = this.cookies.header('/');
    // What follows a logout of ours is no loss of the session.
    this.sessionWorked = false;
    const res = await this.request('POST', '/logout', { json: { data: [] }, relogin: false });
    if (this.ownsSession && isSuccess(res)) {
      this.ownsSession = false;
      this.sessions.closed();
    }
    if (isSuccess(res) && key) emitClientEvent({ type: 'session', open: false, key, cookies: this.cookies.serialize() });
    return res;
  }

  /** Waits for the next start the rate cap allows, for a request made beside the client (the WebSocket handshake). */
  async paced(): Promise<void> {
    await this.limiter?.acquire();
  }

  /** Cookie header value for a request to `path` (for the WebSocket handshake). */
  cookieHeader(path = '/'): string {
    return this.cookies.header(path);
  }

  /** Value of the XSRF-TOKEN cookie, if the target set one. */
  xsrfToken(): string | undefined {
    return this.cookies.xsrfToken();
  }

  exportCookies(): SerializedCookies {
    return this.cookies.serialize();
  }

  /** Drops the stored session without telling the target. */
  clearSession(): void {
    this.cookies.clear();
    this.token = undefined;
  }

  /**
   * A new client for the same target with an empty cookie jar (its own session). The rate cap
   * stays shared unless `maxRequestsPerSecond` is overridden; the evidence log is shared.
   */
  fork(overrides: Partial<ClientOptions> = {}): BmcClient {
    const keepLimiter = overrides.maxRequestsPerSecond === undefined;
    return new BmcClient(
      { ...this.options, cookies: undefined, ...overrides },
      { limiter: keepLimiter ? this.limiter : undefined, reachability: this.reachability },
    );
  }

  /**
   * Closes the connection pool; requests still running after 1 s are aborted. A session this
   * client opened itself is logged out first: a run leaves no session behind.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.ownsSession) await this.logout().catch(() => undefined);
      const closed = this.agent.close();
      const graceful = await Promise.race([closed.then(() => true), sleep(1000, false, { ref: false })]);
      if (!graceful) await this.agent.destroy().catch(() => undefined);
    })();
    return this.closing;
  }

  /** Drops the connections at once and logs nothing out: for a client whose target is gone. */
  drop(): Promise<void> {
    this.closing ??= this.agent.destroy().catch(() => undefined);
    return this.closing;
  }

  // --- Internals ----------------------------------------------------------------------------------

  private timeoutMs(): number {
    return this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  private get sessions(): SessionLedger {
    return this.options.sessions ?? threadSessions;
  }

  private maxResponseBytes(): number {
    return this.options.maxResponseBytes ?? clientDefaults().maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  }

  private storeSession(res: BmcResponse): void {
    // The session this client held before is not ended by a new login: only logout ends it.
    this.ownsSession = true;
    this.sessions.opened();
    this.cookies.clear();
    for (const c of this.cookies.store(res.headers['set-cookie'], '/login')) this.redactCookie(c.value);
    const json = res.json;
    const token = json && typeof json === 'object' ? (json as Record<string, unknown>).token : undefined;
    this.token = typeof token === 'string' ? token : undefined;
    if (this.token) this.evidence?.addSecret(this.token);
    this.epoch++;
    this.sessionWorked = false;
    const key = this.cookies.header('/');
    if (key) emitClientEvent({ type: 'session', open: true, key, cookies: this.cookies.serialize() });
  }

  /**
   * A cookie value the evidence never shows, when it is long enough to be a secret: a flag such as
   * bmcweb's `IsAuthenticated=true` is not, and masking it would mask every `true` in the evidence.
   */
  redactCookie(value: string): void {
    if (value.length >= SECRET_COOKIE_MIN_LENGTH) this.evidence?.addSecret(value);
  }

  /** True when a usable new session exists (made by this call or a concurrent one). */
  private async renewSession(epochAtSend: number, met: { method: string; path: string; status: number }): Promise<boolean> {
    if (this.epoch !== epochAtSend) return true;
    // The target forgot the session (expired, evicted): it is over, and not by our doing.
    if (!this.relogging) {
      if (this.ownsSession) {
        this.ownsSession = false;
        this.sessions.closed();
      }
      // A session that had worked (ours, or one handed to this client): the run is told.
      if (this.sessionWorked) emitClientEvent({ type: 'session-lost', loss: { at: new Date().toISOString(), ...met } });
      this.sessionWorked = false;
    }
    this.relogging ??= this.login()
      .then(() => true)
      .catch((err: unknown) => {
        if (err instanceof LoginRefusedError) return false;
        throw err;
      })
      .finally(() => {
        this.relogging = undefined;
      });
    return this.relogging;
  }

  /**
   * One logical request: the exchange plus bounded retries of 503 answers. A target found gone
   * is waited for (bounded), and the request then fails naming the outage.
   */
  private async send(method: string, path: string, opts: RequestOptions, flags: SendFlags): Promise<BmcResponse> {
    const maxRetries = opts.max503Retries ?? this.options.max503Retries ?? DEFAULT_503_RETRIES;
    const gone = this.reachability.gaveUp;
    if (gone) throw new TargetDownError(gone);
    for (let attempt = 0; ; attempt++) {
      const res = await this.sendOnce(method, path, opts, flags).catch(async (err: unknown) => {
        throw await this.outageBehind(err, new Date());
      });
      if (res.status !== 503 || attempt >= maxRetries) return res;
      await sleep(retryDelayMs(res.headers['retry-after'], attempt));
    }
  }

  /**
   * A refused connection, or a reset after which the target no longer answers, is an outage
   * (a reboot): waited out when the client may wait, and then reported as a TargetDownError.
   */
  private async outageBehind(err: unknown, failedAt: Date): Promise<unknown> {
    if (!this.reachability.waits || err instanceof TargetDownError || err instanceof InterruptedError) return err;
    const down = err instanceof UnreachableError || (err instanceof ConnectionLostError && !(await this.answers()));
    if (!down) return err;
    const cause = err instanceof UnreachableError ? err.reason : 'connection reset, then no answer';
    return new TargetDownError(await this.reachability.waitOut(failedAt, cause, () => this.answers()));
  }

  /** True when the target answers at all over HTTP (below 500), without credentials. */
  private async answers(): Promise<boolean> {
    const timeoutMs = Math.min(PROBE_TIMEOUT_MS, this.timeoutMs());
    const flags = { sendCredentials: false, storeCookies: false, record: false };
    return this.sendOnce('GET', '/', { timeoutMs }, flags).then(
      (res) => res.status < 500,
      () => false,
    );
  }

  private async sendOnce(method: string, path: string, opts: RequestOptions, flags: SendFlags): Promise<BmcResponse> {
    if (this.closing) throw new BmcClientError(`The client for ${this.baseUrl} is closed.`);
    const target = requestTarget(this.prefix, path);
    const headers = this.requestHeaders(method, path, opts, flags);
    const body = opts.json !== undefined ? stringifyJson(opts.json) : opts.body;
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs();
    const signal = interruptSignal();

    await this.limiter?.acquire();
    const at = new Date();
    const start = performance.now();
    let raw: RawResponse;
    const sent = { at: at.toISOString(), method, url: target, requestHeaders: headers, requestBody: bodyToText(body) };
    const evidence = flags.record === false ? undefined : this.evidence;
    try {
      raw = await exchange(this.agent, {
        origin: this.origin,
        path: target,
        method,
        headers,
        body,
        timeoutMs,
        maxResponseBytes: this.maxResponseBytes(),
        signal,
      });
    } catch (err) {
      const error = exchangeError(err, this.baseUrl, { method, path, timeoutMs });
      evidence?.record({ ...sent, durationMs: performance.now() - start, error: error.message });
      countTreeRead(method, path, performance.now() - start);
      throw error;
    }
    const durationMs = performance.now() - start;
    countTreeRead(method, path, durationMs);
    const res = toResponse(raw, durationMs);
    if (flags.storeCookies) {
      for (const c of this.cookies.store(res.headers['set-cookie'], path)) this.redactCookie(c.value);
    }
    evidence?.record(
      {
        ...sent,
        status: res.status,
        statusLine: res.statusLine,
        responseHeaders: res.headers,
        responseBody: res.json !== undefined || isUtf8(raw.body) ? res.text : bodyToText(raw.body),
        durationMs,
      },
      res.json,
    );
    return res;
  }

  private requestHeaders(method: string, path: string, opts: RequestOptions, flags: SendFlags): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json' };
    const contentType = opts.contentType ?? (opts.json !== undefined ? 'application/json' : undefined);
    if (contentType !== undefined) headers['content-type'] = contentType;
    if (flags.sendCredentials) {
      const cookie = this.cookies.header(path);
      if (cookie) headers.cookie = cookie;
      const xsrf = this.cookies.xsrfToken(path);
      // bmcweb refuses cookie-authenticated non-GET requests without this echo.
      if (xsrf && method.toUpperCase() !== 'GET') headers['x-xsrf-token'] = xsrf;
    }
    for (const [name, value] of Object.entries(opts.headers ?? {})) headers[name.toLowerCase()] = value;
    return headers;
  }
}

/** A whole-tree read is told to the run, which counts them and their cost. */
function countTreeRead(method: string, path: string, ms: number): void {
  const route = wholeTreeRoute(method, path);
  if (route) emitClientEvent({ type: 'tree-read', read: { route, ms } });
}

/** What became of an exchange that brought no complete answer, as one sentence naming the fault. */
function exchangeError(err: unknown, baseUrl: string, ctx: { method: string; path: string; timeoutMs: number }): Error {
  const what = `${ctx.method} ${ctx.path}`;
  if (err instanceof ExchangeTimeout) return timeoutError(err, what);
  if (err instanceof ExchangeTooLarge) {
    const size = err.progress.announced !== undefined ? `it announced ${formatBytes(err.progress.announced)}` : 'it was longer';
    return new ResponseTooLargeError(
      `The answer to ${what} was cut off at the ${formatBytes(err.limit)} cap (--max-response-bytes): ${size}.`,
      {
        cause: err,
        fault: 'answer over the size cap',
      },
    );
  }
  if (err instanceof InterruptedError) return err;
  if (err instanceof ExchangeFailed) return classifyNetworkError(err.cause, baseUrl, { ...ctx, progress: err.progress });
  return classifyNetworkError(err, baseUrl, ctx);
}

/** No answer at all, an answer that stopped coming, or one that came too slowly to finish. */
function timeoutError(err: ExchangeTimeout, what: string): TargetTimeoutError {
  const limit = formatLimit(err.timeoutMs);
  const p: Progress = err.progress;
  if (!p.answered)
    return new TargetTimeoutError(`The target did not answer ${what} within ${limit}.`, { cause: err, fault: 'no answer in time' });
  // Quiet for half the limit, and far longer than any wait between its pieces so far: it stopped.
  // Otherwise bytes were still coming, only too slowly.
  if (p.quietMs >= Math.max(err.timeoutMs / 2, 2 * p.longestGapMs)) {
    return new TargetTimeoutError(
      `The answer to ${what} stalled: ${p.bytes} bytes of its body arrived, then nothing for ${formatLimit(Math.round(p.quietMs))}; limit ${limit}.`,
      { cause: err, fault: 'answer stalled' },
    );
  }
  return new TargetTimeoutError(`The answer to ${what} was still trickling in after ${limit}: ${p.bytes} bytes of its body had arrived.`, {
    cause: err,
    fault: 'answer trickled',
  });
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Number((n / (1024 * 1024)).toFixed(1))} MiB`;
  if (n >= 1024) return `${Number((n / 1024).toFixed(1))} KiB`;
  return `${n} bytes`;
}

function parseBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new BmcClientError(`The target URL ${JSON.stringify(baseUrl)} is not a valid URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new BmcClientError(`The target URL ${baseUrl} must start with https://.`);
  }
  return url;
}

/** A 2xx answer. */
export function isSuccess(res: BmcResponse): boolean {
  return res.status >= 200 && res.status < 300;
}

function isLoginPath(path: string): boolean {
  return /^\/login\/?(?:[?#].*)?$/i.test(path);
}

function toResponse(raw: RawResponse, durationMs: number): BmcResponse {
  const reason = raw.statusText.trim() || STATUS_CODES[raw.status] || '';
  const text = raw.body.toString('utf8');
  const res: BmcResponse = {
    status: raw.status,
    statusLine: reason ? `${raw.status} ${reason}` : String(raw.status),
    headers: raw.headers,
    text,
    json: undefined,
    durationMs,
  };
  if (text.trim() !== '') {
    try {
      res.json = parseJson(text);
    } catch (err) {
      res.jsonError = htmlPage(text, raw.headers['content-type']) ?? messageOf(err);
    }
  }
  return res;
}

/** An HTML page where JSON was expected (a front proxy's error page, a web UI), named by its title. */
function htmlPage(text: string, contentType: string | string[] | undefined): string | undefined {
  const type = (Array.isArray(contentType) ? contentType[0] : contentType)?.split(';')[0]?.trim();
  if (!/html/i.test(type ?? '') && !/^\s*<(!doctype html|html)/i.test(text)) return undefined;
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.trim() || text.trim().slice(0, 60);
  return `an HTML page${type ? ` (${type})` : ''}, not JSON: ${JSON.stringify(title)}`;
}

/** Delay before retrying a 503: Retry-After (seconds or HTTP-date) capped, else exponential backoff. */
export function retryDelayMs(retryAfter: string | string[] | undefined, attempt: number): number {
  const value = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
  if (value !== undefined) {
    const trimmed = value.trim();
    if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed) * 1000, RETRY_AFTER_CAP_MS);
    const date = Date.parse(trimmed);
    if (!Number.isNaN(date)) return Math.min(Math.max(date - Date.now(), 0), RETRY_AFTER_CAP_MS);
  }
  return Math.min(BACKOFF_BASE_MS * 2 ** attempt, BACKOFF_CAP_MS);
}
