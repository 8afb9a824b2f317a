/**
 * `s` without the trailing characters in `chars`. A loop, not `/\/+$/`: that regex retries from every
 * slash of a run, so a fuzzed path of thousands of slashes cost seconds (quadratic).
 */
export function trimEnd(s: string, chars: string): string {
  let end = s.length;
  while (end > 0 && chars.includes(s[end - 1]!)) end--;
  return end === s.length ? s : s.slice(0, end);
}

/** `s` without trailing slashes: `https://bmc/redfish//` → `https://bmc/redfish`. */
export const withoutTrailingSlashes = (s: string): string => trimEnd(s, '/');
