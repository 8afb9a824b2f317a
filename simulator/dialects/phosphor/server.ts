/**
 * The phosphor-rest dialect: requests handled as phosphor-rest-server's bottle application does
 * (openbmc/phosphor-rest-server module/obmc/wsgi/apps/rest_dbus.py, with the object mapper of
 * openbmc/pyphosphor and phosphor-objmgr's Python mapper).
 *
 * Order of a request, as bottle runs it:
 *   path decoding and strip_extra_slashes -> route match -> RouteHandler._setup (405 for a verb the
 *   handler lacks, else the handler's find(): 404/403 from the mapper) -> AuthorizationPlugin (401
 *   'Login required') -> ContentCheckerPlugin (415) -> JsonApiRequestPlugin (body -> parameter_list,
 *   400/413) -> JsonApiRequestTypePlugin (400 unless a list) -> handler -> JsonApiResponsePlugin
 *   (envelope) -> JSONPlugin (indent=2, sort_keys=True).
 * So a missing path answers 404 even without a session: the route is checked before the login.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { HttpError, statusLine } from '../../envelope.js';
import type { AttributeRef, DbusObject, Method } from '../../model.js';
import { discardBody, readBody, UPLOAD_LIMIT } from '../../request-body.js';
import { targetPath } from '../../route-parse.js';
import type { Context } from '../../context.js';
import { contentTypeFor, credentialsValid, envelopeWithFaults, queryParam, send } from '../common.js';
import type { DialectServer } from '../dialect.js';
import { dumpJson, PY_PRETTY } from '../json-out.js';
import { pyExceptionRepr, pyStatusLine, pyStr, pyTraceback, pyTypeName, type PyFrame } from '../py.js';
import { decodeUtf8Python, JsonDecodeError, JsonFloat, JsonObject, parseTypedJson, PyException, type TypedJson } from '../typed-json.js';
import { coerceArgs, coerceWrite, plainValue } from './coerce.js';
import {
  CONTENT_TYPE,
  decodePath,
  InvalidPath,
  JSON_BODY,
  LIST_BODY,
  mapperNotFound,
  matchRoute,
  msg4034,
  NEEDS_LOGIN,
  stripExtraSlashes,
  VERBS,
  type HandlerName,
  type Match,
} from './routing.js';
import { PhosphorSessions, type PhosphorSession } from './sessions.js';

/** bottle's BaseRequest.MEMFILE_MAX: a JSON body larger than this is refused. */
export const MEMFILE_MAX = 102_400;

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const BODY_METHODS = new Set(['PUT', 'POST', 'PATCH']);

/** bottle's abort()/HTTPError: an error envelope with this status and description. */
class Abort extends Error {
  constructor(
    readonly status: number,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

/** An uncaught Python exception: bottle answers 500 with its repr and traceback. */
class Crash extends Error {
  constructor(
    readonly exception: PyException,
    readonly frame: PyFrame,
  ) {
    super(exception.message);
  }
}

interface Answer {
  status: number;
  data?: unknown;
  error?: Record<string, unknown>;
  headers?: Record<string, string | string[]>;
  /** OPTIONS: the handler's verbs, no body. */
  options?: readonly string[];
  /** What the server does for it beyond a plain request (sets its time: serviceMs). */
  cost?: Cost;
}

/**
 * The D-Bus work an answer took the Python server beyond routing, plugins and the JSON dump: the
 * objects whose properties it read (GET of an object: its GetAll; enumerate: each object it
 * returns), a property Set or method call (and its retry after a conversion), an image written to
 * /tmp/images and polled for. A listing of names comes from the mapper's cache: a plain request.
 */
export interface Cost {
  objects?: number;
  call?: boolean;
  upload?: boolean;
}

/**
 * What each costs, in plain requests (`requestMs`, 10 ms by default): fitted to a destructive run
 * on the measured BMC, where a GET of an object took ~30 ms and the fuzz area's mix ~30 ms a request.
 */
export const COST_UNITS = { object: 2, call: 4, upload: 10 } as const;

export function serviceMs(requestMs: number, cost: Cost = {}): number {
  const u = COST_UNITS;
  const units = 1 + u.object * (cost.objects ?? 0) + (cost.call ? u.call : 0) + (cost.upload ? u.upload : 0);
  return Math.round(requestMs * units);
}

const FRAMES = {
  setProperty: { method: 'do_put', line: 468, code: 'properties_iface.Set(iface, prop, value)' },
  putObject: { method: 'do_put', line: 776, code: 'req = set(request.parameter_list.keys())' },
  getspnam: { method: 'authenticate', line: 829, code: 'encoded = spwd.getspnam(username)[1]' },
  crypt: { method: 'authenticate', line: 830, code: 'return encoded == crypt.crypt(clear, encoded)' },
  callMethod: { method: 'do_post', line: 372, code: "return request.route_data['map'][0](*args)" },
  jsonBody: { method: 'validate_request', line: 1431, code: "request.parameter_list = request.json.get('data')" },
  openImage: { method: 'do_upload', line: 944, code: 'handle = os.open(filename, os.O_WRONLY | os.O_CREAT)' },
  route: { method: 'custom_router_match', line: 1621, code: 'route, args = self.real_router_match(environ)' },
} satisfies Record<string, PyFrame>;

interface Found {
  obj?: DbusObject;
  ref?: AttributeRef;
  name?: string;
  method?: { interfaceName: string; name: string; method: Method };
}

export class PhosphorRestServer implements DialectServer {
  readonly sessions = new PhosphorSessions();
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024, handleProtocols: () => false });

  constructor(private readonly ctx: Context) {}

  close(): void {
    this.wss.close();
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let answer: Answer;
    try {
      answer = await this.route(req);
    } catch (e) {
      answer = this.failure(e, req);
    }
    await discardBody(req).catch(() => undefined);
    // One request at a time: this one's answer leaves once those before it and its own time are done.
    await this.ctx.service.serve(serviceMs(this.ctx.requestMs, answer.cost));
    this.write(req, res, answer);
  }

  /** gevent-websocket completes every handshake, then runs the application; only /subscribe with a session stays open. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    let route: Match | undefined;
    try {
      route = matchRoute(stripExtraSlashes(decodePath(targetPath(req.url))), this.ctx.namespace);
    } catch {
      route = undefined;
    }
    const session = this.sessions.fromCookieHeader(req.headers.cookie);
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('error', () => {});
      if (route?.handler === 'event' && (session || this.ctx.faults.has('subscribe-without-login'))) {
        this.ctx.hub.attach(ws, session?.sid);
        return;
      }
      ws.close(1000);
    });
  }

  private failure(e: unknown, req: IncomingMessage): Answer {
    if (e instanceof Abort) return { status: e.status, error: { description: e.description }, headers: e.headers };
    const crash = e instanceof Crash ? e : new Crash(new PyException('RuntimeError', String((e as Error)?.message ?? e)), FRAMES.route);
    if (!(e instanceof Crash)) this.ctx.log(`internal error on ${req.method} ${req.url}: ${(e as Error)?.stack ?? String(e)}`);
    return {
      status: 500,
      error: {
        description: 'Internal Server Error',
        exception: pyExceptionRepr(crash.exception),
        traceback: pyTraceback(crash.exception, crash.frame),
      },
    };
  }

  private write(req: IncomingMessage, res: ServerResponse, a: Answer): void {
    const cors: Record<string, string> = {};
    const origin = req.headers.origin;
    if (origin) {
      cors['Access-Control-Allow-Origin'] = origin;
      cors['Access-Control-Allow-Credentials'] = 'true';
    }
    if (a.options) {
      send(res, 200, '', { ...cors, Allow: a.options.join(','), 'Content-Type': 'text/html; charset=UTF-8' });
      return;
    }
    const message = pyStatusLine(a.status, statusLine);
    const env = a.error ? { data: a.error, message, status: 'error' } : { data: a.data ?? null, message, status: 'ok' };
    let body = dumpJson(envelopeWithFaults(a.status, env, this.ctx.faults), PY_PRETTY);
    let type = contentTypeFor(this.ctx.faults);
    const callback = queryParam(req.url, 'callback');
    if (callback) {
      body = `${callback}(${body});`;
      type = 'application/javascript';
    }
    send(res, a.status, body, { ...cors, ...a.headers, 'Content-Type': type });
  }

  private async route(req: IncomingMessage): Promise<Answer> {
    const { faults } = this.ctx;
    const method = req.method ?? 'GET';
    const raw = targetPath(req.url);
    if (faults.has('crash-on-unicode-path') && (/[^\x00-\x7f]/.test(raw) || /%[89a-f][0-9a-f]/i.test(raw))) {
      throw new Crash(new PyException('UnicodeEncodeError', "'ascii' codec can't encode character"), FRAMES.route);
    }
    if (faults.has('crash-on-long-segment') && raw.split('/').some((s) => s.length > 1000)) {
      throw new Crash(new PyException('MemoryError', ''), FRAMES.route);
    }
    let path: string;
    try {
      path = stripExtraSlashes(decodePath(raw));
    } catch (e) {
      if (e instanceof InvalidPath) throw new Abort(400, 'Invalid path string. Expected UTF-8');
      throw e;
    }
    if (!KNOWN_METHODS.has(method)) throw new Abort(405, 'Method not allowed.', { Allow: 'DELETE,GET,OPTIONS,PATCH,POST,PUT' });

    const m = matchRoute(path, this.ctx.namespace);
    const verbs = VERBS[m.handler];
    if (!verbs.includes(method)) {
      if (method === 'POST' && (m.handler === 'instance' || m.handler === 'property') && faults.has('post-create-200')) {
        return { status: 200, data: 'created' };
      }
      throw new Abort(405, 'Method not allowed.', { Allow: verbs.join(',') });
    }
    if (method === 'OPTIONS') return { status: 200, options: verbs };
    const found = this.setup(m, method);

    const session = this.sessions.fromCookieHeader(req.headers.cookie);
    if (NEEDS_LOGIN(m.handler) && !session && !this.bypass(m.handler, method)) throw new Abort(401, 'Login required');

    if (BODY_METHODS.has(method)) {
      const want = CONTENT_TYPE[m.handler];
      const got = (req.headers['content-type'] ?? '').toLowerCase();
      if (want && want !== got) throw new Abort(415, `Expecting content type '${want}', got '${got}'`);
    }
    let params: TypedJson | undefined;
    let json: TypedJson | undefined;
    if (JSON_BODY.has(m.handler) && BODY_METHODS.has(method)) {
      ({ params, json } = await this.jsonParams(req));
      if (LIST_BODY.has(m.handler) && !Array.isArray(params)) {
        throw new Abort(400, `Expecting request format { 'data': <class 'list'> }, got '${pyStr(json)}'`);
      }
    }
    return this.dispatch(m, method, found, params, json, session, req);
  }

  /** auth-bypass-* faults: these routes answer without a session. */
  private bypass(h: HandlerName, method: string): boolean {
    const f = this.ctx.faults;
    return (
      (h === 'list' && f.has('auth-bypass-enumerate')) ||
      (h === 'property' && method === 'GET' && f.has('auth-bypass-attr')) ||
      ((h === 'imagePost' || h === 'imagePut') && f.has('auth-bypass-upload'))
    );
  }

  /** The handlers' find(): what must exist before authentication is even looked at. */
  private setup(m: Match, method: string): Found {
    const tree = this.ctx.bus.tree;
    switch (m.handler) {
      case 'directory':
      case 'listNames':
      case 'list':
        if (m.path !== '/' && !tree.hasNode(m.path)) throw new Abort(404, mapperNotFound(m.path));
        return {};
      case 'schema':
        return { obj: this.object(m.path, method) };
      case 'instance':
        return { obj: this.object(m.path, method) };
      case 'method': {
        const obj = this.object(m.path, method);
        const wanted = m.name!.toLowerCase();
        for (const [interfaceName, iface] of obj.interfaces) {
          for (const [name, def] of iface.methods) {
            if (name.toLowerCase() === wanted) return { obj, method: { interfaceName, name, method: def } };
          }
        }
        throw new Abort(404, msg4034('method', 'found', m.name!));
      }
      case 'property': {
        const obj = this.object(m.path, method);
        const wanted = m.name!.toLowerCase();
        for (const [name, ref] of obj.attributes()) {
          if (name.toLowerCase() === wanted) return { obj, ref, name };
        }
        if (method === 'PUT') throw new Abort(403, msg4034('property', 'created', m.name!));
        throw new Abort(404, msg4034('property', 'found', m.name!));
      }
      default:
        return {};
    }
  }

  /** The mapper's GetObject: only nodes that carry interfaces are objects. */
  private object(path: string, method: string): DbusObject {
    const obj = this.ctx.bus.tree.get(path);
    if (obj) return obj;
    if (method === 'PUT') throw new Abort(403, msg4034('resource', 'created', path));
    throw new Abort(404, mapperNotFound(path));
  }

  /** JsonApiRequestPlugin.validate_request: parameter_list = request.json.get('data'). */
  private async jsonParams(req: IncomingMessage): Promise<{ params: TypedJson | undefined; json: TypedJson | undefined }> {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > MEMFILE_MAX) throw new Abort(413, 'Request to large');
    let buf: Buffer;
    try {
      buf = await readBody(req, MEMFILE_MAX);
    } catch (e) {
      if (e instanceof HttpError && e.status === 413) throw new Abort(413, 'Request to large');
      throw e;
    }
    let json: TypedJson | undefined;
    if (buf.length > 0) {
      try {
        json = parseTypedJson(decodeUtf8Python(buf), 'python');
      } catch (e) {
        if (e instanceof JsonDecodeError || (e instanceof PyException && e.type === 'UnicodeDecodeError')) {
          if (this.ctx.faults.has('malformed-json-500')) throw new Crash(e, FRAMES.jsonBody);
          throw new Abort(400, e.text);
        }
        if (e instanceof PyException) throw new Crash(e, FRAMES.jsonBody);
        throw e;
      }
    }
    if (!(json instanceof JsonObject)) {
      throw new Abort(400, `Expecting request format { 'data': <value> }, got '${pyStr(json ?? null)}'`);
    }
    return { params: json.get('data'), json };
  }

  private async dispatch(
    m: Match,
    method: string,
    found: Found,
    params: TypedJson | undefined,
    json: TypedJson | undefined,
    session: PhosphorSession | undefined,
    req: IncomingMessage,
  ): Promise<Answer> {
    const { bus, listings } = this.ctx;
    const ok = (data: unknown, headers?: Record<string, string | string[]>): Answer => ({ status: 200, data, headers });
    switch (m.handler) {
      case 'session':
        return m.path === '/login' ? this.login(params as TypedJson[], json) : this.logout(session);
      case 'web':
      case 'dump':
        throw new Abort(404, 'Path not found');
      case 'directory':
        return ok(listings.children(m.path));
      case 'listNames':
        return ok(this.listNames(m.path));
      case 'list': {
        const data = listings.enumerate(m.path);
        return { status: 200, data, cost: { objects: Object.keys(data).length } };
      }
      case 'schema':
        return ok(schema(found.obj!));
      case 'event':
        throw new Abort(400, 'Expected WebSocket request.');
      case 'console':
        throw new Abort(400, 'Expected WebSocket based request.');
      case 'certificate':
        throw new Abort(404, mapperNotFound(`/xyz/${this.ctx.namespace}/certs/${m.name}/${m.name2}`));
      case 'imagePost':
      case 'imagePut':
        return { ...ok(await this.upload(req, m.handler === 'imagePut' ? m.name : undefined)), cost: { upload: true } };
      case 'method':
        return { ...(await this.callMethod(m.path, found, params as TypedJson[])), cost: { call: true } };
      case 'property':
        if (method === 'PUT') return { ...this.putProperty(m.path, found, params), cost: { call: true } };
        return ok(this.attrValue(found));
      case 'instance':
        if (method === 'PUT') {
          throw new Crash(new PyException('AttributeError', "Attribute 'parameter_list' not defined."), FRAMES.putObject);
        }
        if (method === 'DELETE') return { ...(await this.delete(m.path, found.obj!)), cost: { call: true } };
        return { ...ok(bus.objectView(m.path)), cost: { objects: 1 } };
    }
  }

  /** GET /list: the mapper's whole cache, which also holds '/', '/xyz' and '/xyz/{ns}'. Elsewhere only objects. */
  private listNames(path: string): string[] {
    const tree = this.ctx.bus.tree;
    const objectsOnly = (nodes: string[]) => nodes.filter((p) => tree.get(p) !== undefined);
    if (path === '/') return this.ctx.listings.list('/', { select: objectsOnly, extra: ['/', '/xyz', `/xyz/${this.ctx.namespace}`] });
    return this.ctx.listings.list(path, { select: objectsOnly });
  }

  private attrValue(found: Found): unknown {
    const value = this.ctx.bus.wire.attr(found.ref!.property);
    if (this.ctx.faults.has('attr-wrapped-in-map')) return { [found.name!]: value };
    if (this.ctx.faults.has('attr-wrong-value')) return distort(value);
    return value;
  }

  private login(params: TypedJson[], json: TypedJson | undefined): Answer {
    if (params.length !== 2) {
      throw new Abort(400, `Expecting request format { 'data': [<username>, <password>] }, got '${pyStr(json)}'`);
    }
    const [user, password] = params;
    if (typeof user !== 'string') {
      throw new Crash(new PyException('TypeError', `getspnam() argument must be str, not ${pyTypeName(user)}`), FRAMES.getspnam);
    }
    if (user.includes('\0')) throw new Crash(new PyException('ValueError', 'embedded null character'), FRAMES.getspnam);
    if (user !== this.ctx.user) throw new Abort(401, 'Invalid username or password');
    if (typeof password !== 'string') {
      throw new Crash(new PyException('TypeError', `crypt() argument 1 must be str, not ${pyTypeName(password)}`), FRAMES.crypt);
    }
    if (password.includes('\0')) throw new Crash(new PyException('ValueError', 'embedded null character'), FRAMES.crypt);
    if (!credentialsValid(this.ctx, user, password)) throw new Abort(401, 'Invalid username or password');
    const session = this.sessions.login(user);
    const headers: Record<string, string> = {};
    if (!this.ctx.faults.has('login-no-cookie')) headers['Set-Cookie'] = PhosphorSessions.setCookie(session, !this.ctx.plain);
    return { status: 200, data: `User '${user}' logged in`, headers };
  }

  private logout(session: PhosphorSession | undefined): Answer {
    if (!session) return { status: 200, data: 'No user logged in' };
    if (!this.ctx.faults.has('logout-keeps-session')) this.sessions.logout(session);
    return { status: 200, data: `User '${session.user}' logged out`, headers: { 'Set-Cookie': PhosphorSessions.deleteCookie() } };
  }

  private async upload(req: IncomingMessage, filename: string | undefined): Promise<unknown> {
    if (filename !== undefined) {
      const full = `/tmp/images/${filename}`;
      if (filename === '.' || filename === '..') {
        throw new Crash(new PyException('IsADirectoryError', `[Errno 21] Is a directory: '${full}'`), FRAMES.openImage);
      }
      if (filename.includes('\0')) throw new Crash(new PyException('ValueError', 'embedded null byte'), FRAMES.openImage);
      if (Buffer.byteLength(filename) > 255) {
        throw new Crash(new PyException('OSError', `[Errno 36] File name too long: '${full}'`), FRAMES.openImage);
      }
    }
    let image: Buffer;
    try {
      image = await readBody(req, UPLOAD_LIMIT);
    } catch (e) {
      if (e instanceof HttpError) throw new Abort(e.status, e.description);
      throw e;
    }
    try {
      return await this.ctx.registry.register(image, filename);
    } catch (e) {
      if (e instanceof HttpError) throw new Abort(e.status, e.description);
      throw e;
    }
  }

  private async callMethod(path: string, found: Found, params: TypedJson[]): Promise<Answer> {
    const { interfaceName, name, method } = found.method!;
    const out = coerceArgs(interfaceName, name, method.args, params.length > 0 ? params : []);
    if ('crash' in out) throw new Crash(out.crash, FRAMES.callMethod);
    if ('status' in out) throw new Abort(out.status, out.description);
    let result: unknown;
    try {
      result = await this.ctx.actions.invoke(path, interfaceName, name, out.args);
    } catch (e) {
      if (!(e instanceof HttpError)) throw e;
      throw new Crash(new PyException('DBusException', `org.freedesktop.DBus.Error.Failed: ${e.description}`), FRAMES.callMethod);
    }
    // After a conversion the retry path returns nothing: data is null whatever the method answered.
    return { status: 200, data: out.converted ? null : (result ?? null) };
  }

  private putProperty(path: string, found: Found, value: TypedJson | undefined): Answer {
    const { writer, faults } = this.ctx;
    const ref = found.ref!;
    const name = found.name!;
    const readOnly = !writer.isWritable(name, ref);
    const out = coerceWrite(name, ref.property.signature, ref.property.enumValues, value, readOnly);
    if ('crash' in out) throw new Crash(out.crash, FRAMES.setProperty);
    if ('status' in out) {
      if (readOnly || !faults.has('wrong-type-stored')) throw new Abort(out.status, out.description);
      if (!faults.has('put-attr-ignored')) writer.store(path, ref, name, plainValue(value));
    } else {
      if (out.converted && faults.has('wrong-type-500')) {
        throw new Crash(new PyException('TypeError', `conversion of ${name} failed`), FRAMES.setProperty);
      }
      if (!faults.has('put-attr-ignored')) writer.store(path, ref, name, out.ok);
    }
    return { status: faults.has('success-201') ? 201 : 200, data: null };
  }

  private async delete(path: string, obj: DbusObject): Promise<Answer> {
    const { faults, actions, bus } = this.ctx;
    const deleteIface = `xyz.${this.ctx.namespace}.Object.Delete`;
    if (obj.implements(deleteIface)) {
      await actions.invoke(path, deleteIface, 'Delete', []);
      return { status: 200, data: null };
    }
    if (faults.has('delete-nondeletable-succeeds')) {
      bus.removeObject(path);
      return { status: 200, data: null };
    }
    if (faults.has('delete-nondeletable-404')) throw new Abort(404, mapperNotFound(path));
    throw new Abort(403, msg4034('resource', 'removed', path));
  }
}

/** SchemaHandler: the object's interfaces as the introspection parser lists them (shape approximated). */
function schema(obj: DbusObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, iface] of obj.interfaces) {
    const methods: Record<string, unknown> = {};
    for (const [m, def] of iface.methods) methods[m] = { args: def.args.map((type) => ({ direction: 'in', type })) };
    const properties: Record<string, unknown> = {};
    for (const [p, def] of iface.properties) properties[p] = { access: def.writable ? 'readwrite' : 'read', type: def.signature };
    out[name] = { method: methods, property: properties, signal: {} };
  }
  return out;
}

/** attr-wrong-value fault: a value of the same type that differs from the true one. */
function distort(value: unknown): unknown {
  if (typeof value === 'string') return value + '-';
  if (typeof value === 'number') return value + 1;
  if (typeof value === 'bigint') return value - 1n;
  if (value instanceof JsonFloat) return new JsonFloat(value.value + 1);
  return null;
}
