/** The catalogue links spec, tests and report: every requirement is tested, every test is traced. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  AREAS,
  CREDENTIAL_REQUIREMENTS,
  JUDGED_ELSEWHERE,
  REQUIREMENTS,
  STABILITY_REQUIREMENTS,
  VALUE_REQUIREMENTS,
  VERSION_REQUIREMENTS,
  isRequirementId,
  requirement,
} from '../../catalogue/requirements.js';
import { FAULTS } from '../../simulator/faults.js';
import { packageRoot } from '../../client/package-root.js';
import { ANSWER_CHECKS, ANSWER_REQUIREMENTS } from '../../suites/harness/answer-checks.js';

const suitesDir = join(packageRoot(), 'suites');
/** The shared harness, and the run-wide oracle that runs after the areas of every run; every other folder of suites/ is an area. */
const HARNESS = 'harness';
const ORACLE = 'oracle';
const areaFolders = readdirSync(suitesDir, { withFileTypes: true })
  .filter((e) => e.isDirectory() && e.name !== HARNESS && e.name !== ORACLE)
  .map((e) => e.name);
/** `events/events.suite.ts`: each area's suite file, in its folder. */
const suiteFiles = areaFolders.flatMap((area) =>
  readdirSync(join(suitesDir, area))
    .filter((f) => f.endsWith('.suite.ts'))
    .map((f) => `${area}/${f}`),
);
const areaOfFile = (file: string): string => file.slice(0, file.indexOf('/'));

/** The ID lists suites name by constant. */
const NAMED_LISTS: Record<string, readonly string[]> = {
  STABILITY_REQUIREMENTS,
  CREDENTIAL_REQUIREMENTS,
  VALUE_REQUIREMENTS,
  VERSION_REQUIREMENTS,
};

/** The IDs named by each check(...) call of a suite file: a string, an array literal or a named list. */
function checkIds(source: string): string[][] {
  const calls: string[][] = [];
  const re = /\bcheck\(\s*(\[[^\]]*\]|'[^']*'|[A-Z][A-Z_]+\b)/g;
  for (const m of source.matchAll(re)) {
    const list = NAMED_LISTS[m[1]!];
    if (/^[A-Z_]+$/.test(m[1]!) && !list) throw new Error(`a check names the unknown list ${m[1]}: add it to NAMED_LISTS`);
    calls.push(list ? [...list] : [...m[1]!.matchAll(/'([^']+)'/g)].map((x) => x[1]!));
  }
  return calls;
}

const checks = suiteFiles.flatMap((file) => checkIds(readFileSync(join(suitesDir, file), 'utf8')).map((ids) => ({ file, ids })));

describe('requirement catalogue', () => {
  test('IDs are unique and every requirement names a known area and level', () => {
    const ids = REQUIREMENTS.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of REQUIREMENTS) {
      expect(AREAS).toContain(r.area);
      expect(['MUST', 'SAFETY', 'OBSERVE']).toContain(r.level);
      expect(r.title.length).toBeGreaterThan(10);
    }
  });

  test('each area has a folder with its suite file, and every folder but the harness is an area', () => {
    expect(suiteFiles.sort()).toEqual(AREAS.map((a) => `${a}/${a}.suite.ts`).sort());
    expect(areaFolders.sort()).toEqual([...AREAS].sort());
    expect(readdirSync(suitesDir).filter((f) => f.endsWith('.ts'))).toEqual([]);
  });

  test('every test names catalogue IDs only', () => {
    expect(checks.length).toBeGreaterThan(REQUIREMENTS.length / 2);
    for (const c of checks) {
      expect(c.ids.length, `a check in ${c.file} names no requirement`).toBeGreaterThan(0);
      for (const id of c.ids) expect(isRequirementId(id), `${c.file} names unknown ${id}`).toBe(true);
    }
  });

  test('the catalogue knows every area that judges a requirement besides its own (no XPASS from a run without it)', () => {
    const elsewhere: Record<string, string[]> = {};
    for (const c of checks) {
      const area = areaOfFile(c.file);
      for (const id of c.ids) if (requirement(id).area !== area) (elsewhere[area] ??= []).push(id);
    }
    const sorted = (m: Partial<Record<string, readonly string[]>>): Record<string, string[]> =>
      Object.fromEntries(Object.entries(m).map(([a, ids]): [string, string[]] => [a, [...new Set(ids)].sort()]));
    expect(sorted(JUDGED_ELSEWHERE)).toEqual(sorted(elsewhere));
  });

  test('the run-wide oracle is one suite file that judges the requirements every answer is held to', () => {
    expect(readdirSync(join(suitesDir, ORACLE)).filter((f) => f.endsWith('.suite.ts'))).toEqual(['oracle.suite.ts']);
    for (const id of ANSWER_REQUIREMENTS) expect(isRequirementId(id)).toBe(true);
    const held = ANSWER_CHECKS.map((c) => c.requirement);
    expect([...held, 'AUTH-5'].sort()).toEqual([...ANSWER_REQUIREMENTS].sort());
  });

  test('every requirement has at least one test', () => {
    const tested = new Set(checks.flatMap((c) => c.ids));
    const untested = REQUIREMENTS.map((r) => r.id).filter((id) => !tested.has(id));
    expect(untested).toEqual([]);
  });

  test('suites declare tests only through check()', () => {
    for (const file of suiteFiles) {
      const source = readFileSync(join(suitesDir, file), 'utf8');
      expect(/(?<![.\w])(?:test|it)(?:\.\w+)?\(/.test(source), `${file} calls test()/it() directly`).toBe(false);
    }
  });

  test('every fault names a catalogue requirement that can fail', () => {
    for (const f of FAULTS) {
      expect(isRequirementId(f.requirement), `${f.name} names unknown ${f.requirement}`).toBe(true);
      if (f.verdict !== 'PASS')
        expect(REQUIREMENTS.find((r) => r.id === f.requirement)!.level, `${f.name} targets an OBSERVE requirement`).not.toBe('OBSERVE');
    }
    expect(new Set(FAULTS.map((f) => f.name)).size).toBe(FAULTS.length);
  });
});
