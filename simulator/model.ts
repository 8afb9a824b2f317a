/**
 * The D-Bus-like object tree: objects hold interfaces, interfaces hold typed properties and
 * methods. A "node" is an object path or any prefix of one (intermediate nodes list their
 * children and read as `{}`), mirroring how the REST server walks the D-Bus tree.
 */
import type { DbusValue } from './types.js';

export interface Property {
  /** D-Bus signature of the value. */
  signature: string;
  value: DbusValue;
  writable: boolean;
  /** For enumerated strings: the accepted values on write. */
  enumValues?: readonly string[];
  /** A clock-like value computed on read; a whole-object PUT does not compare it. */
  live?: () => DbusValue;
}

/** What a method does is decided by the action dispatcher; the model only knows its shape. */
export interface Method {
  args: readonly string[];
}

export interface Interface {
  properties: Map<string, Property>;
  methods: Map<string, Method>;
}

export interface AttributeRef {
  interfaceName: string;
  property: Property;
}

export class DbusObject {
  readonly interfaces = new Map<string, Interface>();
  private attrIndex: Map<string, AttributeRef> | null = null;

  constructor(readonly path: string) {}

  addInterface(name: string, properties: Record<string, Property> = {}, methods: Record<string, Method> = {}): this {
    this.interfaces.set(name, {
      properties: new Map(Object.entries(properties)),
      methods: new Map(Object.entries(methods)),
    });
    this.attrIndex = null;
    return this;
  }

  /** Flattened attribute name → owning interface and property (first interface wins a clash). */
  attributes(): Map<string, AttributeRef> {
    if (!this.attrIndex) {
      const index = new Map<string, AttributeRef>();
      for (const [interfaceName, iface] of this.interfaces) {
        for (const [name, property] of iface.properties) {
          if (!index.has(name)) index.set(name, { interfaceName, property });
        }
      }
      this.attrIndex = index;
    }
    return this.attrIndex;
  }

  findMethod(name: string): { interfaceName: string; method: Method } | undefined {
    for (const [interfaceName, iface] of this.interfaces) {
      const method = iface.methods.get(name);
      if (method) return { interfaceName, method };
    }
    return undefined;
  }

  implements(interfaceName: string): boolean {
    return this.interfaces.has(interfaceName);
  }
}

export function readProperty(p: Property): DbusValue {
  return p.live ? p.live() : p.value;
}

export function parentOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut <= 0 ? '/' : path.slice(0, cut);
}

export class ObjectTree {
  private readonly objects = new Map<string, DbusObject>();
  /** node path → direct child node paths. */
  private readonly children = new Map<string, Set<string>>([['/', new Set()]]);
  /** Every node except '/', sorted; rebuilt lazily after adds and removals. */
  private sorted: string[] | null = null;

  get size(): number {
    return this.objects.size;
  }

  add(obj: DbusObject): void {
    this.objects.set(obj.path, obj);
    // Invariant: a node is in `children` exactly when it is linked into its parent's set.
    let node = obj.path;
    if (this.children.has(node)) return;
    this.children.set(node, new Set());
    this.sorted = null;
    for (;;) {
      const parent = parentOf(node);
      const linked = this.children.has(parent);
      if (!linked) this.children.set(parent, new Set());
      this.children.get(parent)!.add(node);
      if (linked) return;
      node = parent;
    }
  }

  /** Removes an object; intermediate nodes left without children vanish with it. */
  remove(path: string): boolean {
    if (!this.objects.delete(path)) return false;
    let node = path;
    while (node !== '/' && !this.objects.has(node) && this.children.get(node)?.size === 0) {
      this.children.delete(node);
      const parent = parentOf(node);
      this.children.get(parent)?.delete(node);
      this.sorted = null;
      node = parent;
    }
    return true;
  }

  clear(): void {
    this.objects.clear();
    this.children.clear();
    this.children.set('/', new Set());
    this.sorted = null;
  }

  hasNode(path: string): boolean {
    return this.children.has(path);
  }

  get(path: string): DbusObject | undefined {
    return this.objects.get(path);
  }

  objectPaths(): IterableIterator<string> {
    return this.objects.keys();
  }

  childrenOf(path: string): string[] {
    return [...(this.children.get(path) ?? [])].sort();
  }

  /** Every node below `path`, sorted: a contiguous range of the sorted index. */
  descendantsOf(path: string): string[] {
    const all = this.sortedNodes();
    if (path === '/') return all.slice();
    const prefix = path + '/';
    let lo = 0;
    let hi = all.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (all[mid]! < prefix)
        lo = mid + 1; // lo <= mid < hi <= all.length
      else hi = mid;
    }
    let end = lo;
    while (all[end]?.startsWith(prefix)) end++;
    return all.slice(lo, end);
  }

  private sortedNodes(): string[] {
    if (!this.sorted) {
      this.sorted = [...this.children.keys()].filter((p) => p !== '/').sort();
    }
    return this.sorted;
  }
}
