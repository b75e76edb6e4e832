import { createRequire } from 'node:module';

// typescript-eslint, and the TypeScript 6 it reads the types with, live in the tools/lint workspace:
// TypeScript 7, which builds the project, has no compiler API for it (tools/lint/package.json).
const require = createRequire(new URL('./tools/lint/package.json', import.meta.url));
const tseslint = require('typescript-eslint');

/** Above this a function gets a comment that says why it cannot be split, and an eslint-disable beside it. */
const MAX_COMPLEXITY = 20;

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'tools/lint/node_modules/**',
      'fixtures/**',
      // Generated tables: their generators write them and a test holds them to the installed servers.
      'src/languages/apache/directive-arguments.ts',
      'src/languages/apache/module-directives.ts',
    ],
  },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.strictTypeChecked, tseslint.configs.stylisticTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      complexity: ['error', MAX_COMPLEXITY],
      // Numbers and booleans read well in messages; objects and undefined are the mistakes this rule is for.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // node:test's describe and it return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
      ],
      // `value as string` after a checked index is the house style: strictTypeChecked forbids the `value!` this rule asks for.
      '@typescript-eslint/non-nullable-type-assertion-style': 'off',
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // A getter on the prototype costs a node nothing; a readonly field is one more slot on each of a big tree's nodes.
      '@typescript-eslint/class-literal-property-style': 'off',
      // `const { fix: _dropped, ...rest } = diagnostic` is how an object loses a property; `_ctx` is a parameter kept on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true, argsIgnorePattern: '^_' }],
      // `async` states an API's contract (it returns a promise) whether or not today's body awaits.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    rules: { complexity: ['error', MAX_COMPLEXITY] },
  },
);
