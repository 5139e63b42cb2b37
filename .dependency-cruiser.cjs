/**
 * Airspace's layering, checked by dependency-cruiser (`npm run deps`, run by .ci/run).
 * Each rule says why; docs/architecture.md states the same invariants in prose.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-has-no-io',
      comment: 'core is the pure engine: no file system, process, network or thread; I/O lives at the edges (git, analysis, front ends).',
      severity: 'error',
      from: { path: '^packages/core/src/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'core-depends-on-no-package',
      comment: 'core is the API boundary every other package builds on: it imports no other workspace package.',
      severity: 'error',
      from: { path: '^packages/core/src/' },
      to: { path: '^(packages|plugins|examples)/(?!core/)' },
    },
    {
      name: 'plugins-depend-on-core-only',
      comment:
        'A channel plugin sees the world through core: the channel API and the services it declares in `requires`. No other workspace package, no I/O of its own.',
      severity: 'error',
      from: { path: '^plugins/[^/]+/src/' },
      to: { pathNot: '^plugins/[^/]+/src/|^packages/core/', dependencyTypesNot: ['npm', 'npm-dev', 'npm-peer', 'npm-optional'] },
    },
    {
      name: 'examples-depend-on-core-only',
      comment: 'The example plugin is written as a team outside this repository would write one: core is its only Airspace package.',
      severity: 'error',
      from: { path: '^examples/[^/]+/src/' },
      to: { path: '^(packages|plugins)/(?!core/)' },
    },
    {
      name: 'only-lsp-server-speaks-lsp',
      comment:
        'One package owns the protocol: only lsp-server imports vscode-languageserver (the VS Code extension uses vscode-languageclient).',
      severity: 'error',
      from: { pathNot: '^packages/lsp-server/' },
      to: { path: 'node_modules/vscode-languageserver' },
    },
    {
      name: 'no-circular',
      comment: 'A cycle (even of type-only imports) means two modules are one: split out what both need, or merge them.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    // Other packages are reached through their built declarations (dist/): seen, not followed.
    doNotFollow: { path: '(^|/)(node_modules|dist)/' },
    // Type-only imports count: a cycle of types is still a cycle in the design.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['types', 'import', 'require', 'node', 'default'],
      mainFields: ['types', 'main'],
    },
  },
};
