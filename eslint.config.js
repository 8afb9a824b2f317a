// Lint: typescript-eslint's recommended rules plus the type-aware ones that catch what review misses
// (a promise nobody awaits, a value computed and dropped). Style is Prettier's job, not ESLint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'reports/', 'coverage/', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['vitest.config.ts'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-unused-expressions': 'error',
      // A closure that may run before the assignment (a stop callback wired before the instance exists).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Protocol code matches control characters on purpose (NUL in paths, raw header bytes).
      'no-control-regex': 'off',
    },
  },
  {
    // Tests and benchmarks read JSON bodies of any shape; their assertions give them a type.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
