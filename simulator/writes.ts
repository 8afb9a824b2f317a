/**
 * Attribute writes (endpoint 8) and whole-object writes (endpoint 9). Everything is validated
 * before anything is stored, so a refused write changes nothing.
 */
import type { Bus } from './bus.js';
import { HttpError } from './envelope.js';
import type { HostStateMachine } from './host-state.js';
import { readProperty, type AttributeRef } from './model.js';
import { coerce, sameValue, TypeMismatch, type DbusValue } from './types.js';

/** A well-typed value outside the attribute's enumeration. */
class OutOfDomain extends HttpError {}

export class Writer {
  constructor(
    private readonly bus: Bus,
    private readonly host: HostStateMachine,
  ) {}

  /** Writable, as the (possibly faulty) simulator sees it. */
  isWritable(name: string, ref: AttributeRef): boolean {
    if (name === 'RequestedHostTransition' && this.bus.faults.has('requested-transition-readonly')) {
      return false;
    }
    return ref.property.writable;
  }

  /** Checks type and enumeration; returns the canonical value. */
  private convert(name: string, ref: AttributeRef, raw: unknown, strictBooleans = false): DbusValue {
    const { signature, enumValues } = ref.property;
    if (strictBooleans && signature === 'b' && typeof raw !== 'boolean') {
      throw new HttpError(400, `Attribute ${name} needs true or false`);
    }
    let value: DbusValue;
    try {
      value = coerce(signature, raw);
    } catch (e) {
      if (e instanceof TypeMismatch) {
        throw new HttpError(400, `Wrong type for attribute ${name} (D-Bus signature ${signature}): ${e.message}`);
      }
      throw e;
    }
    if (enumValues && !this.inDomain(enumValues, value as string)) {
      throw new OutOfDomain(400, `Value not allowed for attribute ${name}; allowed: ${enumValues.join(', ')}`);
    }
    return value;
  }

  /** A member of the enumeration; the enum-accepts-* faults check only its family or only its member name. */
  private inDomain(enumValues: readonly string[], value: string): boolean {
    if (enumValues.includes(value)) return true;
    const family = (v: string) => v.slice(0, v.lastIndexOf('.') + 1);
    const member = (v: string) => v.slice(v.lastIndexOf('.') + 1);
    if (this.bus.faults.has('enum-accepts-unknown-member') && enumValues.some((v) => family(v) === family(value))) return true;
    return this.bus.faults.has('enum-accepts-other-enum') && enumValues.some((v) => member(v) === member(value));
  }

  /**
   * Stores a checked value: signals it (unless `signal` is false) and, for RequestedHostTransition,
   * moves the host. Its signals carry the cause in progress, an attribute PUT when none was named
   * (the field dialects store their attribute PUTs here directly).
   */
  store(path: string, ref: AttributeRef, name: string, given: DbusValue, signal = true): void {
    this.bus.withCause(this.bus.cause ?? 'put-attr', () => this.storeNow(path, ref, name, given, signal));
  }

  private storeNow(path: string, ref: AttributeRef, name: string, given: DbusValue, signal: boolean): void {
    // string-cut-at-63: a 64-byte buffer with its terminating NUL holds 63 characters of a free string.
    const cut = this.bus.faults.has('string-cut-at-63') && typeof given === 'string' && !ref.property.enumValues;
    const value = cut ? given.slice(0, 63) : given;
    // restore-skipped: a write back to the start value is answered but not done.
    const initial = this.bus.faults.has('restore-skipped') ? this.bus.initialValue(path, name) : undefined;
    if (initial !== undefined && sameValue(initial, value) && !sameValue(ref.property.value, value)) return;
    const isRequest = name === 'RequestedHostTransition' && path === this.host.hostPath;
    const early = isRequest && this.bus.faults.has('host-current-before-requested');
    if (early) this.host.requested(value as string, true);
    this.bus.setProperty(path, ref, name, value, signal);
    if (isRequest && !early) this.host.requested(value as string);
  }

  /** PUT {path}/attr/{name} with {"data": value}; its signals carry the cause `put-attr`. */
  writeAttribute(path: string, name: string, body: unknown): void {
    this.bus.withCause('put-attr', () => this.writeAttributeNow(path, name, body));
  }

  private writeAttributeNow(path: string, name: string, body: unknown): void {
    const obj = this.bus.tree.get(path);
    if (!this.bus.tree.hasNode(path)) throw new HttpError(404, `Path ${path} not found`);
    const ref = obj && this.bus.findAttribute(obj, name);
    if (!ref) throw new HttpError(404, `Attribute ${name} not found on ${path}`);
    // event-on-refused-write: the refusal is answered, and the refused value is signalled all the same.
    const refused = (e: unknown, raw: unknown): unknown => {
      if (e instanceof HttpError && this.bus.faults.has('event-on-refused-write')) this.bus.signalUnchanged(path, ref, name, raw);
      return e;
    };
    if (!this.isWritable(name, ref)) {
      throw refused(new HttpError(403, `Attribute ${name} is read-only`), dataMemberOrUndefined(body));
    }
    const raw = dataMember(body);
    let value: DbusValue;
    try {
      value = this.convert(name, ref, raw);
    } catch (e) {
      if (e instanceof HttpError && this.bus.faults.has('wrong-type-500')) throw new Error(`conversion of ${name} failed`);
      // wrong-type-stored skips the type check; a value outside an enumeration is the enum-accepts-* faults'.
      if (!(e instanceof HttpError) || e instanceof OutOfDomain || !this.bus.faults.has('wrong-type-stored')) throw refused(e, raw);
      value = raw as DbusValue;
    }
    if (this.bus.faults.has('put-attr-ignored')) return;
    // event-on-same-value: a write of the value held changes nothing, yet is signalled.
    if (this.bus.faults.has('event-on-same-value') && sameValue(ref.property.value, value)) this.bus.signalUnchanged(path, ref, name);
    // transition-write-ignored: the host's requested transition alone is answered and not set.
    if (name === 'RequestedHostTransition' && this.bus.faults.has('transition-write-ignored')) return;
    this.store(path, ref, name, value);
    const attributes = [...obj.attributes()].map(([n, r]) => ({ name: n, value: r.property.value, writable: r.property.writable }));
    for (const back of this.bus.faults.load.afterWrite(path, name, attributes)) {
      const r = this.bus.findAttribute(obj, back.name);
      if (r) this.bus.setProperty(path, r, back.name, back.value as DbusValue);
    }
    if (this.bus.faults.has('put-attr-writes-namesakes')) this.bus.writeNamesakes(path, name, value);
    if (this.bus.faults.has('put-attr-writes-neighbour-attr') && !ref.property.enumValues) {
      const neighbour = [...obj.attributes()].find(
        ([n, r]) => n !== name && r.property.signature === ref.property.signature && !r.property.live && !r.property.enumValues,
      );
      if (neighbour) this.bus.setProperty(path, neighbour[1], neighbour[0], value);
    }
  }

  /** post-creates-attribute: POST {path}/attr/{name} adds an attribute the object lacks. */
  createAttribute(path: string, name: string, body: unknown): boolean {
    const obj = this.bus.tree.get(path);
    if (!obj || this.bus.findAttribute(obj, name)) return false;
    const data = dataMember(body);
    const value = typeof data === 'string' ? data : JSON.stringify(data);
    obj.addInterface(`xyz.${this.bus.namespace}.Created.${name}`, { [name]: { signature: 's', value, writable: true } });
    return true;
  }

  /**
   * PUT {path} with the complete attribute map (rule 3): exactly the object's attribute names;
   * read-only attributes must keep their current values; writable ones are all updated or none.
   * `partial` serves PATCH, which only the patch-accepted fault routes here. Its signals carry the
   * cause `put-object`.
   */
  writeObject(path: string, body: unknown, partial = false): void {
    this.bus.withCause('put-object', () => this.writeObjectNow(path, body, partial));
  }

  private writeObjectNow(path: string, body: unknown, partial: boolean): void {
    if (!this.bus.tree.hasNode(path)) throw new HttpError(404, `Path ${path} not found`);
    const data = dataMember(body);
    if (data === null || typeof data !== 'object' || Array.isArray(data)) {
      throw new HttpError(400, 'PUT on an object needs {"data": {<complete attribute map>}}');
    }
    const given = data as Record<string, unknown>;
    const attrs = this.bus.tree.get(path)?.attributes() ?? new Map<string, AttributeRef>();
    const extra = Object.keys(given).filter((k) => !attrs.has(k));
    if (extra.length > 0) throw new HttpError(400, `Unknown attributes: ${extra.join(', ')}`);
    if (!partial && !this.bus.faults.has('put-partial-accepted')) {
      const missing = [...attrs.keys()].filter((k) => !Object.hasOwn(given, k));
      if (missing.length > 0) {
        throw new HttpError(400, `PUT needs the complete object; missing attributes: ${missing.join(', ')}`);
      }
    }
    const strictBooleans = this.bus.faults.has('put-rejects-get-body');
    const changes: [string, AttributeRef, DbusValue][] = [];
    for (const [name, raw] of Object.entries(given)) {
      const ref = attrs.get(name)!;
      const value = this.convert(name, ref, raw, strictBooleans);
      if (this.isWritable(name, ref)) changes.push([name, ref, value]);
      else if (!ref.property.live && !sameValue(readProperty(ref.property), value)) {
        throw new HttpError(403, `Attribute ${name} is read-only and cannot change`);
      }
    }
    if (this.bus.faults.has('put-object-ignored')) return;
    const signal = !this.bus.faults.has('object-put-silent');
    const applied = this.bus.faults.has('put-object-applies-first-change')
      ? changes.filter(([, ref, value]) => !sameValue(readProperty(ref.property), value)).slice(0, 1)
      : changes;
    for (const [name, ref, value] of applied) this.store(path, ref, name, value, signal);
    if (this.bus.faults.has('put-object-writes-namesakes')) {
      for (const [name, , value] of changes) this.bus.writeNamesakes(path, name, value);
    }
  }
}

/** The data member of a body, undefined where it has none (the refused value a refusal signals). */
function dataMemberOrUndefined(body: unknown): unknown {
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as { data?: unknown }).data : undefined;
}

function dataMember(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body) || !Object.hasOwn(body, 'data')) {
    throw new HttpError(400, 'Request body must be a JSON object {"data": ...}');
  }
  return (body as { data: unknown }).data;
}
