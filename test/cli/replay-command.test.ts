/**
 * `replay` on the command line: the run's --insecure holds for its replay (the command line wins),
 * and a finding whose request was not repeated exits 3 with the curl line to run by hand.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSimulator } from '../../simulator/index.js';
import { cli } from '../support/cli.js';
import { refusedLogin, writeRunFolder } from '../support/run-folder.js';

const PASSWORD = 'replay-Secret-4c1d';
let sim: { url: string; close(): Promise<void> };
let out: string;

/** EP-1 of a run against the test's simulator (self-signed), recorded with or without --insecure. */
function ep1Run(name: string, insecure?: true): Promise<string> {
  const reason = 'POST /login: expected 200 OK, got 400 body ""';
  return writeRunFolder(join(out, name), { requirement: 'EP-1', reason, evidence: [refusedLogin()], target: sim.url, insecure });
}

beforeAll(async () => {
  sim = await startSimulator({ password: PASSWORD });
  out = await mkdtemp(join(tmpdir(), 'bmc-replay-cli-'));
});

afterAll(async () => {
  await sim?.close();
  await rm(out, { recursive: true, force: true });
});

describe('replay', () => {
  test('a run made with --insecure is replayed with it: the login it is about is not repeated, exit 3 with its curl line', async () => {
    const r = await cli(['replay', '--in', await ep1Run('insecure', true), '--password', PASSWORD]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toContain('* POST /login: not repeatable (why: a login is not repeated by replay: it keeps its own session)');
    expect(r.stdout).toMatch(/\n {4}by hand: curl .*-X POST .*\/login /);
    expect(r.stdout).not.toContain(PASSWORD);
  });

  test('--no-insecure wins over the run: the self-signed certificate is refused, one sentence, exit 2', async () => {
    const r = await cli(['replay', '--in', await ep1Run('insecure-overridden', true), '--password', PASSWORD, '--no-insecure']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/certificate/i);
  });

  test('a run made without --insecure: the replay checks the certificate, and --insecure turns that off', async () => {
    const folder = await ep1Run('checked');
    expect((await cli(['replay', '--in', folder, '--password', PASSWORD])).code).toBe(2);
    expect((await cli(['replay', '--in', folder, '--password', PASSWORD, '--insecure'])).code).toBe(3);
  });
});
