/**
 * Method calls (endpoint 10) and deletes (endpoint 11). The model only records a method's
 * argument signatures; what it does is decided here by interface and method name.
 */
import { basename } from 'node:path';
import type { Bus } from './bus.js';
import { HttpError } from './envelope.js';
import type { FaultName } from './faults.js';
import type { HostStateMachine } from './host-state.js';
import { checkRemoteName, type SoftwareRegistry } from './software.js';
import { fetchViaTftp, type TftpFetchLimits } from './tftp-download.js';
import { coerce, TypeMismatch, type DbusValue } from './types.js';

export class Actions {
  constructor(
    private readonly bus: Bus,
    private readonly registry: SoftwareRegistry,
    private readonly host: HostStateMachine,
    private readonly tftpLimits: TftpFetchLimits,
  ) {}

  private get iface(): string {
    return `xyz.${this.bus.namespace}`;
  }

  /** True when POST {path}/action/{method} names an existing method (otherwise rule 4: 403). */
  exists(path: string, method: string): boolean {
    return this.bus.tree.get(path)?.findMethod(method) !== undefined;
  }

  async call(path: string, method: string, body: unknown): Promise<unknown> {
    const found = this.bus.tree.get(path)?.findMethod(method);
    if (!found) throw new HttpError(403, `No method ${method} on ${path}`);
    const args = parseArgs(method, found.method.args, body);
    return this.invoke(path, found.interfaceName, method, args);
  }

  /** Runs a method whose arguments are already converted to its signature. */
  async invoke(path: string, interfaceName: string, method: string, args: DbusValue[]): Promise<unknown> {
    if (this.bus.faults.has('action-ignored')) return null;
    switch (`${interfaceName}.${method}`) {
      case `${this.iface}.Common.TFTP.DownloadViaTFTP`:
        return this.downloadViaTftp(args[0] as string, args[1] as string);
      case `${this.iface}.Common.FactoryReset.Reset`:
        return this.reset();
      case `${this.iface}.Object.Delete.Delete`:
        // The method itself: the DELETE verb's faults (delete-ignored, ...) are not the action's.
        this.removeWithNext(path, 'delete-action-removes-next-sibling');
        return null;
      default:
        return null;
    }
  }

  /** DELETE {path} (rule 5): only instances implementing Object.Delete. */
  delete(path: string): void {
    const obj = this.bus.tree.get(path);
    if (!obj) {
      if (this.bus.tree.hasNode(path)) throw new HttpError(403, `${path} is not a deletable instance`);
      throw new HttpError(404, `Path ${path} not found`);
    }
    if (!obj.implements(`${this.iface}.Object.Delete`)) {
      if (this.bus.faults.has('delete-nondeletable-404')) throw new HttpError(404, `Path ${path} not found`);
      if (!this.bus.faults.has('delete-nondeletable-succeeds')) {
        throw new HttpError(403, `${path} does not implement ${this.iface}.Object.Delete`);
      }
    } else if (this.bus.faults.has('delete-ignored')) {
      return;
    } else if (this.bus.faults.has('delete-drops-interface-only') && obj.interfaces.size > 1) {
      // Half a delete: the instance gives up its Delete interface and stays with the others.
      obj.interfaces.delete(`${this.iface}.Object.Delete`);
      return;
    }
    this.removeWithNext(path, 'delete-removes-next-sibling');
  }

  /** Removes an object, and with `fault` the one listed after it under the same parent too. */
  private removeWithNext(path: string, fault: FaultName): void {
    const next = this.bus.faults.has(fault) ? this.bus.nextSibling(path) : undefined;
    this.bus.removeObject(path);
    if (next !== undefined) this.bus.removeObject(next);
  }

  private async downloadViaTftp(file: string, server: string): Promise<unknown> {
    if (this.bus.faults.has('tftp-ignored')) return null;
    const image = await fetchViaTftp(file, server, this.tftpLimits);
    let name: string | undefined = basename(file);
    try {
      checkRemoteName(name);
    } catch {
      name = undefined;
    }
    const id = await this.registry.register(image, name, 'action');
    if (this.bus.faults.has('tftp-evicts-version')) this.registry.evictVersions(String(id), Infinity);
    return null;
  }

  private reset(): unknown {
    const faults = this.bus.faults;
    if (faults.has('reset-500')) throw new HttpError(500, 'Reset failed');
    if (faults.has('reset-ignored')) return null;
    const tree = this.bus.tree;
    const before = [...tree.objectPaths()].map((p) => tree.get(p)!);
    this.host.cancel();
    this.bus.loadInitialTree();
    if (faults.has('reset-keeps-versions')) {
      const software = `/xyz/${this.bus.namespace}/software/`;
      for (const obj of before) if (obj.path.startsWith(software) && !tree.get(obj.path)) tree.add(obj);
    }
    if (faults.has('reset-keeps-writes')) {
      for (const old of before) {
        const now = tree.get(old.path)?.attributes();
        for (const [name, ref] of old.attributes()) {
          const fresh = now?.get(name);
          if (fresh && !fresh.property.live) fresh.property.value = ref.property.value;
        }
      }
    }
    return null;
  }
}

function parseArgs(method: string, signatures: readonly string[], body: unknown): DbusValue[] {
  const data =
    body !== null && typeof body === 'object' && !Array.isArray(body) && Object.hasOwn(body, 'data')
      ? (body as { data: unknown }).data
      : undefined;
  if (!Array.isArray(data)) {
    throw new HttpError(400, `Method ${method} needs {"data": [arguments]}`);
  }
  if (data.length !== signatures.length) {
    throw new HttpError(400, `Method ${method} takes ${signatures.length} argument(s), got ${data.length}`);
  }
  return signatures.map((sig, i) => {
    try {
      return coerce(sig, data[i]);
    } catch (e) {
      if (e instanceof TypeMismatch) {
        throw new HttpError(400, `Argument ${i + 1} of ${method} has the wrong type (D-Bus signature ${sig})`);
      }
      throw e;
    }
  });
}
