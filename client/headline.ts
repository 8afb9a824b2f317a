/**
 * A reason's headline: its first line, at most `max` characters, cut only between words and
 * marked with an ellipsis when cut. The full text is always kept beside it.
 */
export const HEADLINE_MAX = 160;

export function headline(text: string, max = HEADLINE_MAX): string {
  const line = (text.split('\n').find((l) => l.trim() !== '') ?? '').trim();
  if (line.length <= max) return line;
  const room = line.slice(0, max - 1);
  const boundary = room.search(/\s\S*$/);
  // One word longer than the room (a long path or token) is cut where the room ends.
  const cut = (boundary > max / 2 ? room.slice(0, boundary) : room).replace(/[\s,;:(-]+$/, '');
  return `${cut}…`;
}

/** A message as one short line: runs of whitespace (servers pretty-print JSON) made one space, cut at `max` with an ellipsis. */
export function brief(text: string, max = HEADLINE_MAX): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
