// Lint rules for the whole repository (`npm run lint`): typescript-eslint's recommended rules
// with type information (`recommendedTypeChecked`: floating and misused promises among them),
// import cycles refused, formatting left to Prettier (`npm run format:check`).
//
// Type information comes from typescript-eslint's project service: each .ts file is checked in
// the program of the nearest tsconfig.json (the root one for contract/, server/, test/, bench/,
// openapi/, prisma/ and the root files; dashboard/tsconfig.json for the dashboard;
// test/frameworks/tsconfig.json for the framework tests, whose packages `.ci/run` installs
// first). The .js and .mjs files (the bin, build scripts) are linted without types.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '**/node_modules/',
      'dist/',
      '**/dist/',
      'dashboard/dist/',
      'server/db/generated/',
      'coverage/',
      'data/',
      'test/openapi-tools/.generated/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { console: 'readonly', process: 'readonly', URL: 'readonly', Buffer: 'readonly', setTimeout: 'readonly' },
    },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.mjs'] })],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // A promise nobody awaits is a bug unless it is meant to run on its own: such a call is
      // written `void call()` with a comment saying why it cannot reject or where its rejection
      // is handled, or ends in `.catch(...)`.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // Rules of `recommendedTypeChecked` not applied. The no-unsafe-* family: the tests read
      // supertest's and JSON.parse's `any` bodies field by field, and zod 3's own signatures
      // take `ZodTypeAny` (`no-explicit-any` still refuses an `any` written in the code).
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Interface methods that return promises are implemented by synchronous stores and fakes.
      '@typescript-eslint/require-await': 'off',
      // Methods passed as values (`expect(store.method)`, ts-rest's client methods in the dashboard) are not called unbound.
      '@typescript-eslint/unbound-method': 'off',
      // Rejections and stringified values of type `unknown` (a caught error, a Redis reply) are passed on as they came.
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
    },
  },
  {
    // The framework tests' types come from packages installed in test/frameworks only (CI
    // installs them before linting); without them a type is an error type, which this rule reports.
    files: ['test/frameworks/**/*.ts'],
    rules: { '@typescript-eslint/no-redundant-type-constituents': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { console: 'readonly', process: 'readonly', URL: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
