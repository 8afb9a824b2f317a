/**
 * The bench's table of the phosphor-rest dialect beside the measured server: each area's distance
 * from the measured range (the dialect must come within 20 % of it), not only from its midpoint.
 */
import { expect, test } from 'vitest';
import { areaTable, offRange, sideBySide } from '../../bench/hardware-run.js';

test('a time inside the measured range is in it; outside, the share of the nearer end', () => {
  expect(offRange(30, [28, 41])).toBe(0);
  expect(offRange(28, [28, 41])).toBe(0);
  expect(offRange(41, [28, 41])).toBe(0);
  expect(offRange(20.7, [23, 31])).toBeCloseTo(-0.1, 10);
  expect(offRange(7.2, [3, 6])).toBeCloseTo(0.2, 10);
  expect(offRange(35, [35, 35])).toBe(0);
});

test('the table gives each area its seconds, its ratio to the midpoint and its distance from the range', () => {
  const areas = new Map([
    ['upload', 34],
    ['fuzz', 28.5],
    ['stateful', 25.4],
    ['events', 20.7],
    ['writes', 8.9],
    ['listings', 5.8],
    ['auth', 7],
    ['envelope', 1.2],
    ['objects', 4.9],
    ['delete', 3.4],
    ['actions', 3.7],
    ['errors', 1.4],
  ]);
  const lines = areaTable({ seconds: 149.4, exitCode: 0, summary: '', areas });
  expect(lines[0]).toMatch(/dialect\/midpoint\s+off the range$/);
  const row = (area: string) =>
    lines
      .find((l) => l.trimStart().startsWith(area))!
      .trim()
      .split(/\s{2,}/);
  expect(row('stateful')).toEqual(['stateful', '25.4', '28-41', '0.74', '-9 %']);
  expect(row('events')).toEqual(['events', '20.7', '23-31', '0.77', '-10 %']);
  expect(row('writes')).toEqual(['writes', '8.9', '8-11', '0.94', 'in range']);
  // The rest adds up its six areas: 21.6 s against 25.
  expect(row('the rest')).toEqual(['the rest', '21.6', '25', '0.86', '-14 %']);
  expect(row('whole run')).toEqual(['whole run', '149.4', '162-168', '0.91', '-8 %']);
});

test('the runs side by side: wall time, exit, verdicts, whole-tree reads and subtree enumerates', () => {
  const treeReads = { count: 57, seconds: 117.6, enumerate: 39, list: 18, subtree: { count: 35, seconds: 105.2 }, areas: [], tests: [] };
  const lines = sideBySide([
    ['embedded simulator', { seconds: 13.2, exitCode: 0, summary: '65 PASS', areas: new Map() }],
    ['slow enumerate', { seconds: 237.9, exitCode: 0, summary: '65 PASS', areas: new Map(), treeReads }],
  ]);
  expect(lines[0]).toMatch(/^ {2}run\s+wall s {2}exit {2}verdicts; whole-tree reads; subtree enumerates$/);
  expect(lines[1]).toMatch(/^ {2}embedded simulator\s+13\.2\s+0 {2}65 PASS; not recorded$/);
  expect(lines[2]).toMatch(/^ {2}slow enumerate\s+237\.9\s+0 {2}65 PASS; 57 in 117\.6 s; subtree 35 in 105\.2 s$/);
});
