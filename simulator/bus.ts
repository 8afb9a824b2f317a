/**
 * The object tree plus its signals: every change goes through here so that PropertiesChanged and
 * InterfacesAdded are published exactly once, in the order the changes happen.
 */
import type { EventHub } from './events.js';
import { SPEC_WIRE, type WireStyle } from './dialects/wire.js';
import type { FaultSet } from './faults.js';
import { buildInitialTree, type TreeOptions } from './initial-tree.js';
import { DbusObject, ObjectTree, parentOf, readProperty, type AttributeRef, type Property } from './model.js';
import { toWire, type DbusValue, sameValue } from './types.js';
import type { EventCause } from '../client/event-site.js';

const OBJECT_MANAGER = 'org.freedesktop.DBus.ObjectManager';

export type AttributeMap = Record<string, unknown>;

export class Bus {
  readonly tree = new ObjectTree();
  private readonly initial = new Map<string, DbusValue>();
  /** What the changes signalled now were caused by (event faults at a site apply by it). */
  private causeNow: EventCause | undefined;

  constructor(
    readonly hub: EventHub,
    readonly faults: FaultSet,
    private readonly treeOptions: TreeOptions,
    /** How values are rendered in responses and events (the dialect's choice; spec: 0/1 booleans). */
    readonly wire: WireStyle = SPEC_WIRE,
  ) {
    this.loadInitialTree();
  }

  get namespace(): string {
    return this.treeOptions.namespace;
  }

  /** Factory state: the initial tree again (no signals, as after a reboot). */
  loadInitialTree(): void {
    this.tree.clear();
    this.initial.clear();
    for (const obj of buildInitialTree(this.treeOptions)) {
      this.tree.add(obj);
      for (const [name, ref] of obj.attributes()) this.initial.set(`${obj.path}\u0000${name}`, ref.property.value);
    }
  }

  /** The value an attribute had when the tree was built (restore-skipped fault). */
  initialValue(path: string, name: string): DbusValue | undefined {
    return this.initial.get(`${path}\u0000${name}`);
  }

  /** GET view of an object: its interfaces flattened into one attribute map. */
  attributes(path: string): AttributeMap {
    const obj = this.tree.get(path);
    const out: AttributeMap = {};
    if (!obj) return out;
    for (const [name, ref] of obj.attributes()) out[name] = this.wire.object(ref.property);
    return out;
  }

  /** GET view per interface (only the object-not-flattened fault shows this). */
  /**
   * What GET {path} answers: the attribute map, as the object faults distort it
   * (object-not-flattened, object-omits-empty-strings, object-uint64-rounded).
   */
  objectView(path: string): AttributeMap | Record<string, AttributeMap> {
    if (this.faults.has('object-not-flattened')) return this.interfaceView(path);
    const map = this.attributes(path);
    if (this.faults.has('object-omits-empty-strings')) for (const [k, v] of Object.entries(map)) if (v === '') delete map[k];
    if (this.faults.has('object-uint64-rounded'))
      for (const [k, v] of Object.entries(map)) if (typeof v === 'bigint' && (v > 2n ** 53n || v < -(2n ** 53n))) map[k] = Number(v);
    return map;
  }

  interfaceView(path: string): Record<string, AttributeMap> {
    const obj = this.tree.get(path);
    const out: Record<string, AttributeMap> = {};
    if (!obj) return out;
    for (const [iface, { properties }] of obj.interfaces) {
      const m: AttributeMap = {};
      for (const [name, p] of properties) m[name] = this.wire.object(p);
      out[iface] = m;
    }
    return out;
  }

  /** Looks up an attribute by exact (case-sensitive) name. */
  findAttribute(obj: DbusObject, name: string): AttributeRef | undefined {
    const attrs = obj.attributes();
    const exact = attrs.get(name);
    if (exact || !this.faults.has('attr-case-insensitive')) return exact;
    const lower = name.toLowerCase();
    for (const [n, ref] of attrs) if (n.toLowerCase() === lower) return ref;
    return undefined;
  }

  /** The cause of the changes in progress, if one was named. */
  get cause(): EventCause | undefined {
    return this.causeNow;
  }

  /** Runs `change` (synchronous) with its signals carrying `cause`; a nested cause wins inside its own. */
  withCause<T>(cause: EventCause, change: () => T): T {
    const outer = this.causeNow;
    this.causeNow = cause;
    try {
      return change();
    } finally {
      this.causeNow = outer;
    }
  }

  /**
   * Stores a canonical value; publishes PropertiesChanged when it really changed (and `signal`
   * holds: only the object-put-silent fault stores without signalling).
   */
  setProperty(path: string, ref: AttributeRef, name: string, value: DbusValue, signal = true): boolean {
    if (sameValue(ref.property.value, value)) return false;
    const before = { [name]: this.eventValue(ref.property) };
    ref.property.value = value;
    if (!signal) return true;
    this.hub.publish(
      {
        event: 'PropertiesChanged',
        path,
        interface: ref.interfaceName,
        properties: this.faults.has('properties-changed-all')
          ? this.changedWithSiblings(path, ref.interfaceName, name, ref.property)
          : { [name]: this.eventValue(ref.property) },
      },
      { cause: this.causeNow, before },
    );
    return true;
  }

  /**
   * A PropertiesChanged of a property that did not change (the event-on-refused-write and
   * event-on-same-value faults): `value` as the client sent it, or the stored one.
   */
  signalUnchanged(path: string, ref: AttributeRef, name: string, value?: unknown): void {
    const shown = value === undefined ? this.eventValue(ref.property) : value;
    this.hub.publish({ event: 'PropertiesChanged', path, interface: ref.interfaceName, properties: { [name]: shown } });
  }

  /** The value an event carries; properties-changed-stringified sends every value as its text. */
  private eventValue(p: Property): unknown {
    const v = this.wire.event(p);
    return this.faults.has('properties-changed-stringified') && typeof v !== 'string' ? String(v) : v;
  }

  /** properties-changed-all: every property of the interface, the changed one among them. */
  private changedWithSiblings(path: string, iface: string, name: string, changed: AttributeRef['property']): AttributeMap {
    const out: AttributeMap = {};
    for (const [n, p] of this.tree.get(path)?.interfaces.get(iface)?.properties ?? []) out[n] = this.wire.event(p);
    out[name] = this.wire.event(changed);
    return out;
  }

  addObject(obj: DbusObject): void {
    this.tree.add(obj);
    this.lingering.delete(obj.path);
    this.lingeringMaps.delete(obj.path);
    const interfaces: Record<string, AttributeMap> = {};
    for (const [iface, { properties }] of obj.interfaces) {
      const m: AttributeMap = {};
      for (const [name, p] of properties) m[name] = this.wire.event(p);
      interfaces[iface] = m;
    }
    // interfaces-added-hides-one: the object's last interface with properties (one GET shows) is never announced.
    const withProperties = [...obj.interfaces].filter(([, i]) => i.properties.size > 0).map(([name]) => name);
    if (this.faults.has('interfaces-added-hides-one') && withProperties.length > 1) delete interfaces[withProperties.at(-1)!];
    const emitter = this.objectManagerOf(obj.path);
    // interfaces-added-manager-path: the signal names the ObjectManager it comes from, not the new object.
    const path = this.faults.has('interfaces-added-manager-path') ? emitter : obj.path;
    this.hub.publish({ event: 'InterfacesAdded', path, interfaces }, { emitter, cause: this.causeNow });
  }

  /**
   * The path a D-Bus InterfacesAdded signal for `path` is emitted from: the nearest proper ancestor
   * implementing org.freedesktop.DBus.ObjectManager ('/' when none does).
   */
  objectManagerOf(path: string): string {
    let node = parentOf(path);
    while (node !== '/') {
      if (this.tree.get(node)?.implements(OBJECT_MANAGER)) return node;
      node = parentOf(node);
    }
    return '/';
  }

  /** Only with the delete-lingers-in-list fault: deleted paths that {path}/list keeps naming. */
  readonly lingering = new Set<string>();
  /** Only with the delete-lingers-in-root-enumerate fault: deleted objects the namespace root's enumerate keeps mapping. */
  readonly lingeringMaps = new Map<string, AttributeMap>();

  /** The object listed after `path` under its parent, if any (the *-next-sibling faults). */
  nextSibling(path: string): string | undefined {
    const siblings = this.tree.childrenOf(parentOf(path));
    return siblings.slice(siblings.indexOf(path) + 1).find((p) => this.tree.get(p) !== undefined);
  }

  /**
   * Stores `value` in the attribute `name` of every other object under the parent of `path` that
   * has one of the same signature (the *-writes-namesakes faults).
   */
  writeNamesakes(path: string, name: string, value: DbusValue): void {
    const signature = this.tree.get(path)?.attributes().get(name)?.property.signature;
    for (const sibling of this.tree.childrenOf(parentOf(path))) {
      const ref = sibling === path ? undefined : this.tree.get(sibling)?.attributes().get(name);
      if (ref && !ref.property.live && ref.property.signature === signature) this.setProperty(sibling, ref, name, value);
    }
  }

  removeObject(path: string): boolean {
    const obj = this.tree.get(path);
    const map = obj && this.faults.has('delete-lingers-in-root-enumerate') ? this.attributes(path) : undefined;
    if (!obj || !this.tree.remove(path)) return false;
    if (this.faults.has('delete-lingers-in-list')) this.lingering.add(path);
    if (this.faults.has('delete-lingers-in-root-enumerate')) this.lingeringMaps.set(path, map!);
    if (this.faults.has('extra-event-kind')) this.hub.publishRemoved(path, [...obj.interfaces.keys()]);
    return true;
  }
}

export function wireValue(p: Property): unknown {
  return toWire(p.signature, readProperty(p));
}
