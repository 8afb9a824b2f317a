/**
 * The folder-level import rule of the repository, and a checker for it. The graph runs downward:
 * cli → runner → report / load / simulator → client / catalogue / schemas; the suites sit on top of
 * the runner's config (the runner starts them by file, never by import).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import ts from 'typescript';

/** Top-level folder → the top-level folders its files may not import. Folders not named are free. */
export const FORBIDDEN: Readonly<Record<string, readonly string[]>> = {
  runner: ['suites', 'cli'],
  report: ['suites', 'cli', 'runner', 'load'],
  load: ['suites', 'cli', 'runner', 'report'],
  client: ['suites', 'cli', 'runner', 'report', 'load', 'simulator'],
  catalogue: ['suites', 'cli', 'runner', 'report', 'load', 'simulator'],
  schemas: ['suites', 'cli', 'runner', 'report', 'load', 'simulator'],
  simulator: ['suites', 'cli', 'runner', 'load', 'report'],
};

/** A source file, by its path from the repository root (with `/`), and its text. */
export interface SourceFile {
  path: string;
  text: string;
}

export interface Violation {
  from: string;
  to: string;
  /** Human-readable: `client/results.ts → suites/harness/check.ts (runner/ may not import suites/)`. */
  message: string;
}

const topFolder = (path: string): string => (path.includes('/') ? path.slice(0, path.indexOf('/')) : '.');

/**
 * The relative imports of a file (static imports and re-exports, `import()` expressions and
 * `import("…")` types), each resolved to a path from the repository root, `.js` read as `.ts`.
 */
export function relativeImports(file: SourceFile): string[] {
  const { importedFiles } = ts.preProcessFile(file.text, true, true);
  return importedFiles
    .map((f) => f.fileName)
    .filter((spec) => spec.startsWith('./') || spec.startsWith('../'))
    .map((spec) => posix.normalize(posix.join(posix.dirname(file.path), spec)).replace(/\.js$/, '.ts'));
}

/** Every import of the files that breaks the rule. */
export function importViolations(
  files: readonly SourceFile[],
  forbidden: Readonly<Record<string, readonly string[]>> = FORBIDDEN,
): Violation[] {
  const out: Violation[] = [];
  for (const file of files) {
    const from = topFolder(file.path);
    const banned = forbidden[from] ?? [];
    for (const target of relativeImports(file)) {
      const to = topFolder(target);
      if (to !== from && banned.includes(to)) {
        out.push({ from: file.path, to: target, message: `${file.path} → ${target} (${from}/ may not import ${to}/)` });
      }
    }
  }
  return out;
}

const SKIP = new Set(['node_modules', 'dist', 'reports', 'allure-results', '.git']);

/** The repository's non-test TypeScript files (no `*.test.ts`, no `.d.ts`). */
export function sourceFiles(root: string): SourceFile[] {
  const out: SourceFile[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || SKIP.has(entry.name)) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) {
        out.push({ path: relative(root, full).split(sep).join('/'), text: readFileSync(full, 'utf8') });
      }
    }
  };
  walk(root);
  return out;
}

/** The repository root, from this file (test/layout/ in the sources, dist/test/layout/ when built). */
export function repositoryRoot(here: string): string {
  const up = join(dirname(here), '..', '..');
  return up.endsWith(`${sep}dist`) ? dirname(up) : up;
}

/**
 * The import circles among `files` (static, re-exported and dynamic imports alike), each as the
 * files around it, smallest first: a circle means two modules cannot be read, tested or moved apart.
 */
export function importCircles(files: readonly SourceFile[]): string[][] {
  const known = new Set(files.map((f) => f.path));
  const edges = new Map(files.map((f) => [f.path, relativeImports(f).filter((p) => known.has(p))]));
  // Tarjan's strongly connected components: every component of more than one file holds a circle.
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string): void => {
    order.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, order.get(w)!));
      }
    }
    if (low.get(v) !== order.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (edges.get(v) ?? []).includes(v)) circles.push(component.sort());
  };
  for (const f of [...known].sort()) if (!order.has(f)) visit(f);
  return circles.sort((a, b) => a.length - b.length || a[0]!.localeCompare(b[0]!));
}
