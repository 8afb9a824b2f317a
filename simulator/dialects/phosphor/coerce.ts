/**
 * How a JSON value becomes a D-Bus value on phosphor-rest-server: dbus-python first marshals it by
 * its Python type (bool 'b', int 'i', float 'd', str 's', list 'a..', dict 'a{sv}'); when the
 * service refuses that type (InvalidArgs) the server retries with rest_dbus.py convert_type(),
 * which applies bool(), int-type constructors, float() and str() to the value.
 *
 * Consequences reproduced here: a string or the number 2 written to a boolean is stored as true; a
 * number written to a string is stored as its text; None cannot be marshalled (500); an integer
 * that does not fit the Int32 dbus-python picks fails to marshal (500); an unconvertible value is
 * 403 "Failed to convert ..."; an enumeration string the service refuses is a D-Bus error: 500 on
 * the first attempt, 403 after a conversion.
 */
import { zip } from '../../tuples.js';
import { parseSignature, type DbusValue } from '../../types.js';
import { pyStr } from '../py.js';
import { JsonFloat, JsonObject, PyException, type TypedJson } from '../typed-json.js';

/** The Int32 dbus-python marshals a Python int as. */
const INT32: [bigint, bigint] = [-2147483648n, 2147483647n];

const INT_RANGES: Record<string, [bigint, bigint]> = {
  y: [0n, 255n],
  n: [-32768n, 32767n],
  q: [0n, 65535n],
  i: INT32,
  u: [0n, 4294967295n],
  x: [-(2n ** 63n), 2n ** 63n - 1n],
  t: [0n, 2n ** 64n - 1n],
};

/** The signature dbus-python gives a Python value in a variant or an introspection-less call. */
export function guessSignature(v: TypedJson | undefined): string {
  if (v === undefined || v === null) {
    throw new PyException('TypeError', "Don't know which D-Bus type to use to encode type NoneType");
  }
  if (typeof v === 'boolean') return 'b';
  if (typeof v === 'string') return 's';
  if (typeof v === 'bigint') {
    if (v < INT32[0] || v > INT32[1]) throw new PyException('OverflowError', 'Value out of range for Int32');
    return 'i';
  }
  if (v instanceof JsonFloat) return 'd';
  if (Array.isArray(v)) return v.length === 0 ? 'av' : `a${guessSignature(v[0])}`;
  return 'a{sv}';
}

/** Python truthiness of a JSON value. */
export function truthy(v: TypedJson | undefined): boolean {
  if (v === undefined || v === null || v === false) return false;
  if (v === true) return true;
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'bigint') return v !== 0n;
  if (v instanceof JsonFloat) return v.value !== 0;
  if (Array.isArray(v)) return v.length > 0;
  return v.map.size > 0;
}

const PY_INT = /^\s*[-+]?(?:\d(?:_?\d)*)\s*$/;
const PY_FLOAT = /^\s*[-+]?(?:(?:\d(?:_?\d)*)?(?:\.(?:\d(?:_?\d)*)?)?(?:[eE][-+]?\d(?:_?\d)*)?|inf|infinity|nan)\s*$/i;

class ConvertError extends Error {}

/** int(v) as a dbus integer type constructor sees it; ConvertError when Python would raise. */
function toInt(v: TypedJson): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (v instanceof JsonFloat) {
    if (!Number.isFinite(v.value)) throw new ConvertError();
    return BigInt(Math.trunc(v.value));
  }
  if (typeof v === 'string' && PY_INT.test(v)) return BigInt(v.trim().replace(/_/g, ''));
  throw new ConvertError();
}

function toFloat(v: TypedJson): number {
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof JsonFloat) return v.value;
  if (typeof v === 'string' && PY_FLOAT.test(v) && /\d|inf|nan/i.test(v)) {
    const t = v.trim().replace(/_/g, '').toLowerCase();
    if (/^[-+]?inf(inity)?$/.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
    if (/^[-+]?nan$/.test(t)) return NaN;
    return Number(t);
  }
  throw new ConvertError();
}

/** rest_dbus.py convert_type() for basic signatures; undefined for the others (it returns None). */
export function convertType(sig: string, v: TypedJson): DbusValue | undefined {
  if (sig === 'b') return truthy(v);
  if (sig === 's') return pyStr(v);
  if (sig === 'd') return toFloat(v);
  const range = INT_RANGES[sig];
  if (range) {
    const n = toInt(v);
    if (n < range[0] || n > range[1]) throw new ConvertError();
    return sig === 'x' || sig === 't' ? n : Number(n);
  }
  return undefined;
}

/** A value that needs no conversion: the guessed type is the property's own. */
function asIs(sig: string, v: TypedJson): DbusValue {
  if (typeof v === 'bigint') return sig === 'x' || sig === 't' ? v : Number(v);
  if (v instanceof JsonFloat) return v.value;
  if (Array.isArray(v)) {
    const t = parseSignature(sig);
    const itemSig = t.kind === 'array' ? sig.slice(1) : 'v';
    return v.map((item) => asIs(itemSig, item));
  }
  if (v instanceof JsonObject) {
    const out: Record<string, DbusValue> = {};
    for (const [k, item] of v.map) if (item !== null) out[k] = asIs('v', item);
    return out;
  }
  return v as DbusValue;
}

export type WriteOutcome = { ok: DbusValue; converted: boolean } | { status: 403; description: string } | { crash: PyException };

const ENUM_ERROR = 'xyz.openbmc_project.sdbusplus.Error.InvalidEnumString: An enumeration string was unable to be converted.';

/**
 * PropertyHandler.do_put for one property. `readOnly`: the service answers PropertyReadOnly
 * before looking at the value's type.
 */
export function coerceWrite(
  name: string,
  sig: string,
  enumValues: readonly string[] | undefined,
  value: TypedJson | undefined,
  readOnly: boolean,
): WriteOutcome {
  let guessed: string;
  try {
    guessed = guessSignature(value);
  } catch (e) {
    return { crash: e as PyException };
  }
  if (readOnly) {
    return { status: 403, description: `org.freedesktop.DBus.Error.PropertyReadOnly: Property '${name}' is not writable.` };
  }
  const v = value as TypedJson;
  if (guessed === sig) {
    const stored = asIs(sig, v);
    if (enumValues && !enumValues.includes(stored as string)) {
      return { crash: new PyException('DBusException', ENUM_ERROR) };
    }
    return { ok: stored, converted: false };
  }
  let converted: DbusValue | undefined;
  try {
    converted = convertType(sig, v);
  } catch {
    return { status: 403, description: `Failed to convert ${pyStr(v)} to type ${sig}` };
  }
  if (converted === undefined) {
    return { status: 403, description: "Don't know which D-Bus type to use to encode type NoneType" };
  }
  if (enumValues && !enumValues.includes(converted as string)) {
    return { status: 403, description: ENUM_ERROR };
  }
  return { ok: converted, converted: true };
}

export type ArgsOutcome = { args: DbusValue[]; converted: boolean } | { status: 400; description: string } | { crash: PyException };

/** MethodHandler.do_post: the first call by guessed types, the retry with convert_type(). */
export function coerceArgs(iface: string, method: string, signatures: readonly string[], given: TypedJson[]): ArgsOutcome {
  let guessed: string[];
  try {
    guessed = given.map(guessSignature);
  } catch (e) {
    return { crash: e as PyException };
  }
  if (guessed.join('') === signatures.join('')) {
    return { args: zip(signatures, given).map(([sig, v]) => asIs(sig, v)), converted: false };
  }
  const invalidArgs =
    `org.freedesktop.DBus.Error.InvalidArgs: Invalid arguments '${guessed.join('')}' to call ${iface}.${method}(), ` +
    `expecting '${signatures.join('')}'.`;
  if (signatures.length === 0) return { status: 400, description: `Failed to get method signature: ${invalidArgs}` };
  if (signatures.length !== given.length) return { status: 400, description: 'Invalid number of args' };
  try {
    const args = zip(signatures, given).map(([sig, v]) => {
      const c = convertType(sig, v);
      if (c === undefined) throw new ConvertError();
      return c;
    });
    return { args, converted: true };
  } catch {
    return { status: 400, description: 'Bad Request/Invalid Args given' };
  }
}

/** The JSON value as plain JavaScript (for the wrong-type-stored fault). */
export function plainValue(v: TypedJson | undefined): DbusValue {
  if (v === undefined || v === null) return '';
  if (v instanceof JsonFloat) return v.value;
  if (Array.isArray(v)) return v.map(plainValue);
  if (v instanceof JsonObject) {
    const out: Record<string, DbusValue> = {};
    for (const [k, item] of v.map) out[k] = plainValue(item);
    return out;
  }
  return v;
}
