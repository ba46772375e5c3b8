// @ts-check
// ESLint for the whole tree: `npm run lint` (part of `npm test`) runs Prettier's check and
// then this. typescript-eslint `strict` everywhere, with one exception for tests and benchmarks.
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The named (or default) `z` of the zod root pulls every zod locale into each Lambda bundle; the
 * namespace import keeps only what a bundle uses. (`no-restricted-imports` cannot tell a namespace
 * import from a named one: it reports `import * as z` too, hence selectors.)
 */
const zodRoot = 'ImportDeclaration[source.value=/^zod(\\u002Fv4)?$/]';
const zodMessage =
  "Import zod as a namespace, `import * as z from 'zod'`: the named `z` keeps every zod locale in each Lambda bundle (named imports from 'zod/mini' are fine).";

export default tseslint.config(
  {
    ignores: ['node_modules/', 'cdk.out/', 'coverage/', 'test-output/', '.data/', '.data-repositories/', '**/*.generated.ts'],
  },
  eslint.configs.recommended,
  tseslint.configs.strict,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly' },
    },
    rules: {
      // `const { dropped: _, ...rest } = value` is how an object without one property is made.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      'no-restricted-syntax': [
        'error',
        { selector: `${zodRoot} > ImportSpecifier[imported.name=/^(z|default)$/]`, message: zodMessage },
        { selector: `${zodRoot} > ImportDefaultSpecifier`, message: zodMessage },
        { selector: `${zodRoot.replace('Import', 'ExportNamed')} > ExportSpecifier[local.name=/^(z|default)$/]`, message: zodMessage },
      ],
    },
  },
  {
    // A `!` in a test or a benchmark fails loudly at once, which is what it should do there
    // (a route's steps in the deployed day are test code).
    files: ['test/**', 'bench/**', 'functions/*/day.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // Every answer the tests get from the API is checked against its route's contract.
    files: ['test/**', 'functions/*/day.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        {
          name: 'fetch',
          message:
            "Call the API with test/support/http.ts (startTestApi, or checkedFetch), which checks each answer against its route's contract.",
        },
      ],
    },
  },
  {
    // CommonJS configuration files (.dependency-cruiser.cjs).
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { module: 'writable', require: 'readonly', exports: 'writable', __dirname: 'readonly', __filename: 'readonly' },
    },
  },
);
