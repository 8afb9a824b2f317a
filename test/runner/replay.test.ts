/**
 * `replay` repeats a failing test from its evidence: against the same faulty target it reproduces
 * the finding, against a conformant one it says what differs; what it wrote is put back.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Exchange } from '../../client/evidence.js';
import { BmcClient } from '../../client/http.js';
import type { Results } from '../../client/results.js';
import { parseWritable } from '../../runner/config.js';
import { replay } from '../../runner/replay.js';
import { NOT_REPEATABLE_EXIT, replayExitCode } from '../../runner/replay-verdict.js';
import { runConformance } from '../../runner/run.js';
import { startSimulator, type RunningSimulator } from '../../simulator/server.js';
import { exchange, refusedLogin, writeRunFolder } from '../support/run-folder.js';
import { testRunOptions } from '../support/run-options.js';

const WRITABLE = ['/xyz/mgmt_project/inventory/system:AssetTag', '/xyz/mgmt_project/control/power_cap:PowerCap'];
let faulty: RunningSimulator;
let clean: RunningSimulator;
let dir: string;
let run: Results;
const quiet = { log: () => {} };

async function replayAgainst(sim: RunningSimulator, requirement: string, from = dir) {
  const lines: string[] = [];
  const outcome = await replay({
    dir: from,
    requirement,
    target: sim.url,
    user: 'root',
    password: '0penBmc',
    insecure: true,
    timeoutMs: 15_000,
    waitMs: 500,
    print: (line) => lines.push(line),
  });
  return { ...outcome, lines };
}

async function assetTag(sim: RunningSimulator): Promise<unknown> {
  const client = new BmcClient({ baseUrl: sim.url, user: 'root', password: '0penBmc', insecure: true });
  try {
    return ((await client.get('/xyz/mgmt_project/inventory/system/attr/AssetTag')).json as { data: unknown }).data;
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  // filter-and: paths and interfaces are ANDed, where EV-6 says either admits an event.
  faulty = await startSimulator({ faults: ['filter-and'], ...quiet });
  clean = await startSimulator(quiet);
  dir = await mkdtemp(join(tmpdir(), 'bmc-replay-'));
  ({ results: run } = await runConformance(
    testRunOptions(dir, { target: faulty.url, only: ['events'], writable: WRITABLE.map((w) => parseWritable(w)!), seed: 5 }),
  ));
  expect(run.requirements.find((r) => r.id === 'EV-6')?.verdict).toBe('FAIL');
});

afterAll(async () => {
  await Promise.all([faulty?.close(), clean?.close()]);
  await rm(dir, { recursive: true, force: true });
});

describe('[EV-6] replay of an event finding', () => {
  test('against the same faulty target it reproduces, and puts back what it wrote', async () => {
    const before = await assetTag(faulty);
    const r = await replayAgainst(faulty, 'EV-6');
    expect(r.differences, r.lines.join('\n')).toEqual([]);
    expect(r.reproduced).toBe(true);
    expect(replayExitCode(r)).toBe(0);
    // The finding is about the subscription whose filter ORs a path and an interface: repeated, answered alike.
    expect(r.lines).toContainEqual(
      expect.stringMatching(/^\* subscription \d+ \(filter \{"paths":.*"interfaces":.*\}\): repeated, same answer$/),
    );
    expect(r.lines.some((l) => /subscription \d+ (opened:|sent its) filter/.test(l))).toBe(true);
    expect(await assetTag(faulty)).toEqual(before);
  });

  test('against a conformant target it does not, naming the subscription and the change that differ', async () => {
    const r = await replayAgainst(clean, 'EV-6');
    expect(r.reproduced).toBe(false);
    expect(replayExitCode(r)).toBe(1);
    expect(r.differences.some((d) => /subscription \d+ \(filter .*"interfaces".*\) received the change of /.test(d))).toBe(true);
  });

  test('Ctrl-C stops it: no further step, every value it wrote put back, the outcome says interrupted', async () => {
    const before = await assetTag(faulty);
    const listeners = process.listeners('SIGINT');
    const running = replayAgainst(faulty, 'EV-6');
    // Pressed as a user would: once the replay has changed the attribute.
    for (let i = 0; i < 200 && JSON.stringify(await assetTag(faulty)) === JSON.stringify(before); i++)
      await new Promise((r) => setTimeout(r, 20));
    const added = process.listeners('SIGINT').filter((l) => !listeners.includes(l));
    expect(added).toHaveLength(1);
    added[0]!('SIGINT');
    const r = await running;
    expect(r.interrupted).toBe('SIGINT');
    expect(r.reproduced).toBe(false);
    expect(r.lines).toContain('SIGINT: the replay stops and puts back what it wrote');
    expect(await assetTag(faulty)).toEqual(before);
    expect(process.listeners('SIGINT')).toEqual(listeners);
  });

  test('a requirement without a failing test is a usage error, one sentence', async () => {
    await expect(replayAgainst(faulty, 'EP-1')).rejects.toThrow(
      /^EP-1 has no failing or warning test with evidence in this run; replay takes one that has\.$/,
    );
  });
});

const OK_BODY = '{"data":{},"message":"200 OK","status":"ok"}';

/** A run folder holding one failing test of `requirement`, beside the events run's. */
function runFolder(name: string, requirement: string, reason: string, evidence: Exchange[]): Promise<string> {
  return writeRunFolder(join(dir, name), { requirement, reason, evidence });
}

describe('replay claims a reproduction only for the requests the finding is about, repeated', () => {
  test('the run records its --insecure, for its replay', () => {
    expect(run.insecure).toBe(true);
  });

  test('EP-1, a refused login: not repeatable, with its curl line, exit 3', async () => {
    const folder = await runFolder('ep-1', 'EP-1', 'POST /login: expected 200 OK, got 400 body ""', [refusedLogin()]);
    const r = await replayAgainst(clean, 'EP-1', folder);
    expect(r.result, r.lines.join('\n')).toBe('not-repeatable');
    expect(r.reproduced).toBe(false);
    expect(replayExitCode(r)).toBe(NOT_REPEATABLE_EXIT);
    expect(r.lines).toContain('* POST /login: not repeatable (why: a login is not repeated by replay: it keeps its own session)');
    expect(r.lines).toContainEqual(expect.stringMatching(/^ {4}by hand: curl .*-X POST .*\/login --data-raw .*\$PASSWORD/));
    expect(r.lines.at(-1)).toBe(
      'not reproduced: the replay could not repeat what the finding is about: POST /login; run its curl line above by hand',
    );
  });

  test('RULE-5: the GET is repeated alike, the DELETE the finding is about is not: exit 3', async () => {
    const path = '/xyz/mgmt_project/inventory/system';
    const folder = await runFolder('rule-5', 'RULE-5', `DELETE ${path}: expected 403 Forbidden, got 404 "404 Not Found"`, [
      exchange('GET', path, 200, { responseBody: OK_BODY }),
      exchange('DELETE', path, 404),
    ]);
    const r = await replayAgainst(clean, 'RULE-5', folder);
    expect(r.lines).toContain(`  GET ${path}: repeated, same answer`);
    expect(r.lines).toContain(`* DELETE ${path}: not repeatable (why: a delete is not repeated by replay)`);
    expect(replayExitCode(r)).toBe(NOT_REPEATABLE_EXIT);
  });

  test('the request the finding is about, repeated: alike is exit 0, different exit 1', async () => {
    const path = '/xyz/mgmt_project/inventory/system';
    const alike = await runFolder('alike', 'OBJ-1', `GET ${path}: the finding`, [exchange('GET', path, 200, { responseBody: OK_BODY })]);
    const same = await replayAgainst(clean, 'OBJ-1', alike);
    expect(same.lines).toContain(`* GET ${path}: repeated, same answer`);
    expect(replayExitCode(same)).toBe(0);
    const unlike = await runFolder('unlike', 'OBJ-1', `GET ${path}: expected 200 OK, got 404`, [exchange('GET', path, 404)]);
    const differs = await replayAgainst(clean, 'OBJ-1', unlike);
    expect(differs.lines).toContain(`* GET ${path}: repeated, different answer (run: 404, now: 200 "ok")`);
    expect(replayExitCode(differs)).toBe(1);
  });

  test('a reason that names no request: every request counts, so a DELETE among them keeps it from reproducing', async () => {
    const path = '/xyz/mgmt_project/inventory/system';
    const folder = await runFolder('every', 'OBJ-2', 'the object is not what the spec shows', [
      exchange('GET', path, 200, { responseBody: OK_BODY }),
      exchange('DELETE', path, 404),
    ]);
    const r = await replayAgainst(clean, 'OBJ-2', folder);
    expect(r.lines).toContain('the finding names none of its requests: each request of the test counts as the one it is about');
    expect(replayExitCode(r)).toBe(NOT_REPEATABLE_EXIT);
  });
});
