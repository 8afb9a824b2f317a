/**
 * The leak oracle (AUTH-5): a refusal leaks when it carries data of the target that the request did
 * not carry. It knows the tree from the authenticated discovery:
 *
 * - attribute values (the distinctive ones: a serial number, a firmware version, an address);
 * - paths of existing objects, unless the path is the requested one as the server may have
 *   normalized it (collapsed slashes, resolved dot segments, another case, percent-decoded) or a
 *   prefix of it: field servers name the requested path in a 404, and that tells nothing new.
 *
 * The namespace root and its ancestors are in the spec, not data of the target.
 */
import { trimEnd, withoutTrailingSlashes } from '../../client/trim-end.js';
import type { BmcClient, BmcResponse } from '../../client/http.js';
import type { TreeSnapshot } from '../../client/tree-reads.js';
import { requestTarget } from '../../client/transport.js';
import { cached, list, rootAttributeMaps } from './tree.js';
import { forgetEachRun } from '../../client/run-scoped.js';

export interface TreeKnowledge {
  root: string;
  /** Paths of the tree (objects and the nodes above them), lower-cased, without the root and its ancestors. */
  paths: ReadonlySet<string>;
  /** Distinctive attribute values, as they are. */
  values: readonly string[];
}

/** A request as sent: what it carried may come back without leaking anything. */
export interface SentRequest {
  path: string;
  body?: string | Buffer;
}

/** More values than this are not searched for in every body (a tree of 10,000 objects). */
const MAX_VALUES = 5000;

/**
 * A value distinctive enough that finding it in a refusal means it came from the tree: long, and
 * not a plain word an error text could hold by chance ("Enabled", "Unknown").
 */
function distinctive(value: string): boolean {
  if (value.length < 6 || value.length > 512) return false;
  return value.length >= 16 || /[0-9._:/-]/.test(value);
}

function collectStrings(value: unknown, out: Set<string>): void {
  if (typeof value === 'string') {
    if (distinctive(value)) out.add(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectStrings(item, out);
  } else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) collectStrings(item, out);
  }
}

export function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  for (let cut = path.lastIndexOf('/'); cut > 0; cut = path.lastIndexOf('/', cut - 1)) out.push(path.slice(0, cut));
  return out;
}

/** Knowledge from a listing and an enumeration of the namespace root (either may be empty). */
export function treeKnowledge(
  root: string,
  listing: readonly string[],
  enumeration: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
): TreeKnowledge {
  const spec = new Set([root, ...ancestorsOf(root)].map((p) => p.toLowerCase()));
  const paths = new Set<string>();
  for (const p of [...listing, ...Object.keys(enumeration)]) {
    if (!p.startsWith('/')) continue;
    for (const q of [p, ...ancestorsOf(p)]) {
      const lower = q.toLowerCase();
      if (!spec.has(lower)) paths.add(lower);
    }
  }
  const values = new Set<string>();
  for (const path of Object.keys(enumeration).sort()) collectStrings(enumeration[path], values);
  return { root, paths, values: [...values].sort().slice(0, MAX_VALUES) };
}

// --- The requested path, as a server may have rewritten it ------------------------------------------

function decodeAll(text: string): string {
  let out = text;
  for (let i = 0; i < 3; i++) {
    let next: string;
    try {
      next = decodeURIComponent(out);
    } catch {
      next = out.replace(/%([0-9a-f]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    }
    if (next === out) break;
    out = next;
  }
  return out;
}

/** RFC 3986 remove_dot_segments on a path. */
function resolveDots(path: string): string {
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '.') continue;
    if (segment === '..') {
      if (out.length > 1) out.pop();
      continue;
    }
    out.push(segment);
  }
  return out.join('/') || '/';
}

/** Every spelling of the requested path a server may echo, lower-cased, without a trailing slash. */
export function spellingsOf(path: string): Set<string> {
  const raw = path.split('?')[0]!;
  const start = new Set([raw, requestTarget('', raw)]);
  const out = new Set<string>();
  for (const s of start) {
    for (const decoded of [s, decodeAll(s)]) {
      const collapsed = decoded.replace(/\/{2,}/g, '/');
      for (const form of [decoded, collapsed, resolveDots(decoded), resolveDots(collapsed)]) {
        out.add(withoutTrailingSlashes(form).toLowerCase());
      }
    }
  }
  return out;
}

/**
 * True when `treePath` (lower-cased) is the request, as spelled by the server, or a prefix of it:
 * a server may cut the path where it stopped resolving it, inside an element too ("network^/x"
 * answered with "network"). It may also drop what comes before it ("/^./xyz/a/list" answered with
 * "/xyz/a"): a path the request carries whole, up to an element's end, tells the client nothing.
 */
function isEcho(treePath: string, spellings: ReadonlySet<string>): boolean {
  for (const s of spellings) {
    if (s.startsWith(treePath)) return true;
    for (let at = s.indexOf(treePath, 1); at !== -1; at = s.indexOf(treePath, at + 1)) {
      const next = s[at + treePath.length];
      if (next === undefined || next === '/') return true;
    }
  }
  return false;
}

// --- Reading a body ---------------------------------------------------------------------------------

/** The texts of a body: every string and key of a JSON body, or the body as it is. */
function textsOf(res: BmcResponse): string[] {
  if (res.json === undefined) return [res.text];
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        out.push(k);
        walk(item);
      }
    }
  };
  walk(res.json);
  return out;
}

const PATH_TOKEN = /\/[^\s"'<>,;()[\]{}\\|`^]*/g;

/** The longest tree path that is `token` or an ancestor of it, lower-cased. */
function treePathIn(token: string, k: TreeKnowledge): string | undefined {
  let p = withoutTrailingSlashes(trimEnd(token, ".:!?'")).toLowerCase();
  while (p.length > 1) {
    if (k.paths.has(p)) return p;
    const cut = p.lastIndexOf('/');
    if (cut <= 0) return undefined;
    p = p.slice(0, cut);
  }
  return undefined;
}

function bodyText(body: string | Buffer | undefined): string {
  if (body === undefined) return '';
  return typeof body === 'string' ? body : body.toString('utf8');
}

/** `text` with every whole occurrence of an echo blanked (a longer path that begins with one is another path). */
function withoutEchoes(text: string, echoes: readonly string[]): string {
  let out = text;
  for (const echo of echoes) {
    let at = out.indexOf(echo);
    while (at !== -1) {
      const next = out[at + echo.length];
      const whole = next === undefined || !/[a-z0-9_/-]/.test(next);
      if (whole) out = `${out.slice(0, at)} ${out.slice(at + echo.length)}`;
      at = out.indexOf(echo, whole ? at + 1 : at + echo.length);
    }
  }
  return out;
}

/**
 * What of the tree a refusal carries that the request did not: a description for the report, or
 * undefined when it carries nothing.
 */
export function leakIn(res: BmcResponse, request: SentRequest, k: TreeKnowledge): string | undefined {
  const texts = textsOf(res);
  const spellings = spellingsOf(request.path);
  // The request echoed whole is no leak, though characters a path token stops at ("{", "^")
  // would cut it into pieces that each look like a path of the tree.
  const echoes = [...spellings].filter((x) => x.length > 1).sort((a, b) => b.length - a.length);
  for (const text of texts) {
    const rest = withoutEchoes(text.toLowerCase(), echoes);
    for (const token of rest.match(PATH_TOKEN) ?? []) {
      const found = treePathIn(token, k);
      if (found && !isEcho(found, spellings))
        return `the body names ${JSON.stringify(token.slice(0, 120))}, a path of the tree other than the requested one`;
    }
  }
  const carried = `${[...spellings].join('\n')}\n${decodeAll(request.path)}\n${bodyText(request.body)}`;
  for (const value of k.values) {
    if (carried.includes(value)) continue;
    if (texts.some((t) => t.includes(value)))
      return `the body carries ${JSON.stringify(value.slice(0, 80))}, an attribute value of the tree`;
  }
  return undefined;
}

// --- Discovery ------------------------------------------------------------------------------------

let discovered: Promise<TreeKnowledge> | undefined;
forgetEachRun(() => (discovered = undefined));

/**
 * What the oracle knows of this target: read once per run with the session (a listing and an
 * enumeration of the namespace root, shared with the fuzzer's model; `how`: read as the run planned,
 * tree.ts attributeMaps). A target whose root cannot be listed or enumerated gives what the other reading shows.
 */
export function discoverKnowledge(client: BmcClient, ns: string, how?: TreeSnapshot): Promise<TreeKnowledge> {
  discovered ??= (async () => {
    const root = `/xyz/${ns}`;
    const listing = await cached('list:root', () => list(client, root)).catch(() => [] as string[]);
    const enumeration = await rootAttributeMaps(client, root, how).catch(() => ({}));
    return treeKnowledge(root, listing, enumeration);
  })();
  return discovered;
}
