/**
 * A test's evidence as a vendor replays it: one timeline of its requests, subscriptions and the
 * messages they received, and the shell lines that repeat them (curl for HTTP, websocat for the
 * event channel). Secrets stay shell variables: $COOKIE, $XSRF, $PASSWORD.
 */
import { withoutTrailingSlashes } from './trim-end.js';
import { shellQuote, toCurl } from './curl.js';
import { headerValue, type Exchange } from './evidence.js';

const TIMELINE_TEXT_LIMIT = 300;

interface Moment {
  at: number;
  order: number;
  text: string;
}

export function isSubscription(x: Exchange): boolean {
  return /^\/subscribe\/?$/.test(x.url) && x.method === 'GET';
}

function oneLine(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, ' ');
  return flat.length > TIMELINE_TEXT_LIMIT ? `${flat.slice(0, TIMELINE_TEXT_LIMIT)}…` : flat;
}

function answer(x: Exchange): string {
  return x.error !== undefined ? `no response (${x.error.split('\n')[0]})` : (x.statusLine ?? String(x.status ?? '?'));
}

/**
 * Every request (at the time it was sent, with its answer), every subscription (its filter) and
 * every message it received, in time order; times relative to the first.
 */
export function timelineText(exchanges: readonly Exchange[]): string {
  const moments: Moment[] = [];
  let order = 0;
  let subscription = 0;
  for (const x of exchanges) {
    const at = Date.parse(x.at);
    if (isSubscription(x)) {
      const n = ++subscription;
      const filter = x.requestBody === undefined ? '' : ` filter ${oneLine(x.requestBody)}`;
      // A filter sent apart from the opening (a check provoking the socket before it) has its own moment.
      const apart = x.filterSentAt !== undefined;
      const sentAt = apart ? Date.parse(x.filterSentAt!) : at;
      moments.push({ at, order: order++, text: `subscription ${n} opened${apart ? '' : `:${filter}`} → ${answer(x)}` });
      if (apart) moments.push({ at: sentAt, order: order++, text: `  subscription ${n} sent its${filter}` });
      for (const f of x.frames ?? [])
        moments.push({ at: Date.parse(f.at), order: order++, text: `  subscription ${n} received ${oneLine(f.text)}` });
      if (x.framesDropped)
        moments.push({ at: Infinity, order: order++, text: `  subscription ${n}: ${x.framesDropped} later messages not kept` });
      if (x.closed)
        moments.push({ at: Date.parse(x.closed.at), order: order++, text: `  subscription ${n} closed (code ${x.closed.code})` });
    } else {
      const body = x.requestBody === undefined || x.requestBody === '' ? '' : ` ${oneLine(x.requestBody)}`;
      moments.push({ at, order: order++, text: `${x.method} ${oneLine(x.url)}${body} → ${answer(x)}` });
    }
  }
  if (moments.length === 0) return '';
  moments.sort((a, b) => a.at - b.at || a.order - b.order);
  const start = moments[0]!.at;
  return moments
    .map((m) => `${Number.isFinite(m.at) ? `+${String(Math.round(m.at - start)).padStart(6)} ms` : '          '}  ${m.text}`)
    .join('\n');
}

/** A body the evidence cut or described cannot be replayed inline: the line names a file instead. */
function replayableBody(body: string): boolean {
  return !/…\[truncated, \d+ characters in total\]$/.test(body) && !/^<\d+ bytes of binary data/.test(body);
}

/** The login body with the password as a shell variable (the evidence holds it masked). */
function loginBody(body: string): string | undefined {
  try {
    const value = JSON.parse(body) as { data?: unknown };
    if (Array.isArray(value.data) && value.data.length === 2 && typeof value.data[0] === 'string') {
      return `"{\\"data\\": [${JSON.stringify(value.data[0]).replace(/["\\$`]/g, '\\$&')}, \\"$PASSWORD\\"]}"`;
    }
  } catch {
    // Not the spec's login body: replayed as recorded.
  }
  return undefined;
}

/** One shell line that repeats the exchange against `baseUrl`. */
export function replayLine(x: Exchange, baseUrl: string): string {
  const base = withoutTrailingSlashes(baseUrl);
  const authed = headerValue(x.requestHeaders, 'cookie') !== undefined;
  if (isSubscription(x)) {
    const wss = `${base.replace(/^http/, 'ws')}${x.url}`;
    const filter = x.requestBody ?? '';
    const auth = authed ? ` -H "Cookie: $COOKIE"` : '';
    const protocol = headerValue(x.requestHeaders, 'sec-websocket-protocol') !== undefined ? ' --protocol "$XSRF"' : '';
    // websocat sends each line of its input as a message and prints what arrives; sleep keeps it open.
    return `(printf '%s\\n' ${shellQuote(filter)}; sleep 30) | websocat -k${auth}${protocol} ${shellQuote(wss)} &`;
  }
  const contentType = headerValue(x.requestHeaders, 'content-type');
  const body = x.requestBody;
  const isLogin = /\/login\/?$/.test(x.url) && body !== undefined;
  const login = isLogin ? loginBody(body) : undefined;
  const inline = body !== undefined && login === undefined && replayableBody(body) ? body : undefined;
  const line = toCurl(x.method, base, x.url, {
    auth: authed,
    xsrf: headerValue(x.requestHeaders, 'x-xsrf-token') !== undefined,
    ...(contentType !== undefined && { contentType }),
    ...(inline !== undefined && { body: inline }),
  });
  if (login !== undefined) return `${line} --data-raw ${login}`;
  if (body !== undefined && inline === undefined) return `${line} --data-binary @request-body.bin`;
  return line;
}

/** The first line of every replay script: what its shell variables hold. */
export const REPLAY_PREAMBLE = '# COOKIE: the session cookie of a login (name=value); XSRF: its XSRF-TOKEN where the target sets one.';

/** A script of replay lines for the exchanges, in the order they were made. */
export function replayScript(exchanges: readonly Exchange[], baseUrl: string): string {
  if (exchanges.length === 0) return '';
  return [REPLAY_PREAMBLE, ...exchanges.map((x) => replayLine(x, baseUrl))].join('\n');
}
