/**
 * Evidence of HTTP exchanges for reports. Everything is redacted on the way in, so no password,
 * cookie or token can leak into a report, whatever the caller later does with the entries.
 */
import { isUtf8 } from 'node:buffer';
import { parseJson, stringifyJson } from './json.js';

export interface Exchange {
  /** ISO timestamp of when the request was sent. */
  at: string;
  method: string;
  /** Request target as sent (path and query). */
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status?: number;
  statusLine?: string;
  responseHeaders?: Record<string, string | string[] | undefined>;
  responseBody?: string;
  durationMs: number;
  /** Set when no response arrived (network failure, timeout). */
  error?: string;
  /** A WebSocket subscription (the handshake above): the messages the server sent on it, in order. */
  frames?: Frame[];
  /** When the subscription's filter message was sent (the handshake's `at` is when it was opened). */
  filterSentAt?: string;
  /** Messages received beyond those kept. */
  framesDropped?: number;
  /** When and how the subscription's socket closed, if it did while recorded. */
  closed?: { at: string; code: number; reason: string };
}

/** A message the server sent on a subscription, with its arrival time (ISO). */
export interface Frame {
  at: string;
  text: string;
}

/** A header's value by its name in any case (`name` lower-case); several values joined with ", ". */
export function headerValue(headers: Readonly<Record<string, unknown>> | undefined, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers ?? {})) if (k.toLowerCase() === name) return Array.isArray(v) ? v.join(', ') : String(v);
  return undefined;
}

/** Messages kept per subscription: an event FAIL is read from the first ones. */
export const FRAMES_PER_SUBSCRIPTION = 100;
const FRAME_LIMIT = 2 * 1024;

export const REQUEST_BODY_LIMIT = 4 * 1024;
export const RESPONSE_BODY_LIMIT = 8 * 1024;
const DEFAULT_CAPACITY = 200;
export const REDACTED = '<redacted>';
const MASK = '***';

const SECRET_HEADERS = new Set(['cookie', 'set-cookie', 'x-auth-token', 'x-xsrf-token', 'authorization', 'sec-websocket-protocol']);

/** Replaces every occurrence of each secret (raw, JSON-escaped and URL-encoded) with `***`. */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    // Very short secrets would blank out ordinary text; structured redaction still covers them.
    if (secret.length < 3) continue;
    // Most texts hold no secret: a search is far cheaper than a split and join that change nothing.
    for (const form of formsOf(secret)) if (out.includes(form)) out = out.split(form).join(MASK);
  }
  return out;
}

/** A secret's raw, JSON-escaped and URL-encoded forms, each once; kept, since a run redacts with the same few. */
const FORMS = new Map<string, readonly string[]>();

function formsOf(secret: string): readonly string[] {
  let forms = FORMS.get(secret);
  if (!forms) {
    forms = [...new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)])];
    // Session cookies become secrets too: the cache stays bounded in a long process (a fleet, the self-test).
    if (FORMS.size >= 1000) FORMS.clear();
    FORMS.set(secret, forms);
  }
  return forms;
}

/** True for JSON member names that carry credentials. */
function isSecretKey(key: string): boolean {
  const k = key.toLowerCase();
  return k === 'password' || k === 'token' || k.endsWith('password') || k.endsWith('token');
}

/** Returns the value with credential members masked, or the same object when none was found. */
function redactValue(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(redactValue);
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  if (value !== null && typeof value === 'object') {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const masked = isSecretKey(k) ? MASK : redactValue(v);
      if (masked !== v) changed = true;
      Object.defineProperty(out, k, { value: masked, enumerable: true, writable: true, configurable: true });
    }
    return changed ? out : value;
  }
  return value;
}

function isLoginPath(url: string): boolean {
  return /\/login\/?$/i.test(url.split(/[?#]/)[0] ?? '');
}

/**
 * Redacts a JSON body; the text stays as received unless a member had to be masked. Non-JSON
 * text only gets secret-string redaction.
 */
export function redactBody(body: string, url: string, secrets: readonly string[]): string {
  let text = body;
  try {
    const original = parseJson(body);
    let value = original;
    if (isLoginPath(url) && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const data = (value as Record<string, unknown>).data;
      if (Array.isArray(data) && data.length > 1) {
        value = { ...(value as Record<string, unknown>), data: data.map((x, i) => (i === 1 ? MASK : x)) };
      }
    }
    value = redactValue(value);
    if (value !== original) text = stringifyJson(value);
  } catch {
    // Not JSON (fuzzed or binary body): fall through to plain text redaction.
  }
  return redactText(text, secrets);
}

/** Cookie request header: every pair keeps its name, loses its value. */
function redactCookieValues(value: string): string {
  return value
    .split(';')
    .map((part) => {
      const eq = part.indexOf('=');
      return eq < 0 ? REDACTED : `${part.slice(0, eq)}=${REDACTED}`;
    })
    .join(';');
}

/** Set-Cookie: only the first pair is the cookie; attributes such as Path stay readable. */
function redactSetCookie(value: string): string {
  const [first = '', ...attrs] = value.split(';');
  const eq = first.indexOf('=');
  const name = eq < 0 ? '' : first.slice(0, eq);
  return [eq < 0 ? REDACTED : `${name}=${REDACTED}`, ...attrs].join(';');
}

export function redactHeaders<T extends string | string[] | undefined>(
  headers: Record<string, T>,
  secrets: readonly string[],
): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    const one = (v: string): string => {
      if (lower === 'set-cookie') return redactSetCookie(v);
      if (lower === 'cookie') return redactCookieValues(v);
      if (SECRET_HEADERS.has(lower)) return REDACTED;
      return redactText(v, secrets);
    };
    if (value === undefined) out[name] = value;
    else out[name] = (Array.isArray(value) ? value.map(one) : one(value)) as T;
  }
  return out;
}

/** Bodies longer than this are redacted as text from their head only (a 2 MiB probe is not parsed). */
const WHOLE_BODY_LIMIT = 256 * 1024;

/**
 * A body as evidence keeps it: redacted, then cut to `limit`. A huge body is cut first, with room
 * for a secret that straddles the cut, and redacted as plain text.
 */
function evidenceBody(text: string, url: string, secrets: readonly string[], limit: number): string {
  if (text.length <= WHOLE_BODY_LIMIT) return truncate(redactBody(text, url, secrets), limit);
  const room = Math.max(0, ...secrets.map((s) => s.length * 6));
  const head = redactText(text.slice(0, limit + room), secrets).slice(0, limit);
  return `${head}…[truncated, ${text.length} characters in total]`;
}

export function truncate(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}…[truncated, ${text.length} characters in total]`;
}

/** Renders a request/response body for evidence: text as is, binary as a short summary. */
export function bodyToText(body: Buffer | string | undefined): string | undefined {
  if (body === undefined) return undefined;
  if (typeof body === 'string') return body;
  if (isUtf8(body) && !/[\x00-\x08\x0e-\x1f]/.test(body.toString('utf8'))) return body.toString('utf8');
  const head = body.subarray(0, 48).toString('hex');
  return `<${body.length} bytes of binary data, starting ${head}>`;
}

export interface EvidenceOptions {
  /** Strings to blank out wherever they appear (the configured password). */
  secrets?: string[];
  /** Entries kept; older ones are dropped. Default 200. */
  capacity?: number;
}

/** Bodies up to this length are kept as received and redacted only when the entry is read. */
const LAZY_BODY_LIMIT = 16 * 1024;

interface Entry {
  seq: number;
  /** As received, until it is first read (most entries never are). */
  raw?: Exchange;
  exchange?: Exchange;
  /** A subscription still receiving messages: redacted anew at every read. */
  live?: boolean;
}

/**
 * A bounded, redacting log of exchanges. Redaction happens when an entry is read, with every
 * secret known by then; an entry with a large body is redacted (and cut) at once, so the log
 * never holds more than its capacity times a small body.
 */
export class EvidenceLog {
  private readonly secrets = new Set<string>();
  private readonly capacity: number;
  private items: Entry[] = [];
  private nextSeq = 0;
  private readonly listeners: Array<(x: Readonly<Exchange>, json?: unknown) => void> = [];

  constructor(opts: EvidenceOptions = {}) {
    for (const s of opts.secrets ?? []) this.addSecret(s);
    this.capacity = opts.capacity ?? DEFAULT_CAPACITY;
  }

  /** Adds a string that must never appear in recorded text. */
  addSecret(secret: string): void {
    if (secret) this.secrets.add(secret);
  }

  /**
   * Calls `listener` with every exchange as it is recorded, before redaction: a listener keeps only
   * what it judges, and redacts what it shows (redactText with the run's secrets).
   */
  onRecord(listener: (x: Readonly<Exchange>, json?: unknown) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Records one exchange; what is read of it later is redacted and truncated. `json` is the body as
   * the client parsed it, so that a listener judging every answer need not parse it again.
   */
  record(x: Exchange, json?: unknown): void {
    for (const listener of this.listeners) listener(x, json);
    const large = (x.requestBody?.length ?? 0) > LAZY_BODY_LIMIT || (x.responseBody?.length ?? 0) > LAZY_BODY_LIMIT;
    this.items.push(large ? { seq: this.nextSeq++, exchange: this.redacted(x) } : { seq: this.nextSeq++, raw: x });
    if (this.items.length > this.capacity) this.items.splice(0, this.items.length - this.capacity);
  }

  /**
   * Records a subscription's handshake; the caller appends the messages it receives to the
   * returned exchange's `frames` (see appendFrame), and every read shows them as they are then.
   */
  recordLive(x: Exchange): Exchange {
    this.items.push({ seq: this.nextSeq++, raw: x, live: true });
    if (this.items.length > this.capacity) this.items.splice(0, this.items.length - this.capacity);
    return x;
  }

  /** An exchange a listener kept, redacted as the log's own entries are read. */
  redact(x: Exchange): Exchange {
    return this.redacted(x);
  }

  private redacted(x: Exchange): Exchange {
    const secrets = [...this.secrets];
    const entry: Exchange = {
      ...x,
      url: redactText(x.url, secrets),
      requestHeaders: redactHeaders(x.requestHeaders, secrets),
      requestBody: x.requestBody === undefined ? undefined : evidenceBody(x.requestBody, x.url, secrets, REQUEST_BODY_LIMIT),
      responseHeaders: x.responseHeaders && redactHeaders(x.responseHeaders, secrets),
      responseBody: x.responseBody === undefined ? undefined : evidenceBody(x.responseBody, x.url, secrets, RESPONSE_BODY_LIMIT),
      error: x.error === undefined ? undefined : redactText(x.error, secrets),
      durationMs: Math.round(x.durationMs * 100) / 100,
      frames: x.frames?.map((f) => ({ at: f.at, text: truncate(redactText(f.text, secrets), FRAME_LIMIT) })),
      closed: x.closed && { ...x.closed, reason: redactText(x.closed.reason, secrets) },
    };
    for (const key of Object.keys(entry) as (keyof Exchange)[]) if (entry[key] === undefined) delete entry[key];
    return entry;
  }

  private read(item: Entry): Exchange {
    if (item.live) return this.redacted(item.raw!);
    if (!item.exchange) {
      item.exchange = this.redacted(item.raw!);
      delete item.raw;
    }
    return item.exchange;
  }

  /** All kept entries, oldest first. */
  entries(): Exchange[] {
    return this.items.map((i) => this.read(i));
  }

  /** Returns the kept entries and clears the log. */
  take(): Exchange[] {
    const out = this.entries();
    this.items = [];
    return out;
  }

  /** A position to pass to `since()` later. */
  mark(): number {
    return this.nextSeq;
  }

  /** Entries recorded after `mark` that are still kept; the last `last` of them when given. */
  since(mark: number, last?: number): Exchange[] {
    const kept = this.items.filter((i) => i.seq >= mark);
    return (last === undefined ? kept : kept.slice(-last)).map((i) => this.read(i));
  }
}

/** An exchange as a person reads it: the request and the response, each in HTTP message form. */
export interface ExchangeText {
  request: string;
  response: string;
}

export function exchangeText(x: Exchange): ExchangeText {
  const request = [`${x.method} ${x.url}`, ...headerLines(x.requestHeaders), ...bodyLines(x.requestBody)];
  const timing = `(${x.durationMs} ms, sent ${x.at})`;
  const response =
    x.error !== undefined
      ? [`no response ${timing}: ${x.error}`]
      : [`HTTP ${x.statusLine ?? x.status ?? '?'} ${timing}`, ...headerLines(x.responseHeaders ?? {}), ...bodyLines(x.responseBody)];
  return { request: request.join('\n'), response: [...response, ...frameLines(x)].join('\n') };
}

/** What a subscription received after its handshake, each message with its arrival time. */
function frameLines(x: Exchange): string[] {
  if (x.frames === undefined && x.closed === undefined) return [];
  const frames = x.frames ?? [];
  return [
    '',
    `messages received: ${frames.length + (x.framesDropped ?? 0)}${x.framesDropped ? ` (the first ${frames.length} shown)` : ''}`,
    ...frames.map((f) => `${f.at}  ${f.text}`),
    ...(x.closed ? [`${x.closed.at}  closed (code ${x.closed.code}${x.closed.reason ? `, "${x.closed.reason}"` : ''})`] : []),
  ];
}

/** Appends a message to a live subscription exchange, keeping at most FRAMES_PER_SUBSCRIPTION. */
export function appendFrame(x: Exchange, text: string, at = new Date()): void {
  const frames = (x.frames ??= []);
  if (frames.length < FRAMES_PER_SUBSCRIPTION) frames.push({ at: at.toISOString(), text });
  else x.framesDropped = (x.framesDropped ?? 0) + 1;
}

function headerLines(headers: Record<string, string | string[] | undefined>): string[] {
  return Object.entries(headers).flatMap(([name, value]) =>
    value === undefined ? [] : (Array.isArray(value) ? value : [value]).map((v) => `${name}: ${v}`),
  );
}

function bodyLines(body: string | undefined): string[] {
  return body === undefined || body === '' ? [] : ['', readableBody(body)];
}

/**
 * Compact JSON is indented for reading; any other body (not JSON, or JSON whose exact text would
 * change: duplicate keys, spacing, number forms) is shown exactly as it was recorded.
 */
function readableBody(body: string): string {
  try {
    const value = parseJson(body);
    return stringifyJson(value) === body ? stringifyJson(value, 2) : body;
  } catch {
    return body;
  }
}
