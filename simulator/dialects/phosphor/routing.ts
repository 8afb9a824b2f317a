/**
 * How phosphor-rest-server maps a request to a handler (rest_dbus.py App, bottle 0.12 Router):
 *
 * 1. PATH_INFO is percent-decoded by the WSGI server; bottle decodes it as UTF-8 or answers 400.
 * 2. The before_request hook strip_extra_slashes collapses slashes (keeping one trailing slash):
 *    '/' itself becomes '//'. Dot segments are kept as they are.
 * 3. Static rules win, then the dynamic rules in install order; '<path:path>' is `.+?`.
 */
import { match2 } from '../../tuples.js';
import { PyException } from '../typed-json.js';

export type HandlerName =
  | 'session'
  | 'web'
  | 'directory'
  | 'listNames'
  | 'list'
  | 'method'
  | 'property'
  | 'schema'
  | 'imagePost'
  | 'imagePut'
  | 'dump'
  | 'certificate'
  | 'event'
  | 'console'
  | 'instance';

export interface Match {
  handler: HandlerName;
  path: string;
  /** method name, property name, file name or certificate parts. */
  name?: string;
  name2?: string;
}

const GET = ['GET', 'HEAD', 'OPTIONS'];

/** RouteHandler._verbs: GET brings HEAD, OPTIONS is always allowed. */
export const VERBS: Record<HandlerName, readonly string[]> = {
  session: ['POST', 'OPTIONS'],
  web: GET,
  directory: GET,
  listNames: GET,
  list: GET,
  method: ['POST', 'OPTIONS'],
  property: ['PUT', 'GET', 'HEAD', 'OPTIONS'],
  schema: GET,
  imagePost: ['POST', 'OPTIONS'],
  imagePut: ['PUT', 'OPTIONS'],
  dump: GET,
  certificate: ['PUT', 'DELETE', 'OPTIONS'],
  event: GET,
  console: GET,
  instance: ['GET', 'PUT', 'DELETE', 'HEAD', 'OPTIONS'],
};

/** The route's content_type: checked for PUT/POST/PATCH by ContentCheckerPlugin. */
export const CONTENT_TYPE: Partial<Record<HandlerName, string>> = {
  session: 'application/json',
  method: 'application/json',
  property: 'application/json',
  imagePost: 'application/octet-stream',
  imagePut: 'application/octet-stream',
  dump: 'application/octet-stream',
  certificate: 'application/octet-stream',
};

/** SessionHandler and WebHandler set _require_auth = None. */
export const NEEDS_LOGIN = (h: HandlerName): boolean => h !== 'session' && h !== 'web';

/** Handlers whose request body JsonApiRequestPlugin parses, and those JsonApiRequestTypePlugin wants a list from. */
export const JSON_BODY = new Set<HandlerName>(['session', 'method', 'property']);
export const LIST_BODY = new Set<HandlerName>(['session', 'method']);

/** WSGI percent-decoding, then bottle's UTF-8 decoding of PATH_INFO. */
export function decodePath(raw: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x25 && /^[0-9a-fA-F]{2}$/.test(raw.slice(i + 1, i + 3))) {
      bytes.push(parseInt(raw.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c < 0x100) {
      bytes.push(c);
    } else {
      bytes.push(...Buffer.from(raw.charAt(i), 'utf8'));
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
  } catch {
    throw new InvalidPath();
  }
}

/** bottle answers 400 'Invalid path string. Expected UTF-8' before any route runs. */
export class InvalidPath extends Error {}

/** App.strip_extra_slashes. */
export function stripExtraSlashes(path: string): string {
  const trailing = path.endsWith('/') ? '/' : '';
  return '/' + path.split('/').filter(Boolean).join('/') + trailing;
}

const WEB_FILE = /^\/(.+\.(?:js|svg|css|ttf|eot|woff|woff2|map|png|html|ico))$/;

export function matchRoute(path: string, namespace: string): Match {
  switch (path) {
    case '/login':
    case '/logout':
      return { handler: 'session', path };
    case '//':
      return { handler: 'web', path };
    case '/list':
      return { handler: 'listNames', path: '/' };
    case '/enumerate':
      return { handler: 'list', path: '/' };
    case '/upload/image':
      return { handler: 'imagePost', path };
    case '/subscribe':
      return { handler: 'event', path };
    case '/console0':
      return { handler: 'console', path };
  }
  const group = (re: RegExp): string | undefined => re.exec(path)?.[1];
  let m: string | undefined;
  let m2: [string, string] | undefined;
  if (WEB_FILE.test(path)) return { handler: 'web', path };
  if ((m = group(/^(.+?)\/$/)) !== undefined) return { handler: 'directory', path: m };
  if ((m = group(/^(.+?)\/list$/)) !== undefined) return { handler: 'listNames', path: m };
  if ((m = group(/^(.+?)\/enumerate$/)) !== undefined) return { handler: 'list', path: m };
  if ((m2 = match2(/^(.+?)\/action\/([^/]+)$/, path))) return { handler: 'method', path: m2[0], name: m2[1] };
  if ((m2 = match2(/^(.+?)\/attr\/([^/]+)$/, path))) return { handler: 'property', path: m2[0], name: m2[1] };
  if ((m = group(/^(.+?)\/schema$/)) !== undefined) return { handler: 'schema', path: m };
  if ((m = group(/^\/upload\/image\/([^/]+)$/)) !== undefined) return { handler: 'imagePut', path, name: m };
  if ((m = group(/^\/download\/dump\/([^/]+)$/)) !== undefined) return { handler: 'dump', path, name: m };
  const certs = match2(new RegExp(`^/xyz/${namespace}/certs/([^/]+)/([^/]+)$`), path);
  if (certs) return { handler: 'certificate', path, name: certs[0], name2: certs[1] };
  return { handler: 'instance', path };
}

/** The mapper's not-found error as the server passes it on (str(DBusException)). */
export function mapperNotFound(path: string): string {
  return `org.freedesktop.DBus.Error.FileNotFound: path or object not found: ${path}`;
}

/** _4034_msg = "The specified %s cannot be %s: '%s'" */
export function msg4034(what: string, verb: string, name: string): string {
  return `The specified ${what} cannot be ${verb}: '${name}'`;
}

/** A Python exception to answer with 500, plus where it was raised. */
export class PyCrash extends Error {
  constructor(
    readonly exception: PyException,
    readonly frame: { method: string; line: number; code: string },
  ) {
    super(exception.message);
  }
}
