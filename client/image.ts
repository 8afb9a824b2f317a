/**
 * Software image tarballs for upload tests: a plain tar with a MANIFEST, as the image manager of
 * the target expects, plus corrupt variants for the failure cases.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, sep } from 'node:path';
import { Parser, create, type ReadEntry } from 'tar';

export const DEFAULT_NAMESPACE = 'openbmc_project';

export interface ImageSpec {
  version: string;
  /** Default `xyz.{namespace}.Software.Version.VersionPurpose.BMC`. */
  purpose?: string;
  /** Vendor word of the target's D-Bus names; default openbmc_project. */
  namespace?: string;
  /** Files besides MANIFEST; default a small `image-bmc` payload. */
  extraFiles?: Record<string, Buffer | string>;
}

/** The MANIFEST text of an image. */
export function manifestText(version: string, purpose: string): string {
  return `purpose=${purpose}\nversion=${version}\n`;
}

export function defaultPurpose(namespace = DEFAULT_NAMESPACE): string {
  return `xyz.${namespace}.Software.Version.VersionPurpose.BMC`;
}

/** Builds an image tarball in memory. */
export async function buildImage(spec: ImageSpec): Promise<Buffer> {
  const purpose = spec.purpose ?? defaultPurpose(spec.namespace);
  const extra = spec.extraFiles ?? { 'image-bmc': payloadFor(spec.version) };
  return tarOf({ MANIFEST: manifestText(spec.version, purpose), ...extra });
}

/** A valid tar archive that lacks the MANIFEST. */
export function imageWithoutManifest(version = 'no-manifest'): Promise<Buffer> {
  return tarOf({ 'image-bmc': payloadFor(version) });
}

/** Bytes that no tar reader accepts as an archive. */
export function corruptImage(): Buffer {
  const block = Buffer.alloc(1024, 0x5a);
  block.write('this is not a tar archive\n', 0, 'ascii');
  return block;
}

/**
 * The version id convention of the simulator: the first 8 hex digits of sha512(version).
 * Real targets may derive ids differently; suites must not assume it for them.
 */
export function versionId(version: string): string {
  return createHash('sha512').update(version).digest('hex').slice(0, 8);
}

/** Reads the regular files of a tar archive (for tests and for the simulator's image handling). */
export function readImage(archive: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    const files = new Map<string, Buffer>();
    const parser = new Parser({
      strict: true,
      onReadEntry: (entry: ReadEntry) => {
        const chunks: Buffer[] = [];
        entry.on('data', (c: Buffer) => chunks.push(c));
        entry.on('end', () => {
          if (entry.type === 'File' || entry.type === 'OldFile') files.set(entry.path, Buffer.concat(chunks));
        });
      },
    });
    parser.on('error', reject);
    parser.on('end', () => resolve(files));
    parser.end(archive);
  });
}

/** Parses a MANIFEST into its key=value pairs. */
export function parseManifest(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const eq = line.indexOf('=');
    if (eq > 0) out[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return out;
}

function payloadFor(version: string): Buffer {
  return Buffer.from(`bmc-conformance test payload for version ${version}\n`, 'utf8');
}

/** tar wants files on disk: write them to a private temp dir, pack, and remove the dir. */
async function tarOf(files: Record<string, Buffer | string>): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'bmc-image-'));
  try {
    const names = Object.keys(files);
    for (const name of names) {
      const target = normalize(join(dir, name));
      if (!target.startsWith(dir + sep)) throw new RangeError(`Image file name ${JSON.stringify(name)} leaves the archive.`);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, files[name] as Buffer | string);
    }
    // Fixed mtime and portable headers keep the archive identical for identical input.
    return await create({ cwd: dir, portable: true, mtime: new Date(0), noDirRecurse: true }, names).concat();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
