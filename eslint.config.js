import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['.tmp/**', 'dist/**', 'node_modules/**', 'data/**', 'bin/**', 'scripts/*.js'] },
  // The dashboard's browser script (plain ES5, served as is; no type information).
  { ignores: ['src/dashboard/assets/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      // Fastify plugins and handlers are async by contract even when they await nothing.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // The dependency direction of STYLE.md: services, repositories and the lower layers know
    // nothing of HTTP, so the worker and the CLI run the same code.
    files: [
      'src/**/service.ts',
      'src/**/repo.ts',
      'src/**/worker.ts',
      'src/webhooks/{sender,address-guard,signature,backoff}.ts',
      'src/lib/**',
      'src/store/**',
      'src/errors/**',
      'src/plans/**',
      'src/limits/**',
      'src/releases/**',
      'src/config/**',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['fastify', '@fastify/*', '**/http/*'], message: 'No HTTP below the routes.' },
          ],
        },
      ],
    },
  },
  {
    // Tests read JSON responses and files; asserting on them is the point, typing them is not.
    files: ['test/**/*.ts', 'src/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['eslint.config.js'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
