import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';

/**
 * The layers of src/ (docs/architecture.md). Foundations know no feature; the HTTP kit
 * (src/http) knows only foundations; a feature reaches another feature only through its
 * index.ts; only the entry points (src/main) and the app's assembly (src/app) see every
 * feature, each through its index.ts.
 */
const FOUNDATIONS = ['lib', 'errors', 'config', 'store', 'auth', 'plans', 'limits', 'formats'];
const SHELL = ['http', 'app', 'main'];
const FEATURES = readdirSync(fileURLToPath(new globalThis.URL('./src', import.meta.url)), {
  withFileTypes: true,
})
  .filter((d) => d.isDirectory() && !FOUNDATIONS.includes(d.name) && !SHELL.includes(d.name))
  .map((d) => d.name);
const foundation = FOUNDATIONS.join('|');
/** A relative import of another folder's file other than its index.ts, except from `exempt`. */
const featureFile = (exempt) =>
  `^\\.\\./(?!(${[...FOUNDATIONS, ...exempt].join('|')})/)[a-z-]+/(?!index\\.js$)`;

/** One request path: no server of our own beside Fastify's, no reading of connections. */
const ONE_REQUEST_PATH = [
  {
    selector:
      "CallExpression[callee.property.name=/^(on|once|addListener|prependListener|prependOnceListener)$/][arguments.0.value='connection']",
    message: "No 'connection' listener: every request is Fastify's (docs/architecture.md).",
  },
  {
    selector: "Property[key.name='serverFactory']",
    message: "No serverFactory: every request is Fastify's (docs/architecture.md).",
  },
  {
    selector:
      'ImportDeclaration[source.value=/^(node:)?(http|https|http2|net|tls)$/] ImportSpecifier[imported.name=/^(createServer|createSecureServer|Server)$/]',
    message:
      "No server of node's beside Fastify's: every request is Fastify's (docs/architecture.md).",
  },
  {
    selector:
      'CallExpression[callee.object.name=/^(http|https|http2|net|tls)$/][callee.property.name=/^create(Secure)?Server$/]',
    message:
      "No server of node's beside Fastify's: every request is Fastify's (docs/architecture.md).",
  },
];

const SQL_START = '/^\\s*(SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|ALTER|DROP|TRUNCATE|LOCK)\\b/';
const SQL_MESSAGE =
  'SQL belongs in a repository (repo.ts, repo-*.ts, *-repo.ts) or the store: call one (docs/architecture.md).';
/** A query call whose first argument is SQL text, outside the repositories. */
const SQL_OUTSIDE_REPOSITORIES = [
  {
    selector: `CallExpression[callee.property.name=/^(query|exec)$/][arguments.0.type='Literal'][arguments.0.value=${SQL_START}]`,
    message: SQL_MESSAGE,
  },
  {
    selector: `CallExpression[callee.property.name=/^(query|exec)$/][arguments.0.type='TemplateLiteral'][arguments.0.quasis.0.value.raw=${SQL_START}]`,
    message: SQL_MESSAGE,
  },
];

export default tseslint.config(
  {
    ignores: [
      '.tmp/**',
      'dist/**',
      'clients/typescript/dist/**',
      'node_modules/**',
      'data/**',
      'bin/**',
      'scripts/*.js',
    ],
  },
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
    // The dependency direction of docs/architecture.md ("Layers"): services, repositories and
    // the lower layers know nothing of HTTP, so the worker and the CLI run the same code.
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
    // The worker entry point composes jobs, some of them the kit's (the idempotency purge).
    ignores: ['src/main/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
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
    // No import cycles anywhere in src/.
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // One request path: no server of our own beside Fastify's, no reading of connections.
    files: ['src/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...ONE_REQUEST_PATH] },
  },
  {
    // SQL lives in repositories (repo.ts, repo-*.ts, *-repo.ts), the store and the migrations.
    files: ['src/**/*.ts'],
    ignores: [
      'src/**/repo.ts',
      'src/**/repo-*.ts',
      'src/**/*-repo.ts',
      'src/store/**',
      'src/**/*.test.ts',
    ],
    rules: { 'no-restricted-syntax': ['error', ...ONE_REQUEST_PATH, ...SQL_OUTSIDE_REPOSITORIES] },
  },
  {
    // The release is rebuilt byte for byte on every Node line: powers go through pow() of
    // scripts/release-model/math.ts, since Math.pow and ** round differently across V8 versions.
    files: ['scripts/build-release.ts', 'scripts/release-model/**/*.ts'],
    ignores: ['scripts/release-model/math.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "BinaryExpression[operator='**']:not([right.value=2])",
          message:
            'Use pow() from scripts/release-model/math.ts: ** rounds differently across Node lines.',
        },
        {
          selector: "CallExpression[callee.object.name='Math'][callee.property.name='pow']",
          message:
            'Use pow() from scripts/release-model/math.ts: Math.pow rounds differently across Node lines.',
        },
      ],
    },
  },
  {
    // The HTTP kit knows no feature: it imports foundations and itself only.
    files: ['src/http/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^\\.\\./(?!(${foundation})/)`,
              message: 'src/http is the kit every route uses: it imports no feature, app or main.',
            },
          ],
        },
      ],
    },
  },
  ...FEATURES.map((feature) => ({
    // A feature reaches another feature only through its index.ts, and never the shell.
    files: [`src/${feature}/**/*.ts`],
    ignores: ['src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: featureFile(['http']),
              message: 'Import another feature through its index.ts.',
            },
            {
              regex: '^\\.\\./(app|main)/',
              message: 'Features never import the app assembly or the entry points.',
            },
          ],
        },
      ],
    },
  })),
  {
    // The app's assembly and the entry points compose features through their index.ts too.
    files: ['src/app/**/*.ts', 'src/main/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: featureFile(SHELL),
              message: 'Compose a feature through its index.ts.',
            },
          ],
        },
      ],
    },
  },
  {
    // Routes and dashboard pages call services: they import no repository and take no
    // database handle, so every read and write goes through the feature's service.
    files: [
      'src/**/routes.ts',
      'src/**/routes-*.ts',
      'src/**/*-routes.ts',
      'src/dashboard/**/*.ts',
    ],
    ignores: ['src/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/repo.js', '**/repo-*.js', '**/*-repo.js'],
              message: 'Routes and dashboard pages call services, never a repository.',
            },
            {
              group: ['**/store/index.js'],
              importNames: ['Db', 'Queryable'],
              message: 'Routes and dashboard pages call services, never the database.',
            },
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
