/** The signed attestation: an in-toto statement in a DSSE envelope that verifies, and fails on any altered byte. */
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ATTESTED_FILES,
  attestedReportsCurrent,
  describeAttestation,
  generateKeyPair,
  partlyJudged,
  PREDICATE_TYPE,
  readSigningKey,
  signRun,
  verifyRun,
  type Envelope,
} from '../../report/attestation.js';
import { toolInfo } from '../../report/tool-info.js';
import type { Results } from '../../client/results.js';
import { UsageError } from '../../client/usage-error.js';
import { resultsWith } from './fixture.js';

let dir: string;
let keys: { privateKey: string; publicKey: string };
let other: { privateKey: string; publicKey: string };
const results: Results = {
  ...resultsWith({ 'RULE-4': { verdict: 'FAIL', reason: 'r' } }),
  target: 'https://127.0.0.1:1',
  profile: 'destructive',
  seed: 7,
  startedAt: '2026-11-25T00:00:00Z',
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bmc-attest-'));
  for (const f of ATTESTED_FILES) await writeFile(join(dir, f), `content of ${f}\n`);
  keys = await generateKeyPair(join(dir, 'lab'));
  other = await generateKeyPair(join(dir, 'other'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('attestation', () => {
  test('signs the three files and verifies with the public key; the statement names tool, catalogue and counts', async () => {
    const file = await signRun(dir, results, toolInfo(), await readSigningKey(keys.privateKey));
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
    const file = await signRun(dir, results, toolInfo(), await readSigningKey(keys.privateKey));
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
    const file = await signRun(dir, results, toolInfo(), await readSigningKey(keys.privateKey));
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

  test('a key pair goes into a folder that exists: one sentence otherwise', async () => {
    await expect(generateKeyPair(join(dir, 'no-such-folder', 'lab'))).rejects.toThrow(
      new UsageError(`There is no folder ${join(dir, 'no-such-folder')} for the key pair: create it, or choose another PREFIX.`),
    );
  });
});

describe('what the predicate records, and --verify says', () => {
  /** A run stopped by SIGINT: EP-5 not run, EP-2 passed on the one of its two tests that ran. */
  const interrupted: Results = {
    ...results,
    requirements: results.requirements.map((r) =>
      r.id === 'EP-5'
        ? { ...r, verdict: 'NOT_TESTED' as const, reason: 'not run: the run was interrupted (SIGINT)', tests: [] }
        : r.id === 'EP-2'
          ? { ...r, tests: [...r.tests, { name: '[EP-2] second', verdict: 'NOT_TESTED' as const, reason: 'not run' }] }
          : r,
    ),
    summary: { ...results.summary, PASS: results.summary.PASS - 1, NOT_TESTED: 1 },
    interrupted: { signal: 'SIGINT', at: '2026-11-25T00:01:00Z' },
    expectations: { file: 'lab.json', platform: 'lab board', files: [{ file: 'lab.json', sha256: 'ab'.repeat(32) }] },
  };

  test('partly judged: a PASS, WARN or XPASS some of whose tests did not run; a FAIL stands on its failing test', () => {
    expect(partlyJudged(interrupted)).toEqual(['EP-2']);
    const failing = resultsWith({ 'EP-2': { verdict: 'FAIL', reason: 'r' } });
    failing.requirements.find((r) => r.id === 'EP-2')!.tests.push({ name: 'unrun', verdict: 'NOT_TESTED' });
    expect(partlyJudged(failing)).toEqual([]);
  });

  test('an interrupted run: the signal, the partly judged requirements and the expectations are signed and said', async () => {
    const file = await signRun(dir, interrupted, toolInfo(), await readSigningKey(keys.privateKey));
    const outcome = await verifyRun(file, keys.publicKey);
    if (!outcome.valid) throw new Error(outcome.problem);
    expect(outcome.statement.predicate).toMatchObject({
      interrupted: { signal: 'SIGINT', at: '2026-11-25T00:01:00Z' },
      expectations: { file: 'lab.json', files: [{ file: 'lab.json', sha256: 'ab'.repeat(32) }] },
      partlyJudged: ['EP-2'],
      summary: { NOT_TESTED: 1, FAIL: 1 },
    });
    expect(describeAttestation(outcome.statement)).toEqual([
      'valid: results.json, summary.html, junit.xml are as signed (target https://127.0.0.1:1, 1 FAIL, 1 NOT_TESTED; INTERRUPTED by SIGINT at 2026-11-25T00:01:00Z; 1 partly judged)',
      '  judged on part of their tests (some did not run): EP-2',
      `  known deviations applied for lab board: lab.json (sha256 ${'ab'.repeat(8)}…)`,
    ]);
  });

  test('a run that ran to its end says so; an attestation without the record says it has none', async () => {
    const file = await signRun(dir, results, toolInfo(), await readSigningKey(keys.privateKey));
    const outcome = await verifyRun(file, keys.publicKey);
    if (!outcome.valid) throw new Error(outcome.problem);
    expect(outcome.statement.predicate).toMatchObject({ interrupted: null, expectations: null, partlyJudged: [] });
    expect(describeAttestation(outcome.statement)[0]).toMatch(
      /\(target https:\/\/127\.0\.0\.1:1, 1 FAIL, 0 NOT_TESTED; not interrupted\)$/,
    );
    const { interrupted: _i, expectations: _e, partlyJudged: _p, ...earlier } = outcome.statement.predicate;
    expect(describeAttestation({ ...outcome.statement, predicate: earlier })[0]).toMatch(
      /; the attestation predates the record of interruptions\)$/,
    );
  });
});

describe("the user's mistakes are one sentence naming the next step", () => {
  test('--sign given the public key, no key, a missing file or an RSA key', async () => {
    await expect(readSigningKey(keys.publicKey)).rejects.toThrow(
      new UsageError(`${keys.publicKey} is a public key: --sign takes the private PREFIX.key, and the .pub is for --verify --key.`),
    );
    await expect(readSigningKey(join(dir, 'results.json'))).rejects.toThrow(
      /is not a private key in PEM: --sign takes the PREFIX\.key that report --keygen PREFIX makes\.$/,
    );
    await expect(readSigningKey(join(dir, 'gone.key'))).rejects.toThrow(/^There is no private key at .*gone\.key: --sign takes/);
    await expect(readSigningKey(dir)).rejects.toThrow(/is a folder, not a private key/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    await writeFile(join(dir, 'rsa.key'), rsa);
    await expect(readSigningKey(join(dir, 'rsa.key'))).rejects.toThrow(/is an rsa key: --sign takes an ed25519 key/);
  });

  test('--verify given a key or a results.json; --key given no key', async () => {
    const file = await signRun(dir, results, toolInfo(), await readSigningKey(keys.privateKey));
    await expect(verifyRun(keys.publicKey, keys.publicKey)).rejects.toThrow(
      new UsageError(`${keys.publicKey} is a key: --verify takes the attestation.intoto.json of report --sign, and --key the PREFIX.pub.`),
    );
    await expect(verifyRun(join(dir, 'results.json'), keys.publicKey)).rejects.toThrow(
      /results\.json is not an attestation: --verify takes/,
    );
    await expect(verifyRun(file, join(dir, 'summary.html'))).rejects.toThrow(/is not a public key in PEM: --key takes the PREFIX\.pub/);
    await expect(verifyRun(join(dir, 'none.json'), keys.publicKey)).rejects.toThrow(/^There is no attestation at /);
    // A run folder stands for the attestation in it.
    expect((await verifyRun(dir, keys.publicKey)).valid).toBe(true);
  });
});

describe('whether --sign must render first', () => {
  test('reports written after results.json are current; a results.json changed since, or a report missing, is not', async () => {
    const at = (name: string, seconds: number) => utimes(join(dir, name), seconds, seconds);
    await at('results.json', 1_000);
    await at('summary.html', 2_000);
    await at('junit.xml', 2_000);
    expect(attestedReportsCurrent(dir)).toBe(true);
    await at('results.json', 3_000);
    expect(attestedReportsCurrent(dir)).toBe(false);
    await at('results.json', 1_000);
    await mkdir(join(dir, 'previous'), { recursive: true });
    await writeFile(join(dir, 'previous', 'results.json'), '{}');
    await utimes(join(dir, 'previous', 'results.json'), 3_000, 3_000);
    expect(attestedReportsCurrent(dir), 'a baseline newer than the reports').toBe(false);
    await rm(join(dir, 'previous'), { recursive: true });
    expect(attestedReportsCurrent(dir)).toBe(true);
    expect(attestedReportsCurrent(join(dir, 'nowhere'))).toBe(false);
  });
});
