/** The import graph runs downward only (see the README's "Layout"): a test walks every import. */
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { importViolations, relativeImports, repositoryRoot, sourceFiles } from './import-rules.js';

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

  test('the checker finds static, re-exported and dynamic imports, and ignores comments and strings', () => {
    const text = [
      "import type { CheckMeta } from '../suites/support/check.js';",
      "export { run } from './run.js';",
      "const cli = await import('../cli/main.js');",
      "import 'node:fs';",
      "// import { nope } from '../suites/nope.js';",
      'const s = "from \'../suites/string.js\'";',
    ].join('\n');
    expect(relativeImports({ path: 'runner/example.ts', text })).toEqual(['suites/support/check.ts', 'runner/run.ts', 'cli/main.ts']);
  });

  test('the checker reports an upward import as file → imported file', () => {
    const files = [
      {
        path: 'runner/verdict.ts',
        text: "import type { CheckMeta } from '../suites/support/check.js';\nimport { x } from '../client/http.js';",
      },
      { path: 'client/http.ts', text: "const r = await import('../runner/config.js');" },
      { path: 'suites/a.suite.ts', text: "import { runConfig } from '../runner/config.js';" },
      { path: 'simulator/index.ts', text: "export * from './server.js';" },
    ];
    expect(importViolations(files).map((v) => v.message)).toEqual([
      'runner/verdict.ts → suites/support/check.ts (runner/ may not import suites/)',
      'client/http.ts → runner/config.ts (client/ may not import runner/)',
    ]);
  });
});
