/**
 * A signed attestation of a run: an in-toto Statement (v1) whose subjects are the digests of
 * results.json, summary.html and junit.xml, and whose predicate names the tool, the catalogue, the
 * target, the profile, the seed, the verdict counts, whether a signal stopped the run, the known
 * deviations applied and the requirements judged on part of their tests; wrapped in a DSSE
 * envelope signed with ed25519 (node:crypto). A lab hands the three files and the envelope to a
 * vendor, who checks with the lab's public key that they are the ones the tool wrote.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Results, Verdict } from '../client/results.js';
import { UsageError } from '../client/usage-error.js';
import { PREVIOUS_DIR } from './baseline.js';
import { RESULTS_FILE } from './results-json.js';
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
  for (const f of Object.values(files))
    if (existsSync(f)) throw new UsageError(`${f} exists already: choose another PREFIX, or remove it.`);
  const folder = dirname(files.privateKey);
  if (!existsSync(folder) || !statSync(folder).isDirectory())
    throw new UsageError(`There is no folder ${folder} for the key pair: create it, or choose another PREFIX.`);
  await writeFile(files.privateKey, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  await writeFile(files.publicKey, publicKey.export({ type: 'spki', format: 'pem' }));
  return files;
}

/** The text of a file the user named (`what`: "a private key"), or one sentence saying what to name instead. */
async function namedFile(file: string, what: string, next: string): Promise<Buffer> {
  if (!existsSync(file)) throw new UsageError(`There is no ${what.replace(/^an? /, '')} at ${file}: ${next}.`);
  if (statSync(file).isDirectory()) throw new UsageError(`${file} is a folder, not ${what}: ${next}.`);
  return readFile(file);
}

const SIGNING_KEY = 'the PREFIX.key that report --keygen PREFIX makes';

/** The ed25519 private key of --sign; a public key, or a file that is no key, is the user's mistake. */
export async function readSigningKey(file: string): Promise<KeyObject> {
  const pem = await namedFile(file, 'a private key', `--sign takes ${SIGNING_KEY}`);
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    if (parsesAsPublicKey(pem))
      throw new UsageError(`${file} is a public key: --sign takes the private PREFIX.key, and the .pub is for --verify --key.`);
    throw new UsageError(`${file} is not a private key in PEM: --sign takes ${SIGNING_KEY}.`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new UsageError(`${file} is an ${key.asymmetricKeyType ?? 'unknown'} key: --sign takes an ed25519 key, ${SIGNING_KEY}.`);
  return key;
}

/** The ed25519 public key of --verify --key. */
export async function readVerifyingKey(file: string): Promise<KeyObject> {
  const pem = await namedFile(file, 'a public key', '--key takes the PREFIX.pub of report --keygen that made the signing key');
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new UsageError(`${file} is not a public key in PEM: --key takes the PREFIX.pub of report --keygen.`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new UsageError(`${file} is an ${key.asymmetricKeyType ?? 'unknown'} key: --key takes the ed25519 PREFIX.pub of report --keygen.`);
  return key;
}

function parsesAsPublicKey(pem: Buffer): boolean {
  try {
    createPublicKey(pem);
    return true;
  } catch {
    return false;
  }
}

/**
 * The envelope --verify names: a file, or a run folder holding attestation.intoto.json. Anything
 * else (a key, a results.json) is the user's mistake, not an altered attestation.
 */
export async function readEnvelope(path: string): Promise<{ file: string; envelope: Envelope }> {
  const file = existsSync(path) && statSync(path).isDirectory() ? join(path, ATTESTATION_FILE) : path;
  const text = (
    await namedFile(file, 'an attestation', 'sign the run first with report --sign KEY, then name its attestation.intoto.json')
  ).toString('utf8');
  const notOne = (): UsageError =>
    new UsageError(
      `${file} is ${/-----BEGIN [A-Z ]*KEY-----/.test(text) ? 'a key' : 'not an attestation'}: --verify takes the ${ATTESTATION_FILE} of report --sign, and --key the PREFIX.pub.`,
    );
  let envelope: Partial<Envelope>;
  try {
    envelope = JSON.parse(text) as Partial<Envelope>;
  } catch {
    throw notOne();
  }
  if (typeof envelope?.payload !== 'string' || typeof envelope.payloadType !== 'string' || !Array.isArray(envelope.signatures))
    throw notOne();
  return { file, envelope: envelope as Envelope };
}

/** Requirements judged PASS, WARN or XPASS while some of their tests did not run: a verdict on part of their tests. */
export function partlyJudged(results: Pick<Results, 'requirements'>): string[] {
  const judged: readonly Verdict[] = ['PASS', 'WARN', 'XPASS'];
  return results.requirements.filter((r) => judged.includes(r.verdict) && r.tests.some((t) => t.verdict === 'NOT_TESTED')).map((r) => r.id);
}

/**
 * summary.html and junit.xml were written after results.json (and the kept baseline) changed last:
 * they are the rendering of this results.json, and --sign may sign them as they are.
 */
export function attestedReportsCurrent(dir: string): boolean {
  const modified = (name: string): number | undefined => (existsSync(join(dir, name)) ? statSync(join(dir, name)).mtimeMs : undefined);
  const sources = [RESULTS_FILE, join(PREVIOUS_DIR, RESULTS_FILE)].map(modified).filter((t) => t !== undefined);
  const reports = ATTESTED_FILES.filter((f) => f !== RESULTS_FILE).map(modified);
  return reports.every((t) => t !== undefined && sources.every((s) => t >= s));
}

/** Signs the run folder's files: writes and returns `DIR/attestation.intoto.json`. */
export async function signRun(dir: string, results: Results, tool: ToolInfo, key: KeyObject): Promise<string> {
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
      // Recorded as null when absent: an earlier predicate without the member says nothing either way.
      interrupted: results.interrupted ?? null,
      expectations: results.expectations ?? null,
      partlyJudged: partlyJudged(results),
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
export async function verifyRun(envelopeFile: string, publicKeyFile: string, dir?: string): Promise<Verification> {
  const { file, envelope } = await readEnvelope(envelopeFile);
  const publicKey = await readVerifyingKey(publicKeyFile);
  const folder = dir ?? dirname(file);
  const payload = Buffer.from(envelope.payload, 'base64');
  const signed = envelope.signatures.some((s) =>
    verify(null, pae(envelope.payloadType, payload), publicKey, Buffer.from(s?.sig ?? '', 'base64')),
  );
  if (!signed) return { valid: false, problem: `the signature of ${basename(file)} does not verify with ${basename(publicKeyFile)}` };
  if (envelope.payloadType !== PAYLOAD_TYPE)
    return { valid: false, problem: `the payload type is ${envelope.payloadType}, not ${PAYLOAD_TYPE}` };
  const statement = JSON.parse(payload.toString('utf8')) as Statement;
  for (const s of statement.subject) {
    const subjectFile = join(folder, basename(s.name));
    if (!existsSync(subjectFile)) return { valid: false, problem: `${s.name} is missing from ${folder}` };
    if (sha256(await readFile(subjectFile)) !== s.digest.sha256)
      return { valid: false, problem: `${s.name} was altered since it was signed` };
  }
  return { valid: true, statement };
}

interface Predicate {
  target?: string;
  summary?: Partial<Record<Verdict, number>>;
  interrupted?: { signal: string; at: string; unfinished?: string[] } | null;
  expectations?: { file: string; platform?: string; files?: Array<{ file: string; sha256: string }> } | null;
  partlyJudged?: string[];
}

/**
 * What a valid attestation vouches for, as the verifier reads it: the target, FAIL and NOT_TESTED
 * counts, whether a signal stopped the run, the requirements judged on part of their tests and the
 * known deviations applied. The first line is the verdict; the others name what it rests on.
 */
export function describeAttestation(statement: Statement): string[] {
  const p = statement.predicate as Predicate;
  const count = (v: Verdict): string => `${p.summary?.[v] ?? '?'} ${v}`;
  const facts = [`target ${p.target ?? '?'}, ${count('FAIL')}, ${count('NOT_TESTED')}`];
  if (!('interrupted' in p)) facts.push('the attestation predates the record of interruptions');
  else if (p.interrupted) facts.push(`INTERRUPTED by ${p.interrupted.signal} at ${p.interrupted.at}`);
  else facts.push('not interrupted');
  const partly = p.partlyJudged ?? [];
  if (partly.length > 0) facts.push(`${partly.length} partly judged`);
  const lines = [`valid: ${statement.subject.map((s) => s.name).join(', ')} are as signed (${facts.join('; ')})`];
  if (p.interrupted?.unfinished?.length) lines.push(`  did not finish restoring what it wrote: ${p.interrupted.unfinished.join(', ')}`);
  if (partly.length > 0) lines.push(`  judged on part of their tests (some did not run): ${partly.join(', ')}`);
  if (p.expectations) {
    const files = p.expectations.files?.map((f) => `${f.file} (sha256 ${f.sha256.slice(0, 16)}…)`).join(', ') ?? p.expectations.file;
    lines.push(`  known deviations applied${p.expectations.platform ? ` for ${p.expectations.platform}` : ''}: ${files}`);
  }
  return lines;
}
