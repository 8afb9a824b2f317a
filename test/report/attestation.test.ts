/** The signed attestation: an in-toto statement in a DSSE envelope that verifies, and fails on any altered byte. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ATTESTED_FILES, generateKeyPair, PREDICATE_TYPE, signRun, verifyRun, type Envelope } from '../../report/attestation.js';
import { toolInfo } from '../../report/tool-info.js';
import type { Results } from '../../client/results.js';

let dir: string;
let keys: { privateKey: string; publicKey: string };
let other: { privateKey: string; publicKey: string };
const results = {
  target: 'https://127.0.0.1:1',
  namespace: 'mgmt_project',
  profile: 'destructive',
  seed: 7,
  startedAt: '2026-11-25T00:00:00Z',
  summary: { PASS: 64, FAIL: 1, WARN: 0, NOT_TESTED: 0, XFAIL: 0, XPASS: 0 },
} as unknown as Results;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bmc-attest-'));
  for (const f of ATTESTED_FILES) await writeFile(join(dir, f), `content of ${f}\n`);
  keys = await generateKeyPair(join(dir, 'lab'));
  other = await generateKeyPair(join(dir, 'other'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('attestation', () => {
  test('signs the three files and verifies with the public key; the statement names tool, catalogue and counts', async () => {
    const file = await signRun(dir, results, toolInfo(), keys.privateKey);
    const outcome = await verifyRun(file, keys.publicKey);
    expect(outcome.valid).toBe(true);
    if (!outcome.valid) return;
    expect(outcome.statement.subject.map((s) => s.name)).toEqual([...ATTESTED_FILES]);
    expect(outcome.statement.predicateType).toBe(PREDICATE_TYPE);
    expect(outcome.statement.predicate).toMatchObject({ tool: { name: 'bmc-conformance' }, seed: 7, summary: { FAIL: 1 } });
    const envelope = JSON.parse(await readFile(file, 'utf8')) as Envelope;
    expect(envelope.payloadType).toBe('application/vnd.in-toto+json');
  });

  test('one byte of results.json changed: rejected, naming the file', async () => {
    const file = await signRun(dir, results, toolInfo(), keys.privateKey);
    const original = await readFile(join(dir, 'results.json'));
    const altered = Buffer.from(original);
    altered[0] = altered[0]! ^ 1;
    await writeFile(join(dir, 'results.json'), altered);
    try {
      expect(await verifyRun(file, keys.publicKey)).toEqual({ valid: false, problem: 'results.json was altered since it was signed' });
    } finally {
      await writeFile(join(dir, 'results.json'), original);
    }
    expect((await verifyRun(file, keys.publicKey)).valid).toBe(true);
  });

  test('another key, or an altered statement, does not verify', async () => {
    const file = await signRun(dir, results, toolInfo(), keys.privateKey);
    expect((await verifyRun(file, other.publicKey)).valid).toBe(false);
    const envelope = JSON.parse(await readFile(file, 'utf8')) as Envelope;
    const statement = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8'));
    statement.predicate.summary.FAIL = 0;
    envelope.payload = Buffer.from(JSON.stringify(statement)).toString('base64');
    await writeFile(file, JSON.stringify(envelope));
    expect(await verifyRun(file, keys.publicKey)).toMatchObject({ valid: false, problem: expect.stringMatching(/signature/) });
  });

  test('a key pair is not written over', async () => {
    await expect(generateKeyPair(join(dir, 'lab'))).rejects.toThrow(/exists already/);
  });
});
