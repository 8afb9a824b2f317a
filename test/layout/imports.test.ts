/** The import graph runs downward only (see the README's "Layout"): a test walks every import. */
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { importCircles, importViolations, relativeImports, repositoryRoot, sourceFiles } from './import-rules.js';

describe('layout: imports', () => {
  test('no file imports from a folder above its own', () => {
    const files = sourceFiles(repositoryRoot(fileURLToPath(import.meta.url)));
    // Sanity: the walk found the tree, not an empty or wrong directory.
    expect(files.some((f) => f.path === 'runner/run.ts')).toBe(true);
    expect(files.some((f) => f.path.startsWith('suites/'))).toBe(true);
    expect(files.some((f) => f.path.endsWith('.test.ts'))).toBe(false);
    const violations = importViolations(files).map((v) => v.message);
    expect(violations, `upward imports:\n${violations.join('\n')}`).toEqual([]);
  });

  test('no import circle: every module can be read and tested without the ones that import it', () => {
    const files = sourceFiles(repositoryRoot(fileURLToPath(import.meta.url)));
    const circles = importCircles(files).map((c) => c.join(' ↔ '));
    expect(circles, `import circles:\n${circles.join('\n')}`).toEqual([]);
  });

  test('no folder imports a folder that imports it: the folders themselves form no circle', () => {
    const files = sourceFiles(repositoryRoot(fileURLToPath(import.meta.url)));
    const top = (path: string): string => path.slice(0, path.indexOf('/'));
    // One module per folder, importing every folder its files import: a circle here is an arrow up.
    const folders = new Map<string, Set<string>>();
    for (const f of files.filter((f) => f.path.includes('/'))) {
      const to = folders.get(top(f.path)) ?? new Set<string>();
      for (const target of relativeImports(f)) if (top(target) !== top(f.path)) to.add(top(target));
      folders.set(top(f.path), to);
    }
    const asFiles = [...folders].map(([folder, to]) => ({
      path: `${folder}/index.ts`,
      text: [...to].map((t) => `import '../${t}/index.js';`).join('\n'),
    }));
    const circles = importCircles(asFiles).map((c) => c.map(top).join(' ↔ '));
    expect(circles, `folder circles:\n${circles.join('\n')}`).toEqual([]);
  });

  test('the circle finder finds a two-file and a three-file circle, and not a diamond', () => {
    const file = (path: string, ...imports: string[]) => ({
      path,
      text: imports.map((i) => `import { x } from './${i}.js';`).join('\n'),
    });
    const files = [
      file('runner/a.ts', 'b'),
      file('runner/b.ts', 'a'),
      file('runner/c.ts', 'd'),
      file('runner/d.ts', 'e'),
      file('runner/e.ts', 'c'),
      file('runner/top.ts', 'left', 'right'),
      file('runner/left.ts', 'bottom'),
      file('runner/right.ts', 'bottom'),
      file('runner/bottom.ts'),
    ];
    expect(importCircles(files)).toEqual([
      ['runner/a.ts', 'runner/b.ts'],
      ['runner/c.ts', 'runner/d.ts', 'runner/e.ts'],
    ]);
  });

  test('the checker finds static, re-exported and dynamic imports, and ignores comments and strings', () => {
    const text = [
      "import type { CheckMeta } from '../suites/harness/check.js';",
      "export { run } from './run.js';",
      "const cli = await import('../cli/main.js');",
      "import 'node:fs';",
      "// import { nope } from '../suites/nope.js';",
      'const s = "from \'../suites/string.js\'";',
    ].join('\n');
    expect(relativeImports({ path: 'runner/example.ts', text })).toEqual(['suites/harness/check.ts', 'runner/run.ts', 'cli/main.ts']);
  });

  test('the checker reports an upward import as file → imported file', () => {
    const files = [
      {
        path: 'runner/verdict.ts',
        text: "import type { CheckMeta } from '../suites/harness/check.js';\nimport { x } from '../client/http.js';",
      },
      { path: 'client/http.ts', text: "const r = await import('../runner/config.js');" },
      { path: 'suites/a.suite.ts', text: "import { runConfig } from '../runner/config.js';" },
      { path: 'simulator/index.ts', text: "export * from './server.js';" },
    ];
    expect(importViolations(files).map((v) => v.message)).toEqual([
      'runner/verdict.ts → suites/harness/check.ts (runner/ may not import suites/)',
      'client/http.ts → runner/config.ts (client/ may not import runner/)',
    ]);
  });
});
