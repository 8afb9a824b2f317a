/**
 * Every count, time and rate `load` takes is checked before any work: a value out of its range is
 * refused with one sentence naming the range, exit 2, no stack trace (as the user meets it, and in
 * the parsers and the command's own check behind them).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  LOAD_LIMITS,
  checkLoadRanges,
  limited,
  parseRamp,
  parseReadEndpoints,
  parseSoak,
  percentOf,
  type LimitedFlag,
} from '../../cli/load-limits.js';
import { UsageError } from '../../client/usage-error.js';
import { cli, ensureBuilt } from './cli-process.js';
import { runLoadCommand } from './helpers.js';
import { hangAfter } from '../support/hang.js';

let dir: string;

beforeAll(async () => {
  ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'bmc-load-ranges-'));
}, hangAfter(120_000));

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** One line, one plain sentence (or two on that line: commander's "is invalid." and our range), no stack. */
function expectPlainRefusal(r: { code: number; stdout: string; stderr: string }, range: RegExp): void {
  expect(r.code, r.stdout + r.stderr).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^[A-Z-].*[.!?]$/);
  expect(lines[0]).toMatch(range);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  // Refused before any work: nothing was measured, nothing written.
  expect(r.stdout).not.toMatch(/bmc-conformance load:/);
}

// One value outside the range of each flag, and the words its refusal must carry.
const BAD: [string[], RegExp][] = [
  [['--duration', '0'], /at least 1 and at most 86,400/],
  [['--duration', '86401'], /seconds, at least 1 and at most 86,400/],
  [['--connections', '0'], /connections, at least 1 and at most 10,000/],
  [['--max-connections', '10001'], /connections, at least 1 and at most 10,000/],
  [['--max-requests', '0'], /requests, at least 1 and at most 1,000,000,000/],
  [['--rate', '0'], /requests per second, at least 0\.1 and at most 1,000,000/],
  [['--rate', '2000000'], /at least 0\.1 and at most 1,000,000/],
  [['--max-rate', '0', '--find-capacity'], /at least 0\.1 and at most 1,000,000/],
  [['--ramp', '0:50:5'], /rates from 0\.1 to 1,000,000 requests per second and 2 to 1,000 steps/],
  [['--ramp', '5:50:1'], /2 to 1,000 steps/],
  [['--capacity-p99', '0'], /milliseconds, at least 1 and at most 600,000/],
  [['--max-sessions', '0'], /sessions, at least 1 and at most 10,000/],
  [['--max-subscribers', '0'], /subscribers, at least 1 and at most 10,000/],
  [['--subscribers', '0'], /subscribers, at least 1 and at most 10,000/],
  [['--soak', '0'], /from 1 s to 168 h/],
  [['--soak', '200h'], /from 1 s to 168 h/],
  [['--window', '0', '--soak', '60'], /seconds, at least 1 and at most 86,400/],
  [['--event-timeout', '0'], /milliseconds, at least 1 and at most 3,600,000/],
  [['--event-timeout', '3600001'], /milliseconds, at least 1 and at most 3,600,000/],
  [
    ['--timeout', '99999999999'],
    // Refused by the option's own parser (run shares it) before load's second check sees it.
    /--timeout <ms>' argument '99999999999' is invalid\. Expected a whole number of milliseconds, at least 1 and at most 3,600,000/,
  ],
  [['--min-rps', '0'], /at least 0\.1 and at most 1,000,000/],
  [['--max-p99', '0'], /milliseconds, at least 1 and at most 3,600,000/],
  [['--abort-error-rate', '101'], /per cent, at least 0 and at most 100/],
  [['--tolerance=-1'], /per cent, at least 0 and at most 100/],
  [['--mix', 'get-object=0', '--scenario', 'read-mix'], /at least one weight above 0/],
  [['--rate', '200', '--find-capacity', '--max-rate', '100'], /--rate 200 .* is above --max-rate 100/],
];

test.each(BAD)('%j is refused with its range, exit 2', async (args, range) => {
  expectPlainRefusal(await cli([...args, '--out', join(dir, 'never')]), range);
});

test("a target profile's request timeout out of range is refused in the profile's words", async () => {
  const file = join(dir, 'profile.json');
  await writeFile(file, JSON.stringify({ platform: 'test', timeouts: { requestMs: 99_999_999_999 } }));
  expectPlainRefusal(
    await cli(['--target-profile', file]),
    /timeouts\.requestMs 99999999999; load accepts .* at least 1 and at most 3,600,000/,
  );
});

describe('the parsers and the check behind them share one table', () => {
  const flags = Object.keys(LOAD_LIMITS) as LimitedFlag[];

  test.each(flags)('%s: its bounds pass, a step outside them is refused with the range', (flag) => {
    const l = LOAD_LIMITS[flag];
    const parse = flag === 'abortErrorRate' || flag === 'tolerance' ? percentOf(flag) : limited(flag);
    expect(parse(String(l.min))).toBe(l.min);
    expect(parse(String(l.max))).toBe(l.max);
    const below = l.min >= 1 ? l.min - 1 : l.min > 0 ? l.min / 2 : -1;
    for (const bad of [String(below), String(l.max + 1), '', 'x', 'Infinity']) {
      expect(() => parse(bad), `${flag} ${bad}`).toThrow(InvalidArgumentError);
      expect(() => parse(bad)).toThrow(/ at least .* and at most /);
    }
    expect(() => checkLoadRanges({ [flag]: l.max + 1 })).toThrow(UsageError);
    expect(() => checkLoadRanges({ [flag]: l.max + 1 })).toThrow(new RegExp(`^${l.flag} `));
    expect(() => checkLoadRanges({ [flag]: l.max })).not.toThrow();
  });

  test('whole-number flags refuse fractions, rates take them', () => {
    expect(() => limited('connections')('1.5')).toThrow(/whole number/);
    expect(limited('rate')('0.5')).toBe(0.5);
    expect(percentOf('tolerance')('12.5%')).toBe(12.5);
  });

  test('ramps and soaks', () => {
    expect(parseRamp('5:50:10')).toEqual({ from: 5, to: 50, steps: 10 });
    expect(() => parseRamp('5:50:1001')).toThrow(/2 to 1,000 steps/);
    expect(() => checkLoadRanges({ ramp: { from: 5, to: 0, steps: 3 } })).toThrow(/--ramp 5:0:3 is out of range/);
    expect(parseSoak('2h')).toBe(7200);
    expect(parseSoak('168h')).toBe(604_800);
    expect(() => parseSoak('169h')).toThrow(/168 h/);
  });

  test('the command checks values given in code before it starts anything', async () => {
    await expect(runLoadCommand({ duration: 0, out: join(dir, 'never') })).rejects.toThrow(/--duration 0 is out of range/);
    await expect(runLoadCommand({ connections: 0.5, out: join(dir, 'never') })).rejects.toThrow(/--connections 0\.5 is out of range/);
  });

  test('the verification flags: read endpoints by name, the capacity criterion only with a capacity search', async () => {
    expect(parseReadEndpoints('attr, enumerate,attr')).toEqual(['attr', 'enumerate']);
    expect(() => parseReadEndpoints('attr,cache')).toThrow(/unknown read cache; reads are attr, object, enumerate/);
    await expect(runLoadCommand({ capacityCriterion: 'conformant', out: join(dir, 'never') })).rejects.toThrow(
      /--capacity-criterion needs --find-capacity/,
    );
    await expect(runLoadCommand({ verifyReads: ['attr'], out: join(dir, 'never') })).rejects.toThrow(/need --verify/);
  });
});
