/**
 * What the fuzzer knows about the target: the discovered tree, its attributes and the actions the
 * spec shows. Arbitraries are built from this model, so generated requests aim at what the target
 * really has. Everything is sorted: the same tree always gives the same arbitraries, which is what
 * makes `--seed` plus a fast-check path replay a case exactly.
 */
import type { BmcClient } from '../../client/http.js';
import { cached, list, rootAttributeMaps } from '../harness/tree.js';
import type { TreeSnapshot } from '../../client/tree-reads.js';
import { treeKnowledge, type TreeKnowledge } from '../harness/leak.js';

export type ValueKind = 'string' | 'enum' | 'integer' | 'bool01' | 'boolean' | 'float' | 'array' | 'object' | 'null';

export interface TargetModel {
  ns: string;
  /** `/xyz/{ns}` */
  root: string;
  /** root and every descendant, sorted (root first). */
  nodes: string[];
  /** Path bases for generated requests: '/', '/xyz', then `nodes`, then the fixed routes. */
  bases: string[];
  /** Nodes with descendants (list and enumerate have something to say about them). */
  parents: string[];
  /** Every (object path, attribute name) of the tree, sorted. */
  attrPairs: Array<readonly [string, string]>;
  /** Distinct attribute names, sorted. */
  attrNames: string[];
  /** The kind of each attribute's value, by "path\u0000name". */
  kinds: Map<string, ValueKind>;
  /** Actions the spec shows, with their arity: path, method, number of arguments. */
  actions: Array<readonly [string, string, number]>;
  /** A path under the namespace that names nothing, for mutating requests that must not land. */
  sentinel: string;
  /** What the leak oracle knows of the tree (AUTH-5). */
  knowledge: TreeKnowledge;
}

export function kindOf(value: unknown): ValueKind {
  if (value === null) return 'null';
  if (typeof value === 'string') return /^xyz\.[^.]+\./.test(value) ? 'enum' : 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'bigint') return 'integer';
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) return 'float';
    return value === 0 || value === 1 ? 'bool01' : 'integer';
  }
  return Array.isArray(value) ? 'array' : 'object';
}

/** Builds the model from a listing and an enumeration of the namespace root. */
export function buildModel(
  ns: string,
  listing: readonly string[],
  enumeration: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
): TargetModel {
  const root = `/xyz/${ns}`;
  const descendants = [...new Set(listing.filter((p) => p.startsWith(`${root}/`)))].sort();
  const nodes = [root, ...descendants];
  const withChildren = new Set(descendants.map((d) => d.slice(0, d.lastIndexOf('/'))));
  const parents = nodes.filter((n) => withChildren.has(n));
  const attrPairs: Array<readonly [string, string]> = [];
  const kinds = new Map<string, ValueKind>();
  const names = new Set<string>();
  for (const path of Object.keys(enumeration).sort()) {
    const attrs = enumeration[path] ?? {};
    for (const name of Object.keys(attrs).sort()) {
      attrPairs.push([path, name] as const);
      kinds.set(`${path}\u0000${name}`, kindOf(attrs[name]));
      names.add(name);
    }
  }
  const actions: Array<readonly [string, string, number]> = [];
  if (nodes.includes(`${root}/software`)) {
    actions.push([`${root}/software`, 'DownloadViaTFTP', 2] as const, [`${root}/software`, 'Reset', 0] as const);
  }
  // No Delete of the target's own instances: a lenient server might take even wrong arguments, and
  // a run deletes only what it created itself.
  return {
    ns,
    root,
    nodes,
    bases: ['/', '/xyz', ...nodes, '/login', '/upload/image', '/subscribe'],
    parents,
    attrPairs,
    attrNames: [...names].sort(),
    kinds,
    actions,
    sentinel: `${root}/bmc_conformance_fuzz`,
    knowledge: treeKnowledge(root, listing, enumeration),
  };
}

/**
 * The model of the target the shared client talks to; the reads are cached for the run, the
 * attribute maps read as the run planned (`how`, tree.ts attributeMaps).
 */
export async function loadModel(client: BmcClient, ns: string, how?: TreeSnapshot): Promise<TargetModel> {
  const root = `/xyz/${ns}`;
  const listing = await cached('list:root', () => list(client, root));
  const enumeration = await rootAttributeMaps(client, root, how);
  return buildModel(ns, listing, enumeration);
}
