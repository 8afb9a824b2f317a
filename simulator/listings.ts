/**
 * The three listing endpoints: direct children ({path}/), all descendants ({path}/list) and the
 * enumeration of descendant objects with their attributes ({path}/enumerate). The tree keeps a
 * sorted index, so a listing is a range lookup rather than a scan.
 */
import type { AttributeMap, Bus } from './bus.js';
import { HttpError } from './envelope.js';
import { LISTING_PAGE } from './faults-listings.js';

/**
 * enumerate-short-enum-values: enumerated values as their member name alone ("Off" for
 * "xyz.{ns}.State.Host.HostState.Off"), as a server that prettifies them would render them.
 */
function shortEnumValues(map: AttributeMap): AttributeMap {
  const out: AttributeMap = {};
  for (const [k, v] of Object.entries(map))
    out[k] = typeof v === 'string' && /^xyz\.[^.]+\..+\.\w+$/.test(v) ? v.slice(v.lastIndexOf('.') + 1) : v;
  return out;
}

export class Listings {
  /** Only with the enumerate-stale-value fault: the first attribute map served per path. */
  private readonly staleCache = new Map<string, AttributeMap>();

  constructor(private readonly bus: Bus) {}

  private requireNode(path: string): void {
    if (!this.bus.tree.hasNode(path)) throw new HttpError(404, `Path ${path} not found`);
  }

  children(path: string): string[] {
    this.requireNode(path);
    if (path === '/' && this.bus.faults.has('root-lists-nothing')) return [];
    const paths = this.bus.tree.childrenOf(path);
    if (this.bus.faults.has('listing-relative-paths')) return paths.map((p) => p.slice(p.lastIndexOf('/') + 1));
    if (this.bus.faults.has('listing-includes-grandchildren')) return [...paths, ...paths.flatMap((p) => this.bus.tree.childrenOf(p))];
    if (this.bus.faults.has('listing-includes-self') && paths.length > 0) return [path, ...paths];
    if (this.bus.faults.has('listing-duplicates-last') && paths.length > 1) return [...paths, paths.at(-1)!];
    if (this.bus.faults.has('listing-omits-last') && paths.length > 1) return paths.slice(0, -1);
    if (this.bus.faults.has('listing-first-page-only')) return paths.slice(0, LISTING_PAGE);
    return paths;
  }

  /**
   * `select` lets a dialect choose which descendants it lists (default: every node below);
   * `extra` paths go first.
   */
  list(path: string, opts: { select?: (descendants: string[]) => string[]; extra?: string[] } = {}): string[] {
    this.requireNode(path);
    const select = opts.select ?? ((d: string[]) => d);
    const extra = [...(opts.extra ?? []), ...[...this.bus.lingering].filter((p) => p.startsWith(`${path}/`))];
    if (this.bus.faults.has('list-not-recursive')) return [...extra, ...select(this.bus.tree.childrenOf(path))];
    if (this.bus.faults.has('list-includes-self')) return [...extra, path, ...select(this.bus.tree.descendantsOf(path))];
    const listed = [...extra, ...select(this.bus.tree.descendantsOf(path))];
    if (this.bus.faults.has('list-duplicates-first') && listed.length > 1) return [listed[0]!, ...listed];
    // list-names-missing: a descendant that never existed (a stale index entry) is named too.
    if (this.bus.faults.has('list-names-missing') && listed.length > 0) return [...listed, `${path}/bmc_conformance_ghost`];
    // list-omits-deepest: the descendant with the most path elements is left out (a depth-limited walk).
    if (this.bus.faults.has('list-omits-deepest') && listed.length > 1) {
      const depth = (p: string) => p.split('/').length;
      const deepest = listed.reduce((a, b) => (depth(b) > depth(a) ? b : a));
      return listed.filter((p) => p !== deepest);
    }
    return listed;
  }

  /** `paths` lets a dialect choose the objects it enumerates (default: every object below). */
  enumerate(path: string, paths?: string[]): Record<string, AttributeMap> {
    this.requireNode(path);
    const stale = this.bus.faults.has('enumerate-stale-value');
    const out: Record<string, AttributeMap> = {};
    for (const p of paths ?? this.bus.tree.descendantsOf(path)) {
      if (!this.bus.tree.get(p)) continue; // intermediate node, not an object
      if (stale) {
        let cached = this.staleCache.get(p);
        if (!cached) this.staleCache.set(p, (cached = this.bus.attributes(p)));
        out[p] = cached;
      } else {
        out[p] = this.bus.attributes(p);
      }
    }
    if (path === `/xyz/${this.bus.namespace}`) for (const [p, map] of this.bus.lingeringMaps) out[p] = map;
    if (this.bus.faults.has('enumerate-includes-self') && this.bus.tree.get(path) && Object.keys(out).length > 0) {
      return { [path]: this.bus.attributes(path), ...out };
    }
    // enumerate-names-missing: a descendant that does not exist is mapped, with attributes.
    if (this.bus.faults.has('enumerate-names-missing') && Object.keys(out).length > 0)
      out[`${path}/bmc_conformance_ghost`] = { Present: true };
    // enumerate-omits-deepest: the deepest object with attributes is left out.
    if (this.bus.faults.has('enumerate-omits-deepest')) {
      const depth = (p: string) => p.split('/').length;
      const withAttrs = Object.keys(out).filter((p) => Object.keys(out[p]!).length > 0);
      if (withAttrs.length > 1) delete out[withAttrs.reduce((a, b) => (depth(b) > depth(a) ? b : a))];
    }
    if (this.bus.faults.has('enumerate-short-enum-values')) {
      for (const [p, map] of Object.entries(out)) out[p] = shortEnumValues(map);
    }
    return out;
  }
}
