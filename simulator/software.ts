/**
 * Image registration, shared by uploads and DownloadViaTFTP: the tarball is extracted, its MANIFEST
 * read, and a software version object created under software/<id>. Registrations run one at a time
 * so that two concurrent uploads of one version cannot both succeed.
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tar from 'tar';
import type { Bus } from './bus.js';
import { HttpError } from './envelope.js';
import { DELETE_METHODS, versionId } from './initial-tree.js';
import { DbusObject } from './model.js';
import type { EventCause } from '../client/event-site.js';

export const UPLOAD_FAILED = 'Version already exists or failed to be extracted';

/** Extracted content beyond this is refused (a small archive can expand enormously). */
const MAX_EXTRACTED_BYTES = 64 * 1024 * 1024;
const MAX_MANIFEST_BYTES = 64 * 1024;

/**
 * A remote name is one plain file name: no separators, no parent references, and no percent
 * escapes (names are never decoded, so an escaped name is refused rather than guessed at).
 */
export function checkRemoteName(name: string): void {
  if (
    name.length === 0 ||
    name.length > 255 ||
    name.includes('/') ||
    name.includes('\\') ||
    name.includes('..') ||
    !/^[A-Za-z0-9._~+@=,-]+$/.test(name)
  ) {
    throw new HttpError(400, `Invalid image file name ${JSON.stringify(name.slice(0, 80))}`);
  }
}

interface Manifest {
  version: string;
  purpose: string;
}

export interface RegistryOptions {
  /**
   * A failed or duplicate registration answers only after this long, as a server that polls the
   * image manager for a new version does before giving up. Registrations stay serialised meanwhile.
   */
  failDelayMs?: number;
}

export class SoftwareRegistry {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly failDelayMs: number;
  /** Only with the reupload-refused fault: every version id ever registered. */
  private readonly remembered = new Set<string>();
  /** The ids of versions registered by an upload (not those the tree held at start). */
  private readonly uploaded = new Set<string>();

  constructor(
    private readonly bus: Bus,
    options: RegistryOptions = {},
  ) {
    this.failDelayMs = options.failDelayMs ?? 0;
  }

  /**
   * Registers an image; answers the version id. `storedName` is the remote name or undefined;
   * `cause` what the new version's signals carry (an upload, or the action that downloaded it).
   */
  register(image: Buffer, storedName: string | undefined, cause: EventCause = 'upload'): Promise<string | number> {
    const run = this.queue.then(() => this.registerNow(image, storedName, cause).catch((e) => this.failLate(e)));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async registerNow(image: Buffer, remoteName: string | undefined, cause: EventCause): Promise<string | number> {
    const faults = this.bus.faults;
    const name = remoteName ?? `image-${randomBytes(6).toString('hex')}`;
    const manifest = await this.extractManifest(image, name);
    if (!manifest) {
      if (faults.has('bad-image-accepted')) return this.answer(versionId(image.toString('base64')), remoteName);
      throw new HttpError(400, faults.has('bad-image-vague-description') ? 'The request could not be processed' : UPLOAD_FAILED);
    }
    const id = versionId(manifest.version);
    const path = `/xyz/${this.bus.namespace}/software/${id}`;
    if (this.bus.tree.get(path)) {
      if (faults.has('duplicate-accepted')) return this.answer(id, remoteName);
      // preexisting-duplicate-accepted: only what was uploaded is known to the duplicate check.
      if (faults.has('preexisting-duplicate-accepted') && !this.uploaded.has(id)) return this.answer(id, remoteName);
      if (faults.has('duplicate-500')) throw new HttpError(500, 'image manager failed');
      throw new HttpError(400, UPLOAD_FAILED);
    }
    if (faults.has('reupload-refused')) {
      if (this.remembered.has(id)) throw new HttpError(400, UPLOAD_FAILED);
      this.remembered.add(id);
    }
    this.bus.withCause(cause, () => {
      if (!faults.has('upload-not-registered')) this.bus.addObject(this.versionObject(path, manifest, name));
      this.uploaded.add(id);
      if (faults.has('upload-evicts-oldest')) this.evictVersions(id, 1);
      if (faults.has('upload-alters-other-versions')) this.invalidateOthers(id, manifest.purpose);
    });
    return this.answer(id, remoteName);
  }

  /** Removes up to `max` versions other than `id` that are not active (the *-evicts-* faults). */
  evictVersions(id: string, max: number): void {
    const software = `/xyz/${this.bus.namespace}/software`;
    const active = `xyz.${this.bus.namespace}.Software.Activation.Activations.Active`;
    const others = this.bus.tree
      .childrenOf(software)
      .filter((p) => p !== `${software}/${id}` && this.bus.tree.get(p)?.attributes().get('Activation')?.property.value !== active);
    for (const p of others.slice(0, max)) this.bus.removeObject(p);
  }

  /** Sets the Activation of the other versions of `purpose` to Invalid (upload-alters-other-versions). */
  private invalidateOthers(id: string, purpose: string): void {
    const software = `/xyz/${this.bus.namespace}/software`;
    for (const p of this.bus.tree.childrenOf(software)) {
      const attrs = p === `${software}/${id}` ? undefined : this.bus.tree.get(p)?.attributes();
      const ref = attrs?.get('Activation');
      if (ref && attrs?.get('Purpose')?.property.value === purpose) {
        this.bus.setProperty(p, ref, 'Activation', `xyz.${this.bus.namespace}.Software.Activation.Activations.Invalid`);
      }
    }
  }

  private async failLate(e: unknown): Promise<never> {
    if (this.failDelayMs > 0 && e instanceof HttpError && e.status === 400) {
      await new Promise((resolve) => setTimeout(resolve, this.failDelayMs).unref());
    }
    throw e;
  }

  /**
   * The id as answered: the upload-id faults change POST /upload/image's answer (no remote name)
   * only; upload-named-id-of-name answers a PUT with the id of the file name instead of the version.
   */
  private answer(id: string, remoteName: string | undefined): string | number {
    if (remoteName !== undefined) return this.bus.faults.has('upload-named-id-of-name') ? versionId(remoteName) : id;
    if (this.bus.faults.has('upload-id-empty')) return '';
    // upload-id-not-version: a hash string like a version id, but not the id of the version that appeared.
    if (this.bus.faults.has('upload-id-not-version')) return versionId(`received ${id}`);
    return this.bus.faults.has('upload-id-as-number') ? parseInt(id, 16) : id;
  }

  private versionObject(path: string, m: Manifest, storedName: string): DbusObject {
    const I = `xyz.${this.bus.namespace}`;
    return new DbusObject(path)
      .addInterface(`${I}.Software.Version`, {
        Version: { signature: 's', value: m.version, writable: false },
        Purpose: { signature: 's', value: m.purpose, writable: false },
      })
      .addInterface(`${I}.Software.Activation`, {
        Activation: { signature: 's', value: `${I}.Software.Activation.Activations.Ready`, writable: false },
        RequestedActivation: {
          signature: 's',
          value: `${I}.Software.Activation.RequestedActivations.None`,
          writable: false,
        },
      })
      .addInterface(`${I}.Common.FilePath`, {
        Path: { signature: 's', value: `/tmp/images/${storedName}`, writable: false },
      })
      .addInterface(`${I}.Object.Delete`, {}, DELETE_METHODS);
  }

  /** Extracts the tarball into a private temp dir and reads MANIFEST; undefined when invalid. */
  private async extractManifest(image: Buffer, storedName: string): Promise<Manifest | undefined> {
    const dir = await mkdtemp(join(tmpdir(), 'bmc-sim-image-'));
    try {
      // The image keeps its stored name in its own folder, apart from the extraction folder.
      const file = join(dir, 'image', storedName);
      const out = join(dir, 'extracted');
      await mkdir(join(dir, 'image'));
      await mkdir(out);
      await writeFile(file, image);
      let total = 0;
      let tooBig = false;
      await tar.x({
        file,
        cwd: out,
        strict: true,
        // Regular files and directories only; no links, devices or absolute paths.
        filter: (_p, entry) => {
          const e = entry as { type?: string; size?: number };
          if (e.type !== 'File' && e.type !== 'OldFile' && e.type !== 'Directory') return false;
          total += e.size ?? 0;
          if (total > MAX_EXTRACTED_BYTES) tooBig = true;
          return !tooBig;
        },
      });
      if (tooBig) return undefined;
      const manifestPath = join(out, 'MANIFEST');
      const st = await lstat(manifestPath).catch(() => undefined);
      if (!st || !st.isFile() || st.size > MAX_MANIFEST_BYTES) return undefined;
      return this.parseManifest(await readFile(manifestPath, 'utf8'));
    } catch {
      return undefined;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private parseManifest(text: string): Manifest | undefined {
    const fields = new Map<string, string>();
    for (const line of text.split(/\r?\n/)) {
      const eq = line.indexOf('=');
      if (eq > 0) fields.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
    }
    const version = fields.get('version');
    const purpose = fields.get('purpose');
    const I = `xyz.${this.bus.namespace}`;
    const purposes = [`${I}.Software.Version.VersionPurpose.BMC`, `${I}.Software.Version.VersionPurpose.Host`];
    if (!version || !purpose || !purposes.includes(purpose)) return undefined;
    return { version, purpose };
  }
}
