/**
 * A timeline of a (small, shrunk) register history as an SVG string for load.html: one lane per
 * client, each operation a bar from its invocation to its response labelled W(v) or R→v, with the
 * checker's verdict: placed operations numbered in the order found, those it could not place in
 * red with a text mark (not colour alone), and a legend. Every text is escaped. No ids and no
 * script, so several timelines can sit in one page.
 */
import escapeHtml from 'escape-html';
import { stringifyJson } from '../../client/json.js';
import type { RegisterHistory, RegisterOperation } from './history.js';
import type { CheckResult } from './linearizability.js';

export interface TimelineOptions {
  /** Heading inside the picture (default "Register history"). */
  title?: string;
  /** Width in px (default 880). */
  width?: number;
  /** Longest value shown in a label before it is cut with "…" (default 24 characters; the tooltip has it whole). */
  maxValueChars?: number;
}

const LANE = 52;
const LEFT = 120;
const RIGHT = 24;
const TOP = 64;
const BAR = 16;

const COLOURS = {
  placed: { fill: '#9ecae1', stroke: '#3182bd' },
  unreached: { fill: '#eef4fa', stroke: '#9ecae1' },
  unplaced: { fill: '#f4a3a3', stroke: '#b2182b' },
  pending: { fill: '#ffffff', stroke: '#636363' },
  failed: { fill: '#e0e0e0', stroke: '#969696' },
};

type Mark = keyof typeof COLOURS;

export function timelineSvg(history: RegisterHistory, result?: CheckResult, options: TimelineOptions = {}): string {
  const width = options.width ?? 880;
  const maxChars = options.maxValueChars ?? 24;
  const ops = history.operations;
  const clients = [...new Set(ops.map((o) => o.client))].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const lane = new Map(clients.map((c, i) => [c, i]));

  const t0 = ops.length > 0 ? Math.min(...ops.map((o) => o.invokedAt)) : 0;
  const ends = ops.flatMap((o) => [o.invokedAt, ...(Number.isFinite(o.returnedAt) ? [o.returnedAt] : [])]);
  const span = Math.max(...ends, t0) - t0 || 1;
  // A pending write's bar runs on past the last response: room for that on the right.
  const hasPending = ops.some((o) => !o.ok && o.kind === 'write');
  const plotWidth = width - LEFT - RIGHT;
  const x = (t: number): number => LEFT + ((t - t0) / span) * plotWidth * (hasPending ? 0.9 : 1);

  const order = new Map<number, number>();
  const placedList = result?.linearizable === true ? result.order : result?.linearizable === false ? result.longest : [];
  placedList.forEach((l, k) => order.set(l.index, k + 1));
  const unplaced = new Set(result?.linearizable === false ? result.unplaced : []);
  const blocked = result?.linearizable === false ? result.blockedAt : -1;
  const markOf = (op: RegisterOperation, i: number): Mark =>
    unplaced.has(i)
      ? 'unplaced'
      : !op.ok
        ? op.kind === 'write'
          ? 'pending'
          : 'failed'
        : order.has(i) || result?.linearizable !== false
          ? 'placed'
          : 'unreached';
  const marks = new Set(ops.map(markOf));

  // Legend: a swatch and words for each kind of bar in the picture, in rows that fit the width.
  const legend = (
    [
      ['placed', result === undefined ? 'operation' : '#n placed in the order found'],
      ['unplaced', '✗ could not be placed'],
      ['unreached', 'after the failure, not reached'],
      ['pending', 'no answer: took effect later, or never'],
      ['failed', 'failed read, ignored'],
    ] as [Mark, string][]
  ).filter(([mark]) => marks.has(mark));
  const axisY = TOP + clients.length * LANE + 8;
  const legendY = axisY + 44;
  const placedLegend: { mark: Mark; words: string; x: number; y: number }[] = [];
  let lx = 12;
  let ly = legendY;
  for (const [mark, words] of legend) {
    const w = 34 + words.length * 6.6;
    if (lx > 12 && lx + w > width - 12) {
      lx = 12;
      ly += 20;
    }
    placedLegend.push({ mark, words, x: lx, y: ly });
    lx += w;
  }
  const height = ly + 28;

  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" font-family="system-ui, sans-serif" font-size="12">`,
    `<title>${esc(options.title ?? 'Register history')}</title>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="12" y="22" font-size="15" font-weight="bold">${esc(options.title ?? 'Register history')}</text>`,
    `<text x="12" y="42" fill="#333333">${esc(summary(history, result))}</text>`,
  );

  // Lanes.
  clients.forEach((c, i) => {
    const y = TOP + i * LANE;
    parts.push(
      `<g class="lane" data-client="${esc(c)}">`,
      `<rect x="${LEFT}" y="${y}" width="${plotWidth}" height="${LANE}" fill="${i % 2 ? '#fafafa' : '#f2f2f2'}"/>`,
      `<text x="${LEFT - 8}" y="${y + LANE / 2 + 4}" text-anchor="end">${esc(cut(c, 16))}</text>`,
      `</g>`,
    );
  });

  // Operations. Labels of one lane that would run into each other take a second row, higher up.
  const labelEnds = new Map<number, number[]>();
  ops.forEach((op, i) => {
    const mark = markOf(op, i);
    const y = TOP + lane.get(op.client)! * LANE + LANE - BAR - 8;
    const x1 = x(op.invokedAt);
    const answered = op.ok && Number.isFinite(op.returnedAt);
    const x2 = Math.max(x(answered || Number.isFinite(op.returnedAt) ? op.returnedAt : op.invokedAt), x1 + 3);
    const { fill, stroke } = COLOURS[mark];
    const dash = mark === 'pending' || mark === 'failed' ? ' stroke-dasharray="4 3"' : '';
    const label = `${op.kind === 'write' ? 'W' : `R${via(op)}→`}${op.kind === 'write' ? `(${cut(show(op.value), maxChars)})` : cut(show(op.value), maxChars)}${mark === 'pending' ? '?' : ''}`;
    const note =
      i === blocked
        ? '✗ cannot be placed'
        : mark === 'unplaced'
          ? '✗ not placed'
          : mark === 'pending'
            ? 'no answer'
            : mark === 'failed'
              ? 'failed, ignored'
              : '';
    const number = order.get(i);
    parts.push(`<g class="op ${mark}" data-index="${i}">`, `<title>${esc(describe(op, i, mark, number))}</title>`);
    parts.push(
      `<rect x="${r(x1)}" y="${y}" width="${r(x2 - x1)}" height="${BAR}" rx="3" fill="${fill}" stroke="${stroke}" stroke-width="${mark === 'unplaced' ? 2 : 1}"${dash}/>`,
    );
    if (mark === 'pending') {
      // It may have taken effect any time after it was sent: the bar fades out to the right.
      parts.push(
        `<line x1="${r(x2)}" y1="${y + BAR / 2}" x2="${width - RIGHT}" y2="${y + BAR / 2}" stroke="${stroke}" stroke-dasharray="2 4"/>`,
      );
    }
    const text = [number === undefined ? '' : `#${number} `, label, note ? ` ${note}` : ''].join('');
    const weight = mark === 'unplaced' ? ' font-weight="bold"' : '';
    // A label that would run past the right edge ends there instead.
    const overflows = x1 + text.length * 7 > width - RIGHT;
    const at = overflows ? `x="${width - RIGHT}" text-anchor="end"` : `x="${r(x1)}"`;
    const start = overflows ? width - RIGHT - text.length * 7 : x1;
    const ends = labelEnds.get(lane.get(op.client)!) ?? [-Infinity, -Infinity];
    const row = ends[0]! <= start ? 0 : ends[1]! <= start ? 1 : ends[0]! <= ends[1]! ? 0 : 1;
    ends[row] = start + text.length * 7;
    labelEnds.set(lane.get(op.client)!, ends);
    parts.push(
      `<text ${at} y="${y - 4 - row * 14}" fill="${mark === 'unplaced' ? '#b2182b' : '#111111'}"${weight}>${esc(text)}</text>`,
      `</g>`,
    );
  });

  // Axis: ms since the first invocation.
  parts.push(`<g class="axis">`, `<line x1="${LEFT}" y1="${axisY}" x2="${LEFT + plotWidth}" y2="${axisY}" stroke="#333333"/>`);
  const step = niceStep(span / 8);
  for (let t = 0; t <= span + 1e-9; t += step) {
    const tx = x(t0 + t);
    parts.push(
      `<line x1="${r(tx)}" y1="${axisY}" x2="${r(tx)}" y2="${axisY + 5}" stroke="#333333"/>`,
      `<text x="${r(tx)}" y="${axisY + 18}" text-anchor="middle">${esc(formatMs(t, step))}</text>`,
    );
  }
  parts.push(
    `<text x="${LEFT + plotWidth}" y="${axisY + 34}" text-anchor="end" fill="#333333">ms since the first invocation</text>`,
    `</g>`,
  );

  parts.push(`<g class="legend">`);
  for (const { mark, words, x: sx, y: sy } of placedLegend) {
    const { fill, stroke } = COLOURS[mark];
    const dash = mark === 'pending' || mark === 'failed' ? ' stroke-dasharray="4 3"' : '';
    parts.push(
      `<rect x="${r(sx)}" y="${sy}" width="22" height="12" rx="2" fill="${fill}" stroke="${stroke}" stroke-width="${mark === 'unplaced' ? 2 : 1}"${dash}/>`,
      `<text x="${r(sx + 28)}" y="${sy + 10}">${esc(words)}</text>`,
    );
  }
  parts.push(`</g>`, `</svg>`);
  return parts.join('\n');
}

/** A read's endpoint in its label, when it is not the attribute's own: "R[enumerate]→v". */
function via(op: RegisterOperation): string {
  return op.endpoint && op.endpoint !== 'attr' ? `[${op.endpoint}]` : '';
}

function summary(history: RegisterHistory, result: CheckResult | undefined): string {
  const initial = `initial value ${cut(show(history.initial), 24)}`;
  const count = operationCount(history.operations.length);
  if (result === undefined) return `${count}, ${initial}`;
  if (result.linearizable === 'unknown') return `${count}, ${initial}: not decided (${result.reason})`;
  if (result.linearizable) return `${count}, ${initial}: linearizable, in the order numbered #1…#${result.order.length}`;
  const op = history.operations[result.blockedAt];
  const what = op ? `${op.kind === 'write' ? 'W' : 'R→'}${cut(show(op.value), 24)} of ${cut(op.client, 16)}` : 'an operation';
  const after = result.longest.length > 0 ? `after #1…#${result.longest.length}, ` : '';
  return `${count}, ${initial}: NOT linearizable: ${after}no order places ${what} before its answer`;
}

function describe(op: RegisterOperation, index: number, mark: Mark, number: number | undefined): string {
  const what =
    op.kind === 'write' ? `write of ${show(op.value)}` : `read${op.endpoint ? ` by ${op.endpoint}` : ''} returning ${show(op.value)}`;
  const when = `sent at ${op.invokedAt.toFixed(3)} ms, ${op.ok ? `answered at ${op.returnedAt.toFixed(3)} ms` : 'no answer or an error'}`;
  const verdict = {
    placed: number === undefined ? '' : `; #${number} in the order found`,
    unreached: '; after the failure, not reached by the search',
    unplaced: '; could not be placed',
    pending: '; outcome unknown',
    failed: '; ignored',
  }[mark];
  return `operation ${index} by ${op.client}: ${what}, ${when}${verdict}`;
}

function show(value: unknown): string {
  try {
    return value === undefined ? 'undefined' : stringifyJson(value);
  } catch {
    return String(value);
  }
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Escaped for XML text and attributes; characters XML 1.0 cannot carry (controls, lone surrogates) become U+FFFD. */
function esc(text: string): string {
  return escapeHtml(
    text.replace(
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
      '\ufffd',
    ),
  );
}

function r(n: number): string {
  return n.toFixed(1);
}

/** 1, 2 or 5 times a power of ten, at least `raw`. */
function niceStep(raw: number): number {
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
}

function formatMs(t: number, step: number): string {
  const decimals = Math.max(0, -Math.floor(Math.log10(step)));
  return t.toFixed(decimals);
}

/** "1 operation", "3 operations". */
export function operationCount(n: number): string {
  return `${n} ${n === 1 ? 'operation' : 'operations'}`;
}
