/** The SVG timeline of a register history that load.html shows for a failing history. */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, test } from 'vitest';
import type { RegisterHistory, RegisterOperation } from '../../load/verify/history.js';
import { checkLinearizability } from '../../load/verify/linearizability.js';
import { timelineSvg } from '../../load/verify/timeline-svg.js';

const op = (
  client: string,
  kind: 'write' | 'read',
  value: unknown,
  invokedAt: number,
  returnedAt: number,
  ok = true,
): RegisterOperation => ({
  client,
  kind,
  value,
  invokedAt,
  returnedAt,
  ok,
});

/** Every element named `name` in a preserveOrder tree, with its attributes. */
type Node = Record<string, unknown> & { ':@'?: Record<string, string> };
function elements(tree: Node[], name: string): Node[] {
  return tree.flatMap((node) => {
    const children = Object.entries(node).flatMap(([k, v]) => (k !== ':@' && Array.isArray(v) ? elements(v as Node[], name) : []));
    return name in node ? [node, ...children] : children;
  });
}
function textOf(node: Node): string {
  return Object.entries(node)
    .flatMap(([k, v]) => (k === '#text' ? [String(v)] : k !== ':@' && Array.isArray(v) ? (v as Node[]).map(textOf) : []))
    .join('');
}
function parse(svg: string): Node[] {
  expect(XMLValidator.validate(svg)).toBe(true);
  return new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '',
    processEntities: true,
    htmlEntities: true,
  }).parse(svg) as Node[];
}

const failing: RegisterHistory = {
  initial: 0,
  operations: [
    op('client-2', 'write', 1, 100, 110),
    op('client-10', 'read', 1, 105, 112),
    op('client-1', 'read', 0, 120, 125),
    op('client-2', 'write', 2, 114, 118, false),
    op('client-10', 'read', 'x', 126, 127, false),
  ],
};

describe('timeline SVG', () => {
  test('is well-formed, with one lane per client in natural order and one bar per operation', () => {
    const tree = parse(timelineSvg(failing, checkLinearizability(failing)));
    const lanes = elements(tree, 'g').filter((g) => g[':@']?.class === 'lane');
    expect(lanes.map((g) => g[':@']!['data-client'])).toEqual(['client-1', 'client-2', 'client-10']);
    const bars = elements(tree, 'g').filter((g) => g[':@']?.class?.startsWith('op '));
    expect(bars.map((g) => g[':@']!['data-index'])).toEqual(['0', '1', '2', '3', '4']);
    // Every bar sits inside the picture.
    const svg = elements(tree, 'svg')[0]![':@']!;
    for (const rect of bars.flatMap((g) => elements([g], 'rect'))) {
      const x = Number(rect[':@']!.x);
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x + Number(rect[':@']!.width)).toBeLessThanOrEqual(Number(svg.width));
    }
  });

  test('labels W(v) and R→v; marks what could not be placed with words and a legend, not colour alone', () => {
    const result = checkLinearizability(failing);
    expect(result.linearizable).toBe(false);
    const tree = parse(timelineSvg(failing, result));
    const bars = elements(tree, 'g').filter((g) => g[':@']?.class?.startsWith('op '));
    const label = (i: number) => textOf(elements([bars[i]!], 'text')[0]!);
    expect(label(0)).toBe('#1 W(1)');
    expect(label(1)).toBe('#2 R→1');
    expect(bars[2]![':@']!.class).toBe('op unplaced');
    expect(label(2)).toBe('R→0 ✗ cannot be placed');
    expect(label(3)).toBe('W(2)? no answer');
    expect(label(4)).toBe('R→"x" failed, ignored');
    const legend = elements(tree, 'g').find((g) => g[':@']?.class === 'legend')!;
    expect(elements([legend], 'text').map(textOf)).toEqual([
      '#n placed in the order found',
      '✗ could not be placed',
      'no answer: took effect later, or never',
      'failed read, ignored',
    ]);
    expect(textOf(elements(tree, 'text')[1]!)).toContain('NOT linearizable');
  });

  test('the axis is in ms from the first invocation', () => {
    const tree = parse(timelineSvg(failing));
    const axis = elements(tree, 'g').find((g) => g[':@']?.class === 'axis')!;
    const ticks = elements([axis], 'text').map(textOf);
    expect(ticks[0]).toBe('0');
    expect(ticks).toContain('25');
    expect(ticks.at(-1)).toBe('ms since the first invocation');
  });

  test('escapes odd values and clients, and replaces what XML cannot carry', () => {
    const odd = '<script>alert("&")</script>\'\u0001\ud800';
    const h: RegisterHistory = { initial: odd, operations: [op(`<b>${odd}`, 'write', { [odd]: odd }, 0, 1), op('c&d', 'read', odd, 2, 3)] };
    const svg = timelineSvg(h, checkLinearizability(h), { title: `title ${odd}`, maxValueChars: 200 });
    expect(svg).not.toContain('<script');
    expect(svg).not.toContain('<b>');
    const tree = parse(svg);
    expect(elements(tree, 'script')).toEqual([]);
    const lanes = elements(tree, 'g').filter((g) => g[':@']?.class === 'lane');
    expect(lanes.map((g) => g[':@']!['data-client'])).toContain('c&d');
    const texts = elements(tree, 'text').map(textOf);
    expect(texts[0]).toBe('title <script>alert("&")</script>\'\ufffd\ufffd');
    expect(texts.some((t) => t.includes('R→"<script>alert(\\"&\\")</script>\''))).toBe(true);
  });

  test('a read names its endpoint, and labels that would meet in one lane take two rows', () => {
    const h: RegisterHistory = {
      initial: 'a',
      operations: [
        op('s1', 'write', 'b', 0, 1),
        { ...op('s1', 'read', 'a', 1.5, 2), endpoint: 'enumerate' },
        op('s2', 'read', 'b', 50, 100),
      ],
    };
    const ops = elements(parse(timelineSvg(h, checkLinearizability(h))), 'g').filter((g) => g[':@']?.class?.startsWith('op '));
    const labels = ops.map((g) => elements(g.g as Node[], 'text')[0]!);
    expect(textOf(labels[1]!)).toContain('R[enumerate]→');
    expect(labels[0]![':@']!.y).not.toBe(labels[1]![':@']!.y);
  });

  test('an empty history still draws', () => {
    expect(XMLValidator.validate(timelineSvg({ initial: null, operations: [] }))).toBe(true);
  });
});
