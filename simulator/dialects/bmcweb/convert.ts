/**
 * bmcweb's JSON to D-Bus conversion (include/openbmc_dbus_rest.hpp convertJsonToDbus) for the
 * signature of a property or method argument:
 *
 * - 's' wants a string; 'b' takes true/false, the integers 1 and 0 (others: out of range) or a
 *   string (true when it starts with 't' or 'T');
 * - 'y', 'q', 'u', 't' want a non-negative integer (nlohmann's unsigned), 'n', 'i', 'x' any
 *   integer, each range-checked but 'x' (an unsigned above 2^63-1 wraps); 'd' takes any number;
 * - 'a..' converts each element (an array's items, an object's values, a single value as itself);
 * - everything else ('o', 'g', variants, structs, dicts) is refused.
 */
import { parseSignature, type DbusValue, type TypeNode } from '../../types.js';
import { JsonFloat, JsonObject, type TypedJson } from '../typed-json.js';

export type Converted = { value: DbusValue } | { error: 'type' | 'range' };

/** The unsigned codes and their maxima (the minimum is 0). */
const UNSIGNED_MAX: Record<string, bigint> = {
  y: 255n,
  q: 65535n,
  u: 4294967295n,
  t: 2n ** 64n - 1n,
};
/** The range-checked signed codes ('x' wraps instead). */
const SIGNED_RANGES: Record<string, [bigint, bigint]> = {
  n: [-32768n, 32767n],
  i: [-2147483648n, 2147483647n],
};

class Refused extends Error {
  constructor(readonly kind: 'type' | 'range') {
    super(kind);
  }
}

export function convertJsonToDbus(sig: string, j: TypedJson): Converted {
  try {
    return { value: convert(parseSignature(sig), j) };
  } catch (e) {
    if (e instanceof Refused) return { error: e.kind };
    return { error: 'type' };
  }
}

function convert(t: TypeNode, j: TypedJson): DbusValue {
  if (t.kind === 'array') {
    const items = Array.isArray(j) ? j : j instanceof JsonObject ? [...j.map.values()] : j === null ? [] : [j];
    return items.map((item) => convert(t.item, item));
  }
  if (t.kind !== 'basic') throw new Refused('type');
  const code = t.code;
  if (code === 's') {
    if (typeof j !== 'string') throw new Refused('type');
    return j;
  }
  if (code === 'b') {
    if (typeof j === 'bigint') {
      if (j === 1n) return true;
      if (j === 0n) return false;
      throw new Refused('range');
    }
    if (typeof j === 'boolean') return j;
    if (typeof j === 'string') return /^t/i.test(j);
    throw new Refused('type');
  }
  if (code === 'd') {
    if (j instanceof JsonFloat) return j.value;
    if (typeof j === 'bigint') return Number(j);
    throw new Refused('type');
  }
  if (typeof j !== 'bigint') throw new Refused('type');
  const max = UNSIGNED_MAX[code];
  if (max !== undefined) {
    if (j < 0n) throw new Refused('type');
    if (j > max) throw new Refused('range');
    return code === 't' ? j : Number(j);
  }
  // Signed: an unsigned above INT64_MAX is static_cast to a negative int64.
  const signed = BigInt.asIntN(64, j);
  if (code === 'x') return signed;
  const range = SIGNED_RANGES[code];
  if (!range) throw new Refused('type');
  if (signed < range[0] || signed > range[1]) throw new Refused('range');
  return Number(signed);
}
