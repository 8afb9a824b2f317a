/**
 * load --verify against the embedded simulator on 127.0.0.1: the clean simulator and both field
 * dialects pass; each load-only fault FAILs its requirement. Every run is bounded by a request cap
 * and a duration; nothing here asserts a time.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { LOAD_FAULTS } from '../../simulator/load-faults.js';
import { decide } from '../../catalogue/fault-model.js';
import { REQUIREMENTS } from '../../catalogue/requirements.js';
import { runLoadCommand } from './helpers.js';

const POWER_CAP = '/xyz/mgmt_project/control/power_cap';
/** Two writers of one object, the register's values distinct: what a lost update needs to show. */
const TWO_WRITERS = [
  { path: POWER_CAP, name: 'PowerCap', values: Array.from({ length: 100 }, (_, i) => 601 + i) },
  { path: POWER_CAP, name: 'PowerCapEnable' },
];

// Each scenario ends at its request cap (count-based: a busy machine takes longer, it does not see less);
// the duration is only the outer bound.
const base = { verify: true, duration: 30, maxRequests: 800, scenario: ['get-object'], verifySessions: 3, eventTimeout: 3000 };

function failed(doc: Awaited<ReturnType<typeof runLoadCommand>>['doc']): string[] {
  return (doc.verification?.requirements ?? []).filter((r) => r.verdict === 'FAIL').map((r) => r.id);
}

describe('load --verify', () => {
  test('every load-only fault names a requirement and an operator the fault model says applies', () => {
    for (const f of LOAD_FAULTS) {
      const req = REQUIREMENTS.find((r) => r.id === f.requirement)!;
      expect(decide(req, f.operator), f.name).toEqual({ applies: true });
    }
  });

  test('the clean simulator passes: answers, the register and its events', async () => {
    const run = await runLoadCommand(base);
    expect(failed(run.doc)).toEqual([]);
    expect(run.exitCode).toBe(0);
    const v = run.doc.verification!;
    expect(v.judged).toBeGreaterThan(0);
    expect(v.requirements.map((r) => r.id)).toEqual(expect.arrayContaining(['ENV-1', 'ENV-4', 'EP-3', 'EP-8', 'EV-8']));
    expect(v.requirements.map((r) => r.id)).toEqual(expect.arrayContaining(['EV-4', 'EV-5', 'EV-6']));
    const round = v.register!.rounds[0]!;
    expect(round.verdict).toBe('linearizable');
    expect(round.events!.lost).toBe(0);
    // One subscriber of each kind of filter, each with every event of the register, nothing it excludes.
    expect(round.streams!.map((x) => x.kind)).toEqual(['paths', 'interfaces', 'both', 'none']);
    for (const x of round.streams!) expect(x, x.kind).toMatchObject({ lost: 0, duplicated: 0, reordered: 0, foreign: 0 });
    expect(round.streams!.every((x) => x.expected > 0 && x.delivered === x.expected)).toBe(true);
    expect(run.doc.restores.every((r) => r.restored)).toBe(true);
  });

  test.each(['phosphor-rest', 'bmcweb'])('the %s dialect passes the same verification', async (dialect) => {
    const run = await runLoadCommand({ ...base, dialect, duration: 1, maxRequests: 300 });
    expect(failed(run.doc)).toEqual([]);
    expect(run.exitCode).toBe(0);
    expect(run.doc.verification!.register!.rounds[0]!.verdict).toBe('linearizable');
  });

  test.each([
    ['load-stale-read', 'EP-8', {}],
    ['load-lost-update', 'EP-8', { writable: TWO_WRITERS }],
    ['load-stale-enumerate', 'EP-8', {}],
    ['load-event-queue-drop', 'EV-8', {}],
    ['load-interfaces-filter-narrow', 'EV-5', {}],
    ['load-response-cut', 'ENV-4', {}],
  ] as const)('%s FAILs %s under load, with the level it appeared at', async (fault, requirement, over) => {
    const run = await runLoadCommand({ ...base, eventTimeout: 500, ...over, fault: [fault] });
    expect(failed(run.doc)).toContain(requirement);
    expect(run.exitCode).toBe(1);
    const r = run.doc.verification!.requirements.find((x) => x.id === requirement)!;
    expect(r.firstRps).toBeGreaterThanOrEqual(0);
    expect(run.stdout).toContain(`FAIL ${requirement} under load from`);
    if (requirement === 'EP-8') {
      const round = run.doc.verification!.register!.rounds.find((x) => x.violation)!;
      expect(round.violation!.replayKey).toMatch(/^lin1\./);
      expect(round.violation!.svg).toContain('<svg');
    }
    // Every write is put back, also after a failing run.
    expect(run.doc.restores.length).toBeGreaterThan(0);
    expect(run.doc.restores.every((x) => x.restored)).toBe(true);
  });
});

describe('load --find-capacity --capacity-criterion conformant', () => {
  // Three climbing steps at most (50, 100, 200 requests/s), each 1 s; the target probes kept small.
  const search = {
    ...base,
    verify: undefined,
    findCapacity: true,
    duration: 1,
    capacityCriterion: 'conformant' as const,
    rate: 50,
    maxRate: 200,
    maxSubscribers: 4,
    profile: 'safe' as const,
  };

  test('a step is judged by its own verification: a stale read stops the search at the rate it appears', async () => {
    const run = await runLoadCommand({ ...search, eventTimeout: 500, fault: ['load-stale-read'] });
    const c = run.doc.results[0]!.capacity!;
    expect(c.criterion).toBe('conformant');
    expect(c.limitedBy).toBe('conformance');
    expect(c.brokenFrom?.requirement).toBe('EP-8');
    expect(c.sustainableRps).toBeLessThan(c.brokenFrom!.rps);
    // Every step that broke EP-8 was refused, whatever its p99.
    for (const s of c.steps.filter((x) => x.violation)) expect(s.sustained).toBe(false);
    // The verification ran (implied), one register history per step.
    expect(run.doc.verification!.register!.rounds.map((r) => r.rate)).toEqual(c.steps.map((s) => s.rate));
    expect(run.stdout).toMatch(/limited by conformance: EP-8 broken from [\d.]+ req\/s on/);
    const html = await readFile(join(run.out, 'load.html'), 'utf8');
    expect(html).toContain('still conformant');
    expect(html).toContain(`EP-8 broken from ${c.brokenFrom!.rps} req/s on`);
    expect(run.exitCode).toBe(1);
  });

  test('the clean simulator is not stopped by conformance', async () => {
    const run = await runLoadCommand(search);
    const c = run.doc.results[0]!.capacity!;
    expect(c.brokenFrom).toBeUndefined();
    expect(c.limitedBy).not.toBe('conformance');
    expect(c.steps.every((s) => !s.violation)).toBe(true);
    expect(run.doc.settings.capacity).toMatchObject({ criterion: 'conformant' });
    expect(run.doc.settings.capacity!.p99BoundMs).toBeUndefined();
  });
});

describe('load --verify reads back on every endpoint and subscribes with every kind of filter', () => {
  test('a cache stale on enumerate alone is caught by the enumerate reads, and not by attr reads', async () => {
    const all = await runLoadCommand({ ...base, eventTimeout: 500, fault: ['load-stale-enumerate'] });
    expect(failed(all.doc)).toContain('EP-8');
    const shrunk = all.doc.verification!.register!.rounds.find((r) => r.violation)!.violation!;
    expect(shrunk.history.operations.some((o) => o.kind === 'read' && o.endpoint === 'enumerate')).toBe(true);
    expect(shrunk.svg).toContain('R[enumerate]→');
    expect(all.doc.verification!.requirements.find((r) => r.id === 'EP-8')!.problem).toContain('read by enumerate');

    const attrOnly = await runLoadCommand({ ...base, eventTimeout: 500, fault: ['load-stale-enumerate'], verifyReads: ['attr'] });
    expect(failed(attrOnly.doc)).toEqual([]);
    expect(attrOnly.doc.verification!.register!.rounds[0]!.verdict).toBe('linearizable');
  });

  test('an interfaces filter that narrows under load is caught by the interfaces subscriber alone', async () => {
    const run = await runLoadCommand({ ...base, eventTimeout: 500, fault: ['load-interfaces-filter-narrow'] });
    expect(failed(run.doc)).toEqual(['EV-5']);
    const streams = run.doc.verification!.register!.rounds[0]!.streams!;
    expect(streams.find((x) => x.kind === 'interfaces')!.lost).toBeGreaterThan(0);
    for (const kind of ['paths', 'both', 'none']) expect(streams.find((x) => x.kind === kind)!.lost, kind).toBe(0);
  });

  test("a paths filter that lets other paths' events through FAILs EV-4 (the load writes another attribute)", async () => {
    const run = await runLoadCommand({ ...base, scenario: ['write-mix'], maxRequests: 300, fault: ['filter-paths-ignored'] });
    expect(failed(run.doc)).toEqual(['EV-4']);
    expect(run.doc.verification!.register!.rounds[0]!.streams!.find((x) => x.kind === 'paths')!.foreign).toBeGreaterThan(0);
  });
});
