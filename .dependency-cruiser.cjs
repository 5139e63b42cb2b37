/**
 * Airspace's layering, checked by dependency-cruiser (`npm run deps`, run by .ci/run).
 * Each rule says why; docs/architecture.md states the same invariants in prose.
 */
/**
 * The layers, bottom to top: what each workspace package may import of ours. A package not named
 * here may import nothing of ours until it is (rule `unlisted-package-imports-nothing`): adding a
 * package means placing it on this map and on docs/architecture.md's diagram.
 */
const LAYERS = {
  // 0: the pure engine and the channel API.
  core: { may: [], why: 'core is the API boundary every other package builds on.' },
  // 1: a repository and a config, each over core alone.
  git: { may: ['core'], why: 'git turns a repository into agents; it knows no analysis, channel or front end.' },
  config: {
    may: ['core', 'git'],
    why: 'config reads files by git’s one file rule and loads plugins; it knows no analysis or scan.',
  },
  // 1b: tree-sitter facts, listed and read through git (snapshots, blob reads).
  analysis: { may: ['core', 'git'], why: 'analysis reads files through git and nothing above it.' },
  // 2: the composition.
  scanner: {
    may: ['core', 'git', 'config', 'analysis', 'plugins'],
    why: 'the scanner composes the layers below; nothing below knows it.',
  },
  // 3: libraries over a scan: receipts and replay.
  trail: {
    may: ['core', 'git', 'scanner'],
    why: 'the trail scores footprints with the shipped channels and reads its files by git’s one file rule.',
  },
  eval: { may: ['core', 'git', 'config', 'scanner'], why: 'eval replays history through the scanner setup; no front end.' },
  // 4: the resident process.
  engine: {
    may: ['core', 'git', 'config', 'scanner', 'trail'],
    why: 'the engine keeps a scanner warm and records acknowledgements through the trail; it serves front ends, never imports one.',
  },
  // 5: front ends.
  view: { may: ['core'], why: 'the view draws a ScanResult; it is handed scans, it does not make them.' },
  mcp: { may: ['core', 'engine'], why: 'every MCP answer is the engine’s (or the same function in-process).' },
  'lsp-server': {
    may: ['core', 'git', 'config', 'scanner', 'trail', 'engine'],
    why: 'the language server scans through the engine, else the scanner in a worker.',
  },
  // 6: entry points.
  cli: {
    may: ['core', 'git', 'config', 'analysis', 'scanner', 'trail', 'eval', 'engine', 'view', 'mcp', 'lsp-server'],
    why: 'the CLI wires every front end; nothing imports it.',
  },
  vscode: { may: ['lsp-server'], why: 'the extension has no logic of its own: everything comes from the language server.' },
  bench: {
    may: ['core', 'git', 'config', 'analysis', 'scanner', 'engine', 'plugins'],
    why: 'benchmarks measure the layers; nothing imports them.',
  },
};

/** `packages/<name>/` or, for `plugins`, any channel plugin, as a path pattern. */
const target = (name) => (name === 'plugins' ? 'plugins/[^/]+/' : `packages/${name}/`);

const layerRules = Object.entries(LAYERS).map(([name, { may, why }]) => ({
  name: `${name}-imports-only-below`,
  comment: `${why} Allowed: ${may.length ? may.join(', ') : 'no package of ours'}.`,
  severity: 'error',
  from: { path: `^packages/${name}/src/` },
  to: {
    path: '^(packages|plugins|examples)/',
    pathNot: `^(${[name, ...may].map(target).join('|')})`,
  },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'unlisted-package-imports-nothing',
      comment: 'A package missing from LAYERS has no place in the layering yet: put it on the map first.',
      severity: 'error',
      from: { path: `^packages/(?!(?:${Object.keys(LAYERS).join('|')})/)([^/]+)/src/` },
      to: { path: '^(packages|plugins|examples)/', pathNot: '^packages/$1/' },
    },
    {
      name: 'core-has-no-io',
      comment: 'core is the pure engine: no file system, process, network or thread; I/O lives at the edges (git, analysis, front ends).',
      severity: 'error',
      from: { path: '^packages/core/src/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'plugins-depend-on-core-only',
      comment:
        'A channel plugin sees the world through core: the channel API and the services it declares in `requires`. No other workspace package, no I/O of its own. Two exceptions, each in its own modules: pyright reads only files on disk, so the typecheck channel writes the Python files of git trees to a private temporary directory and runs pyright as a child process (pyright.ts); and the resident engine must keep answering while the TypeScript compiler works, so the channel runs it in a worker thread of its own (compiler-thread.ts, check-worker.ts).',
      severity: 'error',
      from: {
        path: '^plugins/[^/]+/src/',
        pathNot: '^plugins/channel-typecheck/src/(?:pyright|compiler-thread|check-worker)\\.ts$',
      },
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
