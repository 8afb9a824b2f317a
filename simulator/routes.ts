/**
 * The HTTP request pipeline: authentication first, then the route's method table.
 *
 * Authentication is checked BEFORE routing: every request except /login without a valid session
 * gets 401 with an error envelope, whatever its path or method, so a refusal never reveals whether
 * a path exists. Uploads and the WebSocket upgrade follow the same rule (see dialects/spec.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { wireValue, type Bus } from './bus.js';
import type { Context } from './context.js';
import { HttpError, sendEnvelope, sendError, errorData, type AnswerTransform } from './envelope.js';
import { faultAnswer, siteRouteOf } from './answer-faults.js';
import { parseRoute, targetPath, type Route } from './route-parse.js';
import { discardBody, readImageBody, readJsonBody } from './request-body.js';
import type { Sessions } from './sessions.js';
import { checkRemoteName } from './software.js';

/** The simulator's context and the spec server's own sessions (dialects/spec.ts). */
export interface SpecContext extends Context {
  sessions: Sessions;
}

interface Outcome {
  status?: number;
  data: unknown;
  headers?: Record<string, string | string[]>;
  /** Answer this body as it is instead of the envelope (the logout-answers-* faults). */
  bare?: string;
}

const UNAUTHORIZED = 'Unauthorized: log in with POST /login first';

/** Handles one request; never throws, and answers 500 only for a bug (logged). */
export async function handleRequest(ctx: SpecContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const transform = siteTransform(ctx, req);
  try {
    await ctx.faults.latency.beforeRequest();
    const outcome = await route(ctx, req);
    if (outcome.bare !== undefined) {
      const length = Buffer.byteLength(outcome.bare);
      res.writeHead(outcome.status ?? 200, { ...outcome.headers, 'Content-Type': 'application/json', 'Content-Length': length });
      res.end(outcome.bare);
      return;
    }
    sendEnvelope(res, outcome.status ?? 200, outcome.data, ctx.faults, outcome.headers, transform);
  } catch (e) {
    if (e instanceof HttpError) {
      await discardBody(req);
      if (e.status >= 500 && !ctx.faults.has('reset-500')) ctx.log(`${req.method} ${req.url}: ${e.message}`);
      sendError(res, e.status, e.description, ctx.faults, e.headers, transform);
    } else {
      ctx.log(`internal error on ${req.method} ${req.url}: ${(e as Error)?.stack ?? String(e)}`);
      await discardBody(req).catch(() => undefined);
      sendError(res, 500, 'Internal error', ctx.faults, {}, transform);
    }
  }
}

/** The answer faults of the request's site (`--fault NAME@ROUTE:OUTCOME`), applied by the outcome its answer has. */
function siteTransform(ctx: SpecContext, req: IncomingMessage): AnswerTransform | undefined {
  if (ctx.faults.sites.length === 0) return undefined;
  const site = siteRouteOf(req.method ?? '', parseRoute(req.url, ctx.bus.tree));
  if (!site) return undefined;
  const anonymous = ctx.sessions.fromCookieHeader(req.headers.cookie) === undefined;
  // A value of another object than the one addressed: a request that writes an object carries its own values.
  const ns = `/xyz/${ctx.bus.namespace}`;
  const [source, name] = (req.url ?? '').includes('/inventory/system')
    ? [`${ns}/network/eth0`, 'MACAddress']
    : [`${ns}/inventory/system`, 'SerialNumber'];
  const leaked = (): string => {
    const ref = ctx.bus.tree.get(source)?.attributes().get(name);
    return ref ? String(wireValue(ref.property)) : `${source}/${name}`;
  };
  return (answer) => {
    const outcome = answer.status >= 200 && answer.status < 300 ? 'ok' : answer.status >= 400 ? 'error' : undefined;
    const faults = outcome ? ctx.faults.atSite(site, outcome) : [];
    return faults.length === 0 ? answer : faultAnswer(faults, answer, { anonymous, leaked });
  };
}

function hasNonAscii(path: string): boolean {
  return /[^\x00-\x7f]/.test(path) || /%[89a-f][0-9a-f]/i.test(path);
}

function isAuthenticated(ctx: SpecContext, req: IncomingMessage, r: Route): string | undefined | true {
  const sid = ctx.sessions.fromCookieHeader(req.headers.cookie);
  if (sid) return sid;
  const write = req.method === 'PUT' && (r.kind === 'attr' || r.kind === 'object');
  if (write && r.kind === 'attr' && ctx.faults.has('auth-bypass-put-attr')) return true;
  if (write && r.kind === 'object' && ctx.faults.has('auth-bypass-put-object')) return true;
  // logout-ends-reads-only: a logged-out session's cookie is still taken for writes.
  if (write && ctx.faults.has('logout-ends-reads-only') && ctx.sessions.endedIn(req.headers.cookie)) return true;
  // tampered-cookie-writes: writes check that a session cookie of the right shape is there, not that it is live.
  if (
    write &&
    ctx.faults.has('tampered-cookie-writes') &&
    ctx.sessions.cookieValues(req.headers.cookie).some((v) => /^[0-9a-f]{64}$/.test(v))
  )
    return true;
  if (r.kind === 'enumerate' && ctx.faults.has('auth-bypass-enumerate')) return true;
  if (r.kind === 'attr' && req.method === 'GET' && ctx.faults.has('auth-bypass-attr')) return true;
  const upload = r.kind === 'upload' || r.kind === 'upload-named';
  if (upload && ctx.faults.has('auth-bypass-upload')) return true;
  // tampered-cookie-uploads: uploads check that a session cookie of the right shape is there, not that it is live.
  if (upload && ctx.faults.has('tampered-cookie-uploads') && ctx.sessions.shapedIn(req.headers.cookie)) return true;
  const deletion = req.method === 'DELETE' && r.kind === 'object';
  if (deletion && ctx.faults.has('auth-bypass-delete')) return true;
  // ended-cookie-deletes: a logged-out session's cookie is still taken for DELETE.
  if (deletion && ctx.faults.has('ended-cookie-deletes') && ctx.sessions.endedIn(req.headers.cookie)) return true;
  if (r.kind === 'action' && req.method === 'POST' && ctx.faults.has('auth-bypass-action')) return true;
  return undefined;
}

/**
 * The body of a request refused for its credentials is read and dropped, unless the
 * refused-upload-registers fault stores an upload's image first (and registers it).
 */
async function refusedBody(ctx: SpecContext, req: IncomingMessage, r: Route): Promise<void> {
  const upload = (r.kind === 'upload' && req.method === 'POST') || (r.kind === 'upload-named' && req.method === 'PUT');
  if (!upload || !ctx.faults.has('refused-upload-registers')) return discardBody(req);
  const image = await readImageBody(req).catch(() => undefined);
  if (image) await ctx.registry.register(image, r.kind === 'upload-named' ? r.name : undefined).catch(() => undefined);
}

function methodNotAllowed(allow: string): HttpError {
  return new HttpError(405, `Method not allowed; allowed: ${allow}`, { Allow: allow });
}

/** Rule 4: a POST that is not login, logout, upload or an existing action would create: 403. */
function postRefused(ctx: SpecContext): HttpError {
  if (ctx.faults.has('post-create-405')) return methodNotAllowed('GET, PUT, DELETE');
  if (ctx.faults.has('post-create-200')) return new HttpError(200, 'created');
  return new HttpError(403, 'POST cannot create resources');
}

function ok(data: unknown = null): Outcome {
  return { data };
}

function written(ctx: SpecContext): Outcome {
  return { status: ctx.faults.has('success-201') ? 201 : 200, data: null };
}

async function route(ctx: SpecContext, req: IncomingMessage): Promise<Outcome> {
  const method = req.method === 'HEAD' ? 'GET' : (req.method ?? '');
  if (ctx.faults.has('crash-on-unicode-path') && hasNonAscii(targetPath(req.url))) {
    throw new Error('path decoding failed');
  }
  if (
    ctx.faults.has('crash-on-long-segment') &&
    targetPath(req.url)
      .split('/')
      .some((s) => s.length > 1000)
  ) {
    throw new Error('path segment buffer overflow');
  }
  const r = parseRoute(req.url, ctx.bus.tree);

  if (r.kind !== 'login') {
    const auth = isAuthenticated(ctx, req, r);
    if (!auth) {
      const data = ctx.faults.has('refusal-leaks-data')
        ? { ...(errorData(UNAUTHORIZED, ctx.faults) as object), paths: ctx.bus.tree.childrenOf(`/xyz/${ctx.bus.namespace}`) }
        : errorData(UNAUTHORIZED, ctx.faults);
      await refusedBody(ctx, req, r);
      return { status: 401, data, headers: { 'WWW-Authenticate': 'Cookie realm="bmc", cookie-name="sid"' } };
    }
    if (r.kind === 'logout' && method === 'POST') {
      const body = await readJsonBody(req, ctx.faults, true);
      // logout-refuses-spec-body: the spec's {"data": []} is refused (an empty object would be taken).
      const spec = Array.isArray((body as { data?: unknown } | null)?.data);
      if (spec && ctx.faults.has('logout-refuses-spec-body')) throw new HttpError(400, 'Logout takes an empty JSON object');
      if (typeof auth === 'string') {
        ctx.sessions.logout(auth);
      }
      if (ctx.faults.has('logout-keeps-session')) return ok();
      const expired = `${ctx.sessions.cookieFor('', !ctx.faults.has('http-plain'))}; Max-Age=0`;
      const bare = ctx.faults.has('logout-answers-empty') ? '' : ctx.faults.has('logout-answers-data-only') ? '{"data": null}' : undefined;
      return { data: null, headers: { 'Set-Cookie': expired }, ...(bare !== undefined && { bare }) };
    }
  }

  switch (r.kind) {
    case 'login': {
      if (method !== 'POST') throw methodNotAllowed('POST');
      const sid = ctx.sessions.login(await readJsonBody(req, ctx.faults), ctx.sessions.cookieValues(req.headers.cookie)[0]);
      const headers: Record<string, string> = {};
      if (!ctx.faults.has('login-no-cookie')) headers['Set-Cookie'] = ctx.sessions.cookieFor(sid, !ctx.faults.has('http-plain'));
      return { data: null, headers };
    }
    case 'logout':
      throw methodNotAllowed('POST');
    case 'upload':
      if (method !== 'POST') throw methodNotAllowed('POST');
      return ok(await ctx.registry.register(await readImageBody(req), undefined));
    case 'upload-named':
      if (method === 'POST') throw postRefused(ctx);
      if (method !== 'PUT' || ctx.faults.has('upload-put-405')) throw methodNotAllowed('PUT');
      checkRemoteName(r.name);
      return ok(await ctx.registry.register(await readImageBody(req), r.name));
    case 'subscribe':
      if (method === 'POST') throw postRefused(ctx);
      throw new HttpError(400, 'Use a WebSocket upgrade (wss) on /subscribe');
    case 'invalid':
      if (method === 'POST') throw postRefused(ctx);
      throw new HttpError(404, 'Not found');
    case 'children':
    case 'list':
    case 'enumerate':
      // post-on-listing-ok: the listing route is matched by its path alone, whatever the method.
      if (method === 'POST' && !ctx.faults.has('post-on-listing-ok')) throw postRefused(ctx);
      if (method !== 'GET' && method !== 'POST') throw methodNotAllowed('GET');
      return ok(
        r.kind === 'children'
          ? ctx.listings.children(r.path)
          : r.kind === 'list'
            ? ctx.listings.list(r.path)
            : ctx.faults.load.enumerate(r.path, () => ctx.listings.enumerate(r.path)),
      );
    case 'attr':
      return attrRoute(ctx, req, method, r.path, r.name);
    case 'action':
      if (method !== 'POST') throw methodNotAllowed('POST');
      if (!ctx.actions.exists(r.path, r.method)) {
        if (ctx.faults.has('unknown-action-200')) return ok(null);
        throw postRefused(ctx);
      }
      return ok(await ctx.actions.call(r.path, r.method, await readJsonBody(req, ctx.faults)));
    case 'object':
      return objectRoute(ctx, req, method, r.path);
  }
}

/** attr-stale-after-write: attr/{name} keeps answering the value it answered first (a cache never invalidated). */
const attrCaches = new WeakMap<Bus, Map<string, unknown>>();
function staleAttr(ctx: SpecContext, path: string, name: string, value: unknown): unknown {
  if (!ctx.faults.has('attr-stale-after-write')) return value;
  const cache = attrCaches.get(ctx.bus) ?? new Map<string, unknown>();
  attrCaches.set(ctx.bus, cache);
  const key = `${path}\n${name}`;
  if (!cache.has(key)) cache.set(key, value);
  return cache.get(key);
}

async function attrRoute(ctx: SpecContext, req: IncomingMessage, method: string, path: string, name: string): Promise<Outcome> {
  switch (method) {
    case 'GET': {
      const obj = ctx.bus.tree.get(path);
      if (!ctx.bus.tree.hasNode(path)) throw new HttpError(404, `Path ${path} not found`);
      const ref = obj && ctx.bus.findAttribute(obj, name);
      if (!ref) throw new HttpError(404, `Attribute ${name} not found on ${path}`);
      const value = ctx.faults.load.readAttribute(path, name, staleAttr(ctx, path, name, wireValue(ref.property)));
      if (ctx.faults.has('attr-wrapped-in-map')) return ok({ [name]: value });
      // attr-uint64-rounded: an integer beyond 2^53 goes through a double on this route alone.
      if (ctx.faults.has('attr-uint64-rounded') && typeof value === 'bigint') return ok(Number(value));
      return ok(ctx.faults.has('attr-wrong-value') ? distort(value) : value);
    }
    case 'PUT':
      ctx.writer.writeAttribute(path, name, await readJsonBody(req, ctx.faults));
      return written(ctx);
    case 'POST':
      if (ctx.faults.has('post-creates-attribute') && ctx.writer.createAttribute(path, name, await readJsonBody(req, ctx.faults)))
        return ok();
      throw postRefused(ctx);
    default:
      throw methodNotAllowed('GET, PUT');
  }
}

async function objectRoute(ctx: SpecContext, req: IncomingMessage, method: string, path: string): Promise<Outcome> {
  switch (method) {
    case 'GET':
      if (!ctx.bus.tree.hasNode(path)) throw new HttpError(404, `Path ${path} not found`);
      return ok(ctx.bus.objectView(path));
    case 'PUT':
      ctx.writer.writeObject(path, await readJsonBody(req, ctx.faults));
      return written(ctx);
    case 'DELETE':
      ctx.actions.delete(path);
      return ok();
    case 'POST':
      if (ctx.faults.has('post-on-object-405') && ctx.bus.tree.hasNode(path)) throw methodNotAllowed('GET, PUT, DELETE');
      throw postRefused(ctx);
    case 'PATCH':
      if (ctx.faults.has('patch-accepted')) {
        ctx.writer.writeObject(path, await readJsonBody(req, ctx.faults), true);
        return ok();
      }
      throw methodNotAllowed('GET, PUT, DELETE');
    default:
      throw methodNotAllowed('GET, PUT, DELETE');
  }
}

/** attr-wrong-value fault: a value of the same type that differs from the true one. */
function distort(value: unknown): unknown {
  if (typeof value === 'string') return value + '-';
  if (typeof value === 'number') return value + 1;
  if (typeof value === 'bigint') return value - 1n;
  return null;
}
