// ESLint (typescript-eslint, type-aware): the mistakes types alone do not catch. Only rules that
// pay for themselves are on; formatting is Prettier's.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '**/test/fixtures/**', 'packages/view/src/client/vendor/**', 'release/**'],
  },
  {
    files: ['packages/*/src/**/*.ts', 'plugins/*/src/**/*.ts', 'examples/*/src/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A promise is awaited, returned, or dropped on purpose with `void`: never forgotten.
      '@typescript-eslint/no-floating-promises': 'error',
      // An async function where a callback's result is ignored loses its rejections.
      '@typescript-eslint/no-misused-promises': 'error',
      // Control characters in a pattern are a mistake unless a comment says otherwise.
      'no-control-regex': 'error',
      // A function longer than a screen is a module in disguise: name its steps.
      'max-lines-per-function': ['warn', { max: 100, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
);
