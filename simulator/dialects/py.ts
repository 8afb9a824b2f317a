/**
 * Python's view of values, for the phosphor-rest dialect: repr() and str() of parsed JSON (the
 * server formats request bodies into its error texts with '%s'), float repr, exception reprs and
 * a traceback in the shape bottle puts into a 500 body.
 */
import { JsonFloat, JsonObject, PyException, type TypedJson } from './typed-json.js';

const NON_PRINTABLE = /[\p{C}\p{Zl}\p{Zp}\p{Zs}]/u;

/** repr() of a str. */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch !== ' ' && (cp < 0x20 || cp === 0x7f || NON_PRINTABLE.test(ch))) {
      if (cp < 0x100) out += `\\x${cp.toString(16).padStart(2, '0')}`;
      else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
      else out += `\\U${cp.toString(16).padStart(8, '0')}`;
    } else out += ch;
  }
  return out + quote;
}

/**
 * The shortest round-trip digits of a double, laid out as Python's repr() (fixed notation for
 * exponents -4..15) or as nlohmann::json prints them (fixed up to 15 digits before the point).
 */
export function floatText(x: number, style: 'python' | 'nlohmann'): string {
  if (Number.isNaN(x)) return style === 'python' ? 'nan' : 'null';
  if (!Number.isFinite(x)) return style === 'python' ? (x > 0 ? 'inf' : '-inf') : 'null';
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  const exponential = Math.abs(x).toExponential();
  const at = exponential.indexOf('e');
  const mant = exponential.slice(0, at);
  const expText = exponential.slice(at + 1);
  const digits = mant.replace('.', '');
  const e = Number(expText);
  const maxFixed = style === 'python' ? 16 : 15;
  if (e >= -4 && e < maxFixed) {
    if (e >= 0) {
      const whole = digits.padEnd(e + 1, '0').slice(0, e + 1);
      const frac = digits.slice(e + 1) || '0';
      return `${sign}${whole}.${frac}`;
    }
    return `${sign}0.${'0'.repeat(-e - 1)}${digits}`;
  }
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const exp = String(Math.abs(e)).padStart(2, '0');
  return `${sign}${m}e${e < 0 ? '-' : '+'}${exp}`;
}

/** repr() of a parsed JSON value. */
export function pyRepr(v: TypedJson | undefined): string {
  if (v === undefined || v === null) return 'None';
  if (typeof v === 'string') return pyStrRepr(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (v instanceof JsonFloat) return floatText(v.value, 'python');
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  return `{${[...v.map].map(([k, item]) => `${pyStrRepr(k)}: ${pyRepr(item)}`).join(', ')}}`;
}

/** str() of a parsed JSON value ('%s' formatting). */
export function pyStr(v: TypedJson | undefined): string {
  return typeof v === 'string' ? v : pyRepr(v);
}

/** The Python type name of a parsed JSON value. */
export function pyTypeName(v: TypedJson | undefined): string {
  if (v === undefined || v === null) return 'NoneType';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof JsonFloat) return 'float';
  if (Array.isArray(v)) return 'list';
  return v instanceof JsonObject ? 'dict' : 'object';
}

/** repr() of an exception, as bottle puts it into data.exception. */
export function pyExceptionRepr(e: PyException): string {
  return `${e.type}(${pyStrRepr(e.text)})`;
}

const SITE = '/usr/lib/python3.10/site-packages';

/** Where a simulated exception was raised: the rest_dbus.py method and its source line. */
export interface PyFrame {
  method: string;
  line: number;
  code: string;
}

/**
 * A traceback as bottle formats it for a 500 (error.traceback.splitlines()): the request path
 * through bottle and the plugins down to the handler method that raised.
 */
export function pyTraceback(e: PyException, frame: PyFrame): string[] {
  return [
    'Traceback (most recent call last):',
    `  File "${SITE}/bottle.py", line 876, in _handle`,
    '    return route.call(**args)',
    `  File "${SITE}/bottle.py", line 1756, in wrapper`,
    '    rv = callback(*a, **ka)',
    `  File "${SITE}/obmc/wsgi/apps/rest_dbus.py", line 1327, in __call__`,
    '    return self.callback(*a, **kw)',
    `  File "${SITE}/obmc/wsgi/apps/rest_dbus.py", line 214, in __call__`,
    "    return getattr(self, 'do_' + request.method.lower())(**kw)",
    `  File "${SITE}/obmc/wsgi/apps/rest_dbus.py", line ${frame.line}, in ${frame.method}`,
    `    ${frame.code}`,
    `${e.type}: ${e.text}`,
  ];
}

/** Reason phrases of Python's http.client (bottle's HTTP_CODES). */
const PY_REASONS: Record<number, string> = {
  200: 'OK',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Request Entity Too Large',
  415: 'Unsupported Media Type',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function pyStatusLine(code: number, fallback: (c: number) => string): string {
  const reason = PY_REASONS[code];
  return reason ? `${code} ${reason}` : fallback(code);
}
