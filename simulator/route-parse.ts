/**
 * Maps a request target to one of the interface's path shapes. Nothing is normalised: no
 * percent-decoding, no collapsing of doubled slashes, no `..` resolution; a path that does not
 * name a node exactly is simply not found.
 */
import type { ObjectTree } from './model.js';
import { match2 } from './tuples.js';

export type Route =
  | { kind: 'login' }
  | { kind: 'logout' }
  | { kind: 'upload' }
  | { kind: 'upload-named'; name: string }
  | { kind: 'subscribe' }
  | { kind: 'object'; path: string }
  | { kind: 'children'; path: string }
  | { kind: 'list'; path: string }
  | { kind: 'enumerate'; path: string }
  | { kind: 'attr'; path: string; name: string }
  | { kind: 'action'; path: string; method: string }
  | { kind: 'invalid'; target: string };

/** The path part of a request target (the query, if any, is not part of the path). */
export function targetPath(url: string | undefined): string {
  const target = url ?? '';
  const q = target.indexOf('?');
  return q < 0 ? target : target.slice(0, q);
}

const base = (p: string): string => (p === '' ? '/' : p);

export function parseRoute(url: string | undefined, tree: ObjectTree): Route {
  const path = targetPath(url);
  if (!path.startsWith('/')) return { kind: 'invalid', target: path };
  switch (path) {
    case '/login':
      return { kind: 'login' };
    case '/logout':
      return { kind: 'logout' };
    case '/upload/image':
      return { kind: 'upload' };
    case '/subscribe':
      return { kind: 'subscribe' };
    case '/':
      return { kind: 'children', path: '/' };
  }
  if (path.startsWith('/upload/image/')) return { kind: 'upload-named', name: path.slice('/upload/image/'.length) };
  if (path.endsWith('/')) {
    const parent = path.slice(0, -1);
    // "//" would be the root's listing only after collapsing slashes, which we never do.
    return parent === '/' ? { kind: 'invalid', target: path } : { kind: 'children', path: parent };
  }
  // An existing node wins over a suffix reading (an object could be called "list").
  if (tree.hasNode(path)) return { kind: 'object', path };
  let m = match2(/^(.*)\/attr\/([^/]+)$/, path);
  if (m) return { kind: 'attr', path: base(m[0]), name: m[1] };
  m = match2(/^(.*)\/action\/([^/]+)$/, path);
  if (m) return { kind: 'action', path: base(m[0]), method: m[1] };
  m = match2(/^(.*)\/(list|enumerate)$/, path);
  if (m) return { kind: m[1] as 'list' | 'enumerate', path: base(m[0]) };
  return { kind: 'object', path };
}
