/**
 * The bmcweb dialect: requests handled as bmcweb does with its D-Bus REST API enabled
 * (openbmc/bmcweb include/openbmc_dbus_rest.hpp, login_routes.hpp, image_upload.hpp,
 * dbus_monitor.hpp, authentication.hpp, forward_unauthorized.hpp, http/http_connection.hpp,
 * http/parsing.hpp, http/websocket.hpp).
 *
 * Authentication comes first (http_connection.hpp): every request but POST /login needs a session,
 * and is refused with 401 and an empty body before any routing. A body larger than 4 KiB without a
 * session is refused with 401 as soon as its headers arrive, one beyond 30 MiB with 413; either
 * closes the connection.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { HttpError } from '../../envelope.js';
import { readBody } from '../../request-body.js';
import { targetPath } from '../../route-parse.js';
import { UPLOAD_FAILED } from '../../software.js';
import type { DbusValue } from '../../types.js';
import type { Context } from '../../context.js';
import { contentTypeFor, credentialsValid, envelopeWithFaults, send, sendAndClose } from '../common.js';
import { inTurn, type DialectServer } from '../dialect.js';
import { dumpJson, NLOHMANN_PRETTY } from '../json-out.js';
import { decodeUtf8, JsonFloat, JsonObject, parseTypedJson, type TypedJson } from '../typed-json.js';
import { convertJsonToDbus } from './convert.js';
import { bmcwebBehaviour, reasonPhrase, type BmcwebBehaviour, type BmcwebVersion } from './versions.js';
import { authenticate, BmcwebSessions, type BmcwebSession } from './sessions.js';

/** BMCWEB_HTTP_REQ_BODY_LIMIT_MB (default 30). */
export const BODY_LIMIT = 30 * 1024 * 1024;
/** loggedOutPostBodyLimit. */
export const LOGGED_OUT_BODY_LIMIT = 4096;

const NOT_FOUND_DESC = 'org.freedesktop.DBus.Error.FileNotFound: path or object not found';
const PROP_NOT_FOUND_DESC = 'The specified property cannot be found';
const NO_JSON_DESC = 'No JSON object could be decoded';
const INVALID_CONTENT_TYPE = 'Content-type header is missing or invalid';
const METHOD_NOT_FOUND_DESC = 'The specified method cannot be found';
const METHOD_NOT_ALLOWED_DESC = 'Method not allowed';
const FORBIDDEN_PROP_DESC = 'The specified property cannot be created';
const FORBIDDEN_RES_DESC = 'The specified resource cannot be created';

/** include/security_headers.hpp (the part a client can notice). */
const SECURITY_HEADERS: Record<string, string> = {
  'Strict-Transport-Security': 'max-age=31536000; includeSubdomains',
  'X-Frame-Options': 'DENY',
  Pragma: 'no-cache',
  'Cache-Control': 'no-store, max-age=0',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

interface Reply {
  status: number;
  /** A JSON body; none for bmcweb's bare status answers. */
  json?: Record<string, unknown>;
  /** Apply the envelope faults (D-Bus REST envelopes only). */
  envelope?: boolean;
  headers?: Record<string, string | string[]>;
  text?: string;
}

const ok = (data: unknown): Reply => ({ status: 200, json: { data, message: '200 OK', status: 'ok' }, envelope: true });
const error = (status: number, description: string, message: string): Reply => ({
  status,
  json: { data: { description }, message, status: 'error' },
  envelope: true,
});
const bare = (status: number, headers?: Record<string, string>): Reply => ({ status, headers });

type Body = { kind: 'ok'; value: JsonObject | TypedJson } | { kind: 'type' } | { kind: 'json' };

export class BmcwebServer implements DialectServer {
  readonly sessions: BmcwebSessions;
  private uploading = false;
  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: 131_088,
    handleProtocols: (protocols) => protocols.values().next().value ?? false,
  });

  private readonly behaviour: BmcwebBehaviour;

  constructor(
    private readonly ctx: Context,
    version: BmcwebVersion = 'current',
  ) {
    this.behaviour = bmcwebBehaviour(version);
    this.sessions = new BmcwebSessions({ name: this.behaviour.sessionCookie, path: this.behaviour.cookiePath });
  }

  close(): void {
    this.wss.close();
  }

  /**
   * include/pam_authenticate.hpp pamAuthenticateUser hands PAM the user name as a C string
   * (`pam_start("webserver", userStr.c_str(), ...)`, line 101 at a87c4180, 149 upstream) and the
   * password likewise (`std::strlen(appPass)` line 42 at a87c4180, `strdup(iter->value.c_str())`
   * line 59 upstream): both end at their first NUL. So `root\u0000x` with root's password logs in
   * (login_routes.hpp line 172 at a87c4180, 83 upstream), the session keeps the name as sent
   * (generateUserSession, line 182 / 91) and the 2023 answer says "User 'root\u0000x' logged in"
   * (line 195). Basic authentication goes through the same function. The same in every version.
   */
  private check = (user: string, password: string): boolean => credentialsValid(this.ctx, cString(user), cString(password));

  /** Its time per request is the same for every kind: with one set, each request waits its turn first. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    return inTurn(this.ctx, () => this.answer(req, res));
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const reply = await this.route(req, res);
      if (reply) this.write(res, reply);
    } catch (e) {
      this.ctx.log(`internal error on ${req.method} ${req.url}: ${(e as Error)?.stack ?? String(e)}`);
      this.write(res, bare(500));
    }
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const refuse = (status: number, headers: Record<string, string> = {}): void => {
      const body = this.bareBody(status);
      const lines = [`HTTP/1.1 ${status} ${reasonPhrase(status)}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
      socket.end(`${lines.join('\r\n')}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      setTimeout(() => socket.destroy(), 1000).unref();
    };
    const session = authenticate(this.sessions, req, this.check);
    if (!session && !this.ctx.faults.has('subscribe-without-login')) {
      refuse(401, this.unauthorizedHeaders(req));
      return;
    }
    if (this.routePath(targetPath(req.url)) !== '/subscribe') {
      refuse(404);
      return;
    }
    // websocket.hpp: with cookie authentication the CSRF token must come as the subprotocol.
    const protocol = String(req.headers['sec-websocket-protocol'] ?? '');
    if (session?.cookieAuth && protocol !== session.csrf) {
      refuse(401);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('error', () => {});
      this.ctx.hub.attach(ws, session?.token);
    });
  }

  private write(res: ServerResponse, r: Reply): void {
    const headers: Record<string, string | string[]> = { ...SECURITY_HEADERS, ...r.headers };
    if (r.json) {
      const body = r.envelope ? envelopeWithFaults(r.status, r.json, this.ctx.faults) : r.json;
      send(res, r.status, dumpJson(body, NLOHMANN_PRETTY), { ...headers, 'Content-Type': contentTypeFor(this.ctx.faults) });
      return;
    }
    send(res, r.status, r.text || this.bareBody(r.status), headers);
  }

  /** The body of an answer that has none: 2023's completeRequest gave a refusal its reason phrase, as plain text. */
  private bareBody(status: number): string {
    return this.behaviour.reasonPhraseBodies && status >= 400 ? reasonPhrase(status) : '';
  }

  /** 2026 routes: /login/, /logout/, /subscribe/ and /upload/image/ answer as without the slash. */
  private routePath(path: string): string {
    if (this.behaviour.slashRoutes && /^\/(login|logout|subscribe|upload\/image)\/$/.test(path)) return path.slice(0, -1);
    return path;
  }

  private unauthorizedHeaders(req: IncomingMessage): Record<string, string> {
    if (/text\/html/i.test(String(req.headers.accept ?? '')) || req.headers['x-requested-with']) return {};
    return { 'WWW-Authenticate': 'Basic' };
  }

  /** forward_unauthorized.hpp sendUnauthorized. */
  private unauthorized(req: IncomingMessage): Reply {
    const browser = /text\/html/i.test(String(req.headers.accept ?? ''));
    const reply: Reply = {
      status: 401,
      headers: this.unauthorizedHeaders(req),
      text: browser ? this.behaviour.browserUnauthorizedText : '',
    };
    if (this.ctx.faults.has('refusal-leaks-data')) {
      reply.json = { paths: this.ctx.bus.tree.childrenOf(`/xyz/${this.ctx.namespace}`) };
    }
    return reply;
  }

  /** auth-bypass-* faults: these routes answer without a session. */
  private bypass(path: string, method: string): boolean {
    const f = this.ctx.faults;
    return (
      (path.endsWith('/enumerate') && f.has('auth-bypass-enumerate')) ||
      (method === 'GET' && path.includes('/attr/') && f.has('auth-bypass-attr')) ||
      (path.startsWith('/upload/image') && f.has('auth-bypass-upload'))
    );
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<Reply | undefined> {
    const { faults } = this.ctx;
    const path = this.routePath(targetPath(req.url));
    const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
    if (faults.has('crash-on-unicode-path') && (/[^\x00-\x7f]/.test(path) || /%[89a-f][0-9a-f]/i.test(path))) return bare(500);
    if (faults.has('crash-on-long-segment') && path.split('/').some((s) => s.length > 1000)) return bare(500);

    const session = authenticate(this.sessions, req, this.check);
    const declared = Number(req.headers['content-length']);
    const limit = session ? BODY_LIMIT : LOGGED_OUT_BODY_LIMIT;
    if (Number.isFinite(declared) && declared > limit) {
      const status = declared > LOGGED_OUT_BODY_LIMIT && declared < BODY_LIMIT ? 401 : 413;
      sendAndClose(req, res, status, this.bareBody(status));
      return undefined;
    }
    let body: Buffer;
    try {
      body = await readBody(req, limit);
    } catch (e) {
      if (!(e instanceof HttpError)) throw e;
      // A chunked body past the limit: "should never happen" in bmcweb, which answers 500.
      const status = e.status === 413 ? 500 : 400;
      sendAndClose(req, res, status, this.bareBody(status));
      return undefined;
    }

    const allowlisted = method === 'POST' && path === '/login';
    if (!session && !allowlisted && !this.bypass(path, method)) return this.unauthorized(req);

    if (path === '/login') return method === 'POST' ? this.login(req, body) : bare(405);
    if (path === '/logout') return method === 'POST' ? this.logout(session) : bare(405);
    if (path === '/upload/image' || /^\/upload\/image\/[^/]+$/.test(path)) {
      if (method === 'PUT' && path !== '/upload/image' && faults.has('upload-put-405')) return bare(405);
      return method === 'POST' || method === 'PUT' ? this.upload(body) : bare(405);
    }
    if (path === '/subscribe') return method === 'GET' ? bare(404) : bare(405);
    if (path === '/list/') return method === 'GET' ? this.list('/') : bare(405);
    if (path === '/bus/') return method === 'GET' ? { status: 200, json: { busses: [{ name: 'system' }], status: 'ok' } } : bare(405);
    if (path.startsWith('/xyz/') || path.startsWith('/org/')) {
      if (!['GET', 'PUT', 'POST', 'DELETE'].includes(method)) return bare(405);
      return this.dbusUrl(req, method, path, body);
    }
    return bare(404);
  }

  /** login_routes.hpp handleLogin. */
  private login(req: IncomingMessage, body: Buffer): Reply {
    const credentials = this.behaviour.phosphorLogin ? this.credentials2023(req, body) : this.credentials(req, body);
    if (!credentials) return bare(400);
    const { user, password, phosphorRest } = credentials;
    if (!this.check(user, password)) return bare(401);
    const session = this.sessions.create(user, 'session', req.socket.remoteAddress ?? '');
    const headers: Record<string, string[]> = {};
    const cookies = phosphorRest || this.behaviour.tokenLoginSetsCookies;
    if (cookies && !this.ctx.faults.has('login-no-cookie')) headers['Set-Cookie'] = this.sessions.cookiesFor(session, !this.ctx.plain);
    // "Phosphor-Rest requires a very specific login structure" (2023): its envelope, not the token.
    if (phosphorRest) return { status: 200, json: { data: `User '${user}' logged in`, message: '200 OK', status: 'ok' }, headers };
    return { status: 200, json: { token: session.token }, headers };
  }

  /** Since 2026: {"username", "password"} only, parsed as every JSON body is. */
  private credentials(req: IncomingMessage, body: Buffer): Credentials | undefined {
    const parsed = this.parseJson(req, body);
    if (parsed.kind !== 'ok' || !(parsed.value instanceof JsonObject)) return undefined;
    return namedCredentials(parsed.value);
  }

  /**
   * 2023: a Content-Type starting (case-sensitively) with application/json takes
   * {"username", "password"}, else {"data": [user, password]} ("looksLikePhosphorRest"), else
   * {"data": {"username", "password"}}; any other Content-Type, the username and password headers.
   * Empty strings count as missing.
   */
  private credentials2023(req: IncomingMessage, body: Buffer): Credentials | undefined {
    const type = String(req.headers['content-type'] ?? '');
    let found: Credentials | undefined;
    if (type.startsWith('application/json')) {
      let j: TypedJson;
      try {
        j = parseTypedJson(decodeUtf8(body) ?? '', 'strict');
      } catch {
        return undefined;
      }
      if (!(j instanceof JsonObject)) return undefined;
      if (j.has('username') && j.has('password')) {
        found = namedCredentials(j);
      } else {
        const data = j.get('data');
        if (Array.isArray(data) && data.length === 2) {
          const [user, password] = data;
          found = {
            user: typeof user === 'string' ? user : '',
            password: typeof password === 'string' ? password : '',
            phosphorRest: true,
          };
        } else if (data instanceof JsonObject && data.has('username') && data.has('password')) {
          found = namedCredentials(data);
        }
      }
    } else {
      found = { user: String(req.headers.username ?? ''), password: String(req.headers.password ?? ''), phosphorRest: false };
    }
    return found && found.user !== '' && found.password !== '' ? found : undefined;
  }

  private logout(session: BmcwebSession | undefined): Reply {
    if (!session) return { status: 200 };
    if (!this.ctx.faults.has('logout-keeps-session')) this.sessions.remove(session);
    return {
      status: 200,
      json: { data: `User '${session.user}' logged out`, message: '200 OK', status: 'ok' },
      envelope: true,
      headers: { 'Set-Cookie': this.sessions.clearedCookie(!this.ctx.plain) },
    };
  }

  /** image_upload.hpp: one upload at a time; the answer waits for the version (15 s at most). */
  private async upload(image: Buffer): Promise<Reply> {
    if (this.uploading) return bare(503, { 'Retry-After': '30' });
    this.uploading = true;
    try {
      return ok(await this.ctx.registry.register(image, randomUUID()));
    } catch (e) {
      if (!(e instanceof HttpError)) throw e;
      if (e.status === 400) return error(400, UPLOAD_FAILED, '400 Bad Request');
      return bare(e.status);
    } finally {
      this.uploading = false;
    }
  }

  /** parsing.hpp parseRequestAsJson. */
  private parseJson(req: IncomingMessage, body: Buffer): Body {
    const type = String(req.headers['content-type'] ?? '').toLowerCase();
    if (type !== 'application/json' && type !== 'application/json; charset=utf-8') return { kind: 'type' };
    const text = decodeUtf8(body);
    if (text === undefined) return { kind: 'json' };
    try {
      return { kind: 'ok', value: parseTypedJson(text, 'strict') };
    } catch {
      return { kind: 'json' };
    }
  }

  /** The "data" member of a D-Bus REST request body, or the error reply. */
  private requestData(req: IncomingMessage, body: Buffer): TypedJson | Reply {
    const parsed = this.parseJson(req, body);
    if (parsed.kind === 'type') return error(415, INVALID_CONTENT_TYPE, '415 Unsupported Media Type');
    if (parsed.kind === 'json') {
      if (this.ctx.faults.has('malformed-json-500')) return bare(500);
      return error(400, NO_JSON_DESC, '400 Bad Request');
    }
    if (!(parsed.value instanceof JsonObject) || !parsed.value.has('data')) return error(400, NO_JSON_DESC, '400 Bad Request');
    return parsed.value.get('data')!;
  }

  /** The mapper's subtree calls accept one trailing slash; '/' is a node. */
  private subtreeNode(path: string): string | undefined {
    const p = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    return this.ctx.bus.tree.hasNode(p) ? p : undefined;
  }

  /** openbmc_dbus_rest.hpp handleDBusUrl. */
  private async dbusUrl(req: IncomingMessage, method: string, fullPath: string, body: Buffer): Promise<Reply> {
    let objectPath = fullPath;
    let property = '';
    const attr = objectPath.indexOf('/attr/');
    if (attr >= 0) {
      property = objectPath.slice(attr + '/attr/'.length);
      objectPath = objectPath.slice(0, attr);
    }
    switch (method) {
      case 'POST': {
        const action = objectPath.indexOf('/action/');
        if (action >= 0) return this.action(req, objectPath.slice(0, action), objectPath.slice(action + '/action/'.length), body);
        if (this.ctx.faults.has('post-create-200')) return ok('created');
        return error(405, METHOD_NOT_ALLOWED_DESC, '405 Method Not Allowed');
      }
      case 'GET':
        if (objectPath.endsWith('/enumerate')) return this.enumerate(objectPath.slice(0, -'/enumerate'.length));
        if (objectPath.endsWith('/list')) return this.list(objectPath.slice(0, -'/list'.length));
        if (objectPath.endsWith('/')) return this.children(objectPath.slice(0, -1));
        return this.get(objectPath, property);
      case 'PUT':
        return this.put(req, objectPath, property, body);
      default:
        return this.delete(objectPath);
    }
  }

  private children(path: string): Reply {
    const node = this.subtreeNode(path);
    if (node === undefined) return error(404, NOT_FOUND_DESC, '404 Not Found');
    return ok(this.ctx.listings.children(node));
  }

  /** GetSubTreePaths: every node below, intermediate ones included ('/' too for the root). */
  private list(path: string): Reply {
    const node = this.subtreeNode(path);
    if (node === undefined) return error(404, NOT_FOUND_DESC, '404 Not Found');
    return ok(this.ctx.listings.list(node, node === '/' ? { extra: ['/'] } : {}));
  }

  private enumerate(path: string): Reply {
    const node = this.subtreeNode(path);
    if (node === undefined) return error(404, NOT_FOUND_DESC, '404 Not Found');
    return ok(this.ctx.listings.enumerate(node, this.enumeratePaths(node)));
  }

  /**
   * handleEnumerate: the objects below the path that carry a non-org.freedesktop.DBus interface.
   * GetManagedObjects is asked only of ObjectManagers at or below the path (getObjectAndEnumerate),
   * whose objects lie below them, and findRemainingObjectsForEnumerate skips the path itself ("An
   * enumerate does not return the target path's properties"): the same in 2023 and now.
   */
  private enumeratePaths(target: string): string[] {
    const { bus } = this.ctx;
    const carries = (p: string): boolean =>
      [...(bus.tree.get(p)?.interfaces.keys() ?? [])].some((i) => !i.startsWith('org.freedesktop.DBus'));
    return bus.tree.descendantsOf(target).filter(carries);
  }

  private get(path: string, property: string): Reply {
    const { bus, faults } = this.ctx;
    if (!bus.tree.hasNode(path)) return error(404, NOT_FOUND_DESC, '404 Not Found');
    // A path node without interfaces: see BmcwebBehaviour.emptyNodeBody.
    if (!bus.tree.get(path)) return this.behaviour.emptyNodeBody === 'envelope' ? ok({}) : bare(200);
    if (property === '') return ok(bus.objectView(path));
    const obj = bus.tree.get(path);
    const ref = obj && bus.findAttribute(obj, property);
    const value = ref && bus.wire.attr(ref.property);
    // handleGet answers "not found" for a property whose value is an empty array or object too:
    // `if (!propertyName->empty() && response->empty())` (include/openbmc_dbus_rest.hpp line 1787
    // at a87c4180; features/openbmc_rest/openbmc_dbus_rest.hpp line 1823 upstream), while GET of
    // the object maps it to [] or {}.
    if (!ref || isEmptyJson(value)) return error(404, PROP_NOT_FOUND_DESC, '404 Not Found');
    if (faults.has('attr-wrapped-in-map')) return ok({ [property]: value });
    return ok(faults.has('attr-wrong-value') ? distort(value) : value);
  }

  /** handlePut. Its fallback error has description and message the wrong way round, as the source does. */
  private put(req: IncomingMessage, path: string, property: string, body: Buffer): Reply {
    const { bus, writer, faults } = this.ctx;
    if (property === '') return error(403, FORBIDDEN_RES_DESC, '403 Forbidden');
    const data = this.requestData(req, body);
    if (isReply(data)) return data;
    const obj = bus.tree.get(path);
    const ref = obj && bus.findAttribute(obj, property);
    if (!ref) return error(403, '403 Forbidden', FORBIDDEN_PROP_DESC);
    const converted = convertJsonToDbus(ref.property.signature, data);
    let value: DbusValue;
    if ('error' in converted) {
      if (!faults.has('wrong-type-stored') || !writer.isWritable(property, ref)) {
        const why = converted.error === 'range' ? 'Provided property value is out of range for the property type' : 'Invalid arg type';
        return error(500, why, '400 Bad Request');
      }
      value = plain(data);
    } else {
      value = converted.value;
    }
    if (!writer.isWritable(property, ref)) {
      return error(403, 'org.freedesktop.DBus.Error.PropertyReadOnly', `Property '${property}' is not writable.`);
    }
    const allowed = ref.property.enumValues;
    if (allowed && !allowed.includes(value as string)) {
      return error(403, 'xyz.openbmc_project.sdbusplus.Error.InvalidEnumString', 'An enumeration string was unable to be converted.');
    }
    if (!faults.has('put-attr-ignored')) writer.store(path, ref, property, value);
    const reply = ok(null);
    if (faults.has('success-201')) reply.status = 201;
    return reply;
  }

  /** handleDelete: a missing path is 405; an object without the Delete interface has no such method (404). */
  private async delete(path: string): Promise<Reply> {
    const { bus, actions, faults } = this.ctx;
    if (!bus.tree.hasNode(path)) return error(405, METHOD_NOT_ALLOWED_DESC, '405 Method Not Allowed');
    const deleteIface = `xyz.${this.ctx.namespace}.Object.Delete`;
    const obj = bus.tree.get(path);
    if (!obj?.implements(deleteIface)) {
      if (obj && faults.has('delete-nondeletable-succeeds')) {
        bus.removeObject(path);
        return ok(null);
      }
      return error(404, METHOD_NOT_FOUND_DESC, '404 Not Found');
    }
    await actions.invoke(path, deleteIface, 'Delete', []);
    return ok(null);
  }

  /** handleAction / findActionOnInterface: exact method name, arguments converted by their signatures. */
  private async action(req: IncomingMessage, path: string, methodName: string, body: Buffer): Promise<Reply> {
    const data = this.requestData(req, body);
    if (isReply(data)) return data;
    if (!Array.isArray(data)) return error(400, NO_JSON_DESC, '400 Bad Request');
    const { bus, actions } = this.ctx;
    if (!bus.tree.hasNode(path)) return error(404, NOT_FOUND_DESC, '404 Not Found');
    const found = bus.tree.get(path)?.findMethod(methodName);
    if (!found) return error(404, METHOD_NOT_FOUND_DESC, '404 Not Found');
    const args: DbusValue[] = [];
    for (const [i, sig] of found.method.args.entries()) {
      const arg = data[i];
      if (arg === undefined) return error(400, 'Invalid method args', '400 Bad Request');
      const c = convertJsonToDbus(sig, arg);
      if ('error' in c) return error(400, 'Invalid method arg type', '400 Bad Request');
      args.push(c.value);
    }
    try {
      return ok((await actions.invoke(path, found.interfaceName, methodName, args)) ?? null);
    } catch (e) {
      if (!(e instanceof HttpError)) throw e;
      if (e.status >= 500) return error(500, 'Method call failed', '500 Method Call Failed');
      // A D-Bus error reply: its name as description, its text as message.
      return error(400, 'org.freedesktop.DBus.Error.Failed', e.description);
    }
  }
}

interface Credentials {
  user: string;
  password: string;
  /** The phosphor-rest form, answered with its envelope (2023). */
  phosphorRest: boolean;
}

function namedCredentials(j: JsonObject): Credentials | undefined {
  const user = j.get('username');
  const password = j.get('password');
  if (typeof user !== 'string' || typeof password !== 'string') return undefined;
  return { user, password, phosphorRest: false };
}

/** What C sees of a string: everything before its first NUL. */
export function cString(s: string): string {
  const nul = s.indexOf('\u0000');
  return nul < 0 ? s : s.slice(0, nul);
}

function isReply(v: TypedJson | Reply): v is Reply {
  return (
    v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof JsonObject) && !(v instanceof JsonFloat) && 'status' in v
  );
}

function isEmptyJson(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object' && !(v instanceof JsonFloat)) return Object.keys(v).length === 0;
  return false;
}

function plain(v: TypedJson): DbusValue {
  if (v === null) return '';
  if (v instanceof JsonFloat) return v.value;
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof JsonObject) {
    const out: Record<string, DbusValue> = {};
    for (const [k, item] of v.map) out[k] = plain(item);
    return out;
  }
  return v;
}

function distort(value: unknown): unknown {
  if (typeof value === 'string') return value + '-';
  if (typeof value === 'number') return value + 1;
  if (typeof value === 'bigint') return value - 1n;
  if (value instanceof JsonFloat) return new JsonFloat(value.value + 1);
  if (typeof value === 'boolean') return !value;
  return null;
}
