/**
 * How a dialect renders stored D-Bus values in responses and events. The spec dialect shows
 * booleans as 0/1 everywhere (`toWire`). The field servers differ per endpoint:
 *
 * - phosphor-rest: `GET {path}/attr/{name}` answers a bare D-Bus boolean, which json.dumps prints as
 *   0/1; `GET {path}` and enumerate walk dicts and lists converting dbus.Boolean to bool
 *   (rest_dbus.py JsonApiResponsePlugin.dbus_boolean_to_bool); events dump the raw signal, so 1/0.
 * - bmcweb: convertDBusToJSON reads `b` into a C++ bool, so true/false everywhere.
 *
 * Both print D-Bus doubles with a fraction (`127.0`): `JsonFloat` carries that through to the
 * dialect serialiser (pretty-json.ts).
 */
import { readProperty, type Property } from '../model.js';
import { zip } from '../tuples.js';
import { parseSignature, toWire, type DbusValue, type TypeNode } from '../types.js';

/** A number that was a double (D-Bus `d`, or a JSON literal with a fraction or exponent). */
export class JsonFloat {
  constructor(readonly value: number) {}
}

export interface WireStyle {
  /** GET {path} and enumerate. */
  object(p: Property): unknown;
  /** GET {path}/attr/{name}. */
  attr(p: Property): unknown;
  /** PropertiesChanged and InterfacesAdded payloads. */
  event(p: Property): unknown;
}

const specValue = (p: Property): unknown => toWire(p.signature, readProperty(p));

export const SPEC_WIRE: WireStyle = { object: specValue, attr: specValue, event: specValue };

type Booleans = 'number' | 'json';

function render(t: TypeNode, v: DbusValue, bools: Booleans): unknown {
  switch (t.kind) {
    case 'basic':
      if (t.code === 'b') return bools === 'number' ? (v ? 1 : 0) : Boolean(v);
      if (t.code === 'd') return new JsonFloat(v as number);
      return v;
    case 'variant':
      return renderVariant(v, bools);
    case 'array':
      return (v as DbusValue[]).map((item) => render(t.item, item, bools));
    case 'dict': {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v as Record<string, DbusValue>)) out[k] = render(t.value, item, bools);
      return out;
    }
    case 'struct':
      return zip(t.fields, v as DbusValue[]).map(([f, item]) => render(f, item, bools));
  }
}

/** Variant contents carry no signature here: booleans follow the style, numbers stay as stored. */
function renderVariant(v: DbusValue, bools: Booleans): unknown {
  if (typeof v === 'boolean') return bools === 'number' ? (v ? 1 : 0) : v;
  if (typeof v === 'number' && !Number.isInteger(v)) return new JsonFloat(v);
  if (Array.isArray(v)) return v.map((item) => renderVariant(item, bools));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(v)) out[k] = renderVariant(item, bools);
    return out;
  }
  return v;
}

const rendered =
  (bools: Booleans) =>
  (p: Property): unknown =>
    render(parseSignature(p.signature), readProperty(p), bools);

export const PHOSPHOR_WIRE: WireStyle = {
  object: rendered('json'),
  // Only a bare boolean escapes dbus_boolean_to_bool, which walks dicts, lists and tuples.
  attr: (p) => (p.signature === 'b' ? (readProperty(p) ? 1 : 0) : rendered('json')(p)),
  event: rendered('number'),
};

export const BMCWEB_WIRE: WireStyle = { object: rendered('json'), attr: rendered('json'), event: rendered('json') };
