/**
 * A signed attestation of a run: an in-toto Statement (v1) whose subjects are the digests of
 * results.json, summary.html and junit.xml, and whose predicate names the tool, the catalogue, the
 * target, the profile, the seed and the verdict counts; wrapped in a DSSE envelope signed with
 * ed25519 (node:crypto). A lab hands the three files and the envelope to a vendor, who checks with
 * the lab's public key that they are the ones the tool wrote.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Results } from '../client/results.js';
import { displayTarget } from './target.js';
import type { ToolInfo } from './tool-info.js';

export const ATTESTATION_FILE = 'attestation.intoto.json';
/** What the attestation vouches for, each a file of the run folder. */
export const ATTESTED_FILES = ['results.json', 'summary.html', 'junit.xml'] as const;

const PAYLOAD_TYPE = 'application/vnd.in-toto+json';
const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const PREDICATE_TYPE = 'urn:bmc-conformance:verdict:v1';

export interface Envelope {
  payloadType: string;
  payload: string;
  signatures: Array<{ keyid: string; sig: string }>;
}

interface Statement {
  _type: string;
  subject: Array<{ name: string; digest: { sha256: string } }>;
  predicateType: string;
  predicate: Record<string, unknown>;
}

/** DSSE's pre-authentication encoding: what is signed, so that the type cannot be swapped. */
function pae(payloadType: string, payload: Buffer): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${payload.length} `), payload]);
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The key id: a digest of the public key, so a verifier sees which key signed. */
function keyId(publicKey: KeyObject): string {
  return sha256(publicKey.export({ type: 'spki', format: 'der' })).slice(0, 16);
}

/** `PREFIX.key` (PKCS#8, private, mode 0600) and `PREFIX.pub` (SPKI). */
export async function generateKeyPair(prefix: string): Promise<{ privateKey: string; publicKey: string }> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const files = { privateKey: `${prefix}.key`, publicKey: `${prefix}.pub` };
  for (const f of Object.values(files)) if (existsSync(f)) throw new Error(`${f} exists already: choose another name, or remove it.`);
  await writeFile(files.privateKey, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  await writeFile(files.publicKey, publicKey.export({ type: 'spki', format: 'pem' }));
  return files;
}

/** Signs the run folder's files: writes and returns `DIR/attestation.intoto.json`. */
export async function signRun(dir: string, results: Results, tool: ToolInfo, keyFile: string): Promise<string> {
  const key = createPrivateKey(await readFile(keyFile));
  const subject = [];
  for (const name of ATTESTED_FILES) subject.push({ name, digest: { sha256: sha256(await readFile(join(dir, name))) } });
  const statement: Statement = {
    _type: STATEMENT_TYPE,
    subject,
    predicateType: PREDICATE_TYPE,
    predicate: {
      tool: { name: tool.name, version: tool.version },
      catalogue: tool.catalogue,
      target: displayTarget(results.target),
      fingerprint: results.fingerprint ?? null,
      namespace: results.namespace,
      profile: results.profile,
      seed: results.seed,
      startedAt: results.startedAt,
      summary: results.summary,
    },
  };
  const payload = Buffer.from(JSON.stringify(statement), 'utf8');
  const envelope: Envelope = {
    payloadType: PAYLOAD_TYPE,
    payload: payload.toString('base64'),
    signatures: [{ keyid: keyId(createPublicKey(key)), sig: sign(null, pae(PAYLOAD_TYPE, payload), key).toString('base64') }],
  };
  const file = join(dir, ATTESTATION_FILE);
  await writeFile(file, `${JSON.stringify(envelope, null, 2)}\n`);
  return file;
}

export type Verification = { valid: true; statement: Statement } | { valid: false; problem: string };

/**
 * Checks the envelope's signature with the public key, then each subject's digest against the file
 * of that name beside the envelope (or in `dir`).
 */
export async function verifyRun(envelopeFile: string, publicKeyFile: string, dir = dirname(envelopeFile)): Promise<Verification> {
  const envelope = JSON.parse(await readFile(envelopeFile, 'utf8')) as Envelope;
  const publicKey = createPublicKey(await readFile(publicKeyFile));
  const payload = Buffer.from(envelope.payload ?? '', 'base64');
  const signed = (envelope.signatures ?? []).some((s) =>
    verify(null, pae(envelope.payloadType, payload), publicKey, Buffer.from(s.sig ?? '', 'base64')),
  );
  if (!signed)
    return { valid: false, problem: `the signature of ${basename(envelopeFile)} does not verify with ${basename(publicKeyFile)}` };
  if (envelope.payloadType !== PAYLOAD_TYPE)
    return { valid: false, problem: `the payload type is ${envelope.payloadType}, not ${PAYLOAD_TYPE}` };
  const statement = JSON.parse(payload.toString('utf8')) as Statement;
  for (const s of statement.subject) {
    const file = join(dir, basename(s.name));
    if (!existsSync(file)) return { valid: false, problem: `${s.name} is missing from ${dir}` };
    if (sha256(await readFile(file)) !== s.digest.sha256) return { valid: false, problem: `${s.name} was altered since it was signed` };
  }
  return { valid: true, statement };
}
