/**
 * Shell words for printed reproductions: exact bytes, but short. Long repeats become
 * "$(printf 'unit%.0s' {1..N})", non-ASCII bytes $'\xNN', and markers of login templates become
 * $PASSWORD expansions, all glued into one argument.
 */

const MARKER = /(__BMCPW\d+__)/;
/** A unit of 1–16 printable characters repeated at least 8 times in a row. */
const RUN = /([\x20-\x7e]{1,16}?)\1{7,}/;

function doubleQuoted(text: string): string {
  return text.replace(/(["\\$`])/g, '\\$1');
}

function printfUnit(unit: string): string {
  return unit.replace(/%/g, '%%').replace(/\\/g, '\\\\').replace(/'/g, `'\\''`);
}

/**
 * One shell word that expands to `text` (bash). `expansions[i]` replaces the marker __BMCPWi__
 * (used inside double quotes, so `${PASSWORD%?}` and the like expand).
 */
export function shellWord(text: string, expansions: readonly string[] = []): string {
  const words: string[] = [];
  let dq: string | undefined;
  const addDq = (s: string) => {
    dq = (dq ?? '') + s;
  };
  const flush = () => {
    if (dq !== undefined) words.push(`"${dq}"`);
    dq = undefined;
  };
  const printable = (s: string) => {
    let rest = s;
    for (let m = RUN.exec(rest); m; m = RUN.exec(rest)) {
      addDq(doubleQuoted(rest.slice(0, m.index)));
      const unit = m[1]!;
      const count = m[0].length / unit.length;
      addDq(`$(printf '${printfUnit(unit)}%.0s' {1..${count}})`);
      rest = rest.slice(m.index + m[0].length);
    }
    addDq(doubleQuoted(rest));
  };
  for (const part of text.split(MARKER)) {
    if (part === '') continue;
    const m = /^__BMCPW(\d+)__$/.exec(part);
    if (m) {
      addDq(expansions[Number(m[1])] ?? '');
      continue;
    }
    for (const run of part.match(/[\x20-\x7e]+|[^\x20-\x7e]+/g) ?? []) {
      if (/^[\x20-\x7e]/.test(run)) {
        printable(run);
      } else {
        flush();
        // Adjacent quoted words make one shell argument: "a"$'\x01'"b".
        words.push(`$'${[...Buffer.from(run, 'utf8')].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('')}'`);
      }
    }
  }
  flush();
  return words.join('') || '""';
}
