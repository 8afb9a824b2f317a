/**
 * The suites' worker thread may serve several runs one after another (lean runs keep it), and
 * modules load into it once. So each module the suites load that keeps state at its top level
 * must forget it when the next run starts (`forgetEachRun`), or a fault's run would read what the
 * last run found. The suite files themselves are evaluated again by every run.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { relativeImports, repositoryRoot, sourceFiles, type SourceFile } from './import-rules.js';

/** Top-level state that needs no forgetting, each with why. */
const KEPT: Readonly<Record<string, string>> = {
  'runner/run-channel.ts worker': 'replaced by joinRun when the next run joins',
  'client/package-root.ts cached': 'the package directory',
  'schemas/index.ts cache': 'compiled validators per namespace, from files that do not change',
  'schemas/index.ts rawSchemas': 'the schema files as read',
  'client/evidence.ts FORMS': 'the escaped forms of a secret, a pure function of it',
  'client/subscriber.ts openListeners':
    'who is told of each subscription (the events ledger, registered once at import), not what a run received',
};

/** Top-level names that can hold a run's state: a `let`, or an empty Map, Set or array. */
export function runStateNames(text: string): string[] {
  const names: string[] = [];
  for (const m of text.matchAll(/^(?:export )?let ([A-Za-z_$][\w$]*)/gm)) names.push(m[1]!);
  // An empty Map or Set, an empty array, or counters that all start at 0.
  const empty =
    /^(?:export )?const ([A-Za-z_$][\w$]*)(?:: [^=]+)? = (?:new (?:Map|Set)(?:<[^(]*>)?\(\)|\[\]|\{ (?:[^{}:,]+: 0(?:, )?)+ \});/gm;
  for (const m of text.matchAll(empty)) names.push(m[1]!);
  return names;
}

/** The names a module's `forgetEachRun` callbacks mention. */
export function forgottenNames(text: string): Set<string> {
  const names = new Set<string>();
  // One line, or a block closed by `});` at the start of a line.
  for (const m of text.matchAll(/^forgetEachRun\((?:\(\) => \{\n([\s\S]*?)\n\}|(.*))\);$/gm)) {
    for (const w of (m[1] ?? m[2]!).matchAll(/[A-Za-z_$][\w$]*/g)) names.add(w[0]);
  }
  return names;
}

/** The modules a suite run loads into its worker: from the suite files and the setup file, every relative import. */
function workerModules(files: readonly SourceFile[]): SourceFile[] {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const isSuite = (p: string) => /^suites\/[a-z-]+\/[a-z-]+\.suite\.ts$/.test(p);
  const todo = files.filter((f) => isSuite(f.path) || f.path === 'runner/vitest/suite-setup.ts').map((f) => f.path);
  const seen = new Set<string>();
  for (let p = todo.pop(); p !== undefined; p = todo.pop()) {
    if (seen.has(p)) continue;
    seen.add(p);
    const f = byPath.get(p);
    if (f) todo.push(...relativeImports(f));
  }
  return [...seen].filter((p) => !isSuite(p)).flatMap((p) => byPath.get(p) ?? []);
}

describe('layout: state of a run', () => {
  test('the detector finds a top-level let, Map, Set and counter left unforgotten, and accepts them forgotten', () => {
    const text = [
      'let slowest: number | undefined;',
      'const seen = new Set<string>();',
      'const byId = new Map<string, number>();',
      "const counts: Record<string, number> = { 'ENV-1': 0 };",
      'const FIXED = new Set([1, 2]);',
    ].join('\n');
    expect(runStateNames(text)).toEqual(['slowest', 'seen', 'byId', 'counts']);
    const forgetting = `${text}\nforgetEachRun(() => {\n  slowest = undefined;\n  seen.clear();\n  byId.clear();\n  counts['ENV-1'] = 0;\n});\n`;
    expect(runStateNames(forgetting).filter((n) => !forgottenNames(forgetting).has(n))).toEqual([]);
    expect(forgottenNames(text).size).toBe(0);
  });

  test('every module the suites load forgets what it keeps when the next run starts', () => {
    const files = sourceFiles(repositoryRoot(fileURLToPath(import.meta.url)));
    const modules = workerModules(files);
    // Sanity: the walk reached the harness, the client and the run channel.
    for (const p of ['suites/harness/check.ts', 'client/http.ts', 'runner/run-channel.ts']) expect(modules.map((m) => m.path)).toContain(p);
    const kept = modules.flatMap((m) => {
      const forgotten = forgottenNames(m.text);
      return runStateNames(m.text)
        .filter((n) => !forgotten.has(n) && !(`${m.path} ${n}` in KEPT))
        .map((n) => `${m.path}: ${n}`);
    });
    expect(kept, `kept from one run into the next:\n${kept.join('\n')}`).toEqual([]);
  });
});
