/**
 * The three listing endpoints: direct children ({path}/), all descendants ({path}/list) and the
 * enumeration of descendant objects with their attributes ({path}/enumerate). The tree keeps a
 * sorted index, so a listing is a range lookup rather than a scan.
 */
import type { AttributeMap, Bus } from './bus.js';
import { HttpError } from './envelope.js';

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
    return [...extra, ...select(this.bus.tree.descendantsOf(path))];
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
    return out;
  }
}
