/**
 * `npm run release` (after the build): what a user installs, written into `release/` (or `--out DIR`):
 *
 * - `airspace-tcas-<version>.tgz`: the CLI (bin `airspace`) as one package. esbuild bundles every
 *   `@airspace/*` package and every registry dependency into `dist/` but two, which stay
 *   dependencies (plain JavaScript: no peer ranges to conflict, no install script, nothing to
 *   compile): the TypeScript compiler, which the typecheck channel loads on demand and which reads
 *   its own `lib.*.d.ts` files beside it, and pyright, whose CLI the channel runs on Python. The
 *   parser is tree-sitter's WebAssembly build with the grammars' `.wasm` files.
 * - `airspace-vscode-<version>.vsix`: the VS Code extension, its client and the language server
 *   bundled the same way, packaged by `vsce`; without the compiler and pyright, whose absence the
 *   typecheck channel reports as "not checked".
 *
 * Bundled code still finds the files it loads at run time: each module's `import.meta.url` is
 * rewritten to where that module would sit in a mirror of the repository under `assets/`
 * (`assets/packages/analysis/dist/extract/pool.js`), and the files beside it that it loads are
 * copied there: the `.scm` queries, the grammars, the schemas, the view's page script, a stub for
 * each worker that imports its bundle. The output is deterministic: same build, same bytes.
 */
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The name on the registry: `npm view airspace-tcas` answered 404 when it was chosen (docs/install.md). */
export const PACKAGE_NAME = 'airspace-tcas';

/**
 * The entry points of a Node bundle: the program, and each worker or child process that some
 * module starts from a file beside it (`new URL('./worker.js', import.meta.url)`). A module that
 * starts one not listed here fails the release (`checkWorkers`).
 */
const WORKERS = [
  'packages/analysis/dist/extract/worker.js',
  'packages/config/dist/plugin-worker.js',
  'packages/config/dist/plugin-relay.js',
  'packages/config/dist/config-worker.js',
  'packages/engine/dist/daemon.js',
  'packages/git/dist/launcher-child.js',
  'packages/lsp-server/dist/engine-worker.js',
  'plugins/channel-typecheck/dist/check-worker.js',
];
/** Files a registry package loads by path at run time, besides its `.wasm` files (jiti's TypeScript transform). */
const VENDOR_FILES = { jiti: ['dist/babel.cjs'] };
/**
 * Registry packages whose files reach a release as copies, not imports, by the copy that shows it
 * (in `assets/`): the grammars' `.wasm` (analysis's `grammars/`), three.js (the view's page script).
 */
const COPIED_FROM = {
  three: 'packages/view/dist/client/view.js',
  'tree-sitter-javascript': 'packages/analysis/grammars/tree-sitter-javascript.wasm',
  'tree-sitter-python': 'packages/analysis/grammars/tree-sitter-python.wasm',
  'tree-sitter-typescript': 'packages/analysis/grammars/tree-sitter-typescript.wasm',
};
/** Scripts a module names by URL that are not Node modules: copied as they are. */
const PAGE_SCRIPTS = ['packages/view/dist/client/view.js'];

/** The modification time of every file in the .vsix (npm pack uses the same for tarballs). */
const FIXED_TIME = new Date('1985-10-26T08:15:00Z');
const posix = (p) => p.split(sep).join('/');
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));
/** Where a module of the repository sits in the mirror: `node_modules/` becomes `vendor/` (npm never packs the former). */
const mirrorOf = (file) => posix(relative(ROOT, file)).replace(/(^|\/)node_modules\//g, '$1vendor/');

/** Rewrites `import.meta.url` of every module to its place in the mirror, seen from `dist/`. */
function mirrorPlugin(workerStarts) {
  return {
    name: 'airspace-mirror',
    setup(b) {
      b.onLoad({ filter: /\.(m?js|cjs)$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta')) return undefined;
        const mirrored = mirrorOf(args.path);
        for (const m of text.matchAll(/new URL\(\s*['"](\.\.?\/[^'"]+\.m?js)['"],\s*import\.meta\.url\s*\)/g)) {
          workerStarts.push(posix(join(dirname(mirrored), m[1])));
        }
        const url = `new URL(${JSON.stringify(`../assets/${mirrored}`)}, import.meta.url).href`;
        return { contents: text.replaceAll('import.meta.url', url), loader: 'js', resolveDir: dirname(args.path) };
      });
    },
  };
}

/**
 * Registry packages the bundles load at run time rather than carry: loaded on demand, degrading
 * when absent. The TypeScript compiler (imported; it reads its `lib.*.d.ts` beside it) and pyright
 * (its CLI, which the typecheck channel finds from the installed package and runs as a child
 * process). Both are plain JavaScript with no install script.
 */
const RUNTIME_DEPENDENCIES = ['typescript', 'pyright'];

/** The versions the repository installs of `RUNTIME_DEPENDENCIES`, for the CLI package's manifest. */
function runtimeDependencies() {
  const typecheck = readJson(join(ROOT, 'plugins/channel-typecheck/package.json'));
  return Object.fromEntries(RUNTIME_DEPENDENCIES.map((name) => [name, typecheck.dependencies[name]]));
}

/**
 * Bundles `entries` ({ name: file in the repository }) into `out/dist/NAME.js` with the mirror in
 * `out/assets/`. Returns the registry packages it took in (for the notices).
 */
async function bundleNode(out, entries) {
  const workerStarts = [];
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: Object.fromEntries(Object.entries(entries).map(([name, file]) => [name, join(ROOT, file)])),
    outdir: join(out, 'dist'),
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Bundled CommonJS modules call `require` for Node's own modules.
    banner: {
      js: "import { createRequire as __airspaceRequire } from 'node:module';\nconst require = __airspaceRequire(import.meta.url);",
    },
    // Core's optional peer, for `@airspace/core/testing` only: no entry may reach it (checked below).
    // The compiler is loaded on demand (`import('typescript')`) and finds its lib files beside it.
    external: ['vitest', ...RUNTIME_DEPENDENCIES],
    legalComments: 'none',
    sourcemap: false,
    metafile: true,
    logLevel: 'warning',
    plugins: [mirrorPlugin(workerStarts)],
  });
  const inputs = Object.keys(result.metafile.inputs).map((p) => resolve(ROOT, p));
  const outside = Object.values(result.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external && !i.path.startsWith('node:')));
  const unbundled = [...new Set(outside.map((i) => i.path))].filter((path) => !isBuiltin(path) && !RUNTIME_DEPENDENCIES.includes(path));
  if (unbundled.length > 0)
    throw new Error(`release: the bundle would import ${unbundled.join(', ')} at run time, which it does not carry`);
  checkWorkers(workerStarts, entries);
  for (const [name, file] of Object.entries(entries)) {
    const stub = join(out, 'assets', mirrorOf(join(ROOT, file)));
    mkdirSync(dirname(stub), { recursive: true });
    writeFileSync(stub, `import ${JSON.stringify(posix(relative(dirname(stub), join(out, 'dist', `${name}.js`))))};\n`);
  }
  const packages = packagesOf(inputs);
  for (const [home, manifest] of packages) copyAssets(out, home, manifest);
  return registryPackages(inputs);
}

/** The packages (folder → manifest) that the modules of a bundle come from. */
function packagesOf(inputs) {
  const packages = new Map();
  for (const input of inputs) {
    const home = packageHome(resolve(ROOT, input));
    if (home) packages.set(home, readJson(join(home, 'package.json')));
  }
  return packages;
}

/** Those of them that come from the registry. */
const registryPackages = (inputs) => [...packagesOf(inputs)].filter(([home]) => home.includes(`${sep}node_modules${sep}`));

/** A module that starts a worker not bundled as an entry would fail at run time: fail here instead. */
function checkWorkers(workerStarts, entries) {
  const entryMirrors = new Set(Object.values(entries).map((f) => mirrorOf(join(ROOT, f))));
  const missing = [...new Set(workerStarts)].filter((w) => !entryMirrors.has(w) && !PAGE_SCRIPTS.includes(w));
  if (missing.length > 0) throw new Error(`release: workers not bundled (add them to WORKERS): ${missing.join(', ')}`);
}

/** The folder of the package a module belongs to. */
function packageHome(file) {
  for (let dir = dirname(file); dir.startsWith(ROOT) && dir !== ROOT; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && readJson(join(dir, 'package.json')).name) return dir;
  }
  return undefined;
}

/**
 * Copies into the mirror what a package loads at run time rather than imports: for a workspace
 * package, the data files it publishes (`files`: queries, schemas, grammars) and its
 * `PAGE_SCRIPTS`; for a registry package,
 * its `.wasm` files and its `VENDOR_FILES`. A mirrored workspace package gets a minimal package.json (name, version,
 * module type: the CLI reads its version there).
 */
function copyAssets(out, home, manifest) {
  const target = join(out, 'assets', mirrorOf(home));
  const vendored = home.includes(`${sep}node_modules${sep}`);
  const keep = (file) =>
    vendored
      ? file.endsWith('.wasm')
      : /\.[mc]?js$/.test(file)
        ? PAGE_SCRIPTS.includes(mirrorOf(file))
        : !/\.(ts|mts|cts|map|tsbuildinfo|md)$/.test(file);
  const roots = vendored ? ['.'] : (manifest.files ?? []).filter((f) => f !== 'src' && f !== 'bin');
  const extra = vendored ? (VENDOR_FILES[manifest.name] ?? []).map((f) => join(home, f)) : [];
  const files = [...roots.flatMap((root) => [...walk(join(home, root), vendored ? 1 : Infinity)].filter(keep)), ...extra];
  for (const file of files) {
    const to = join(target, relative(home, file));
    mkdirSync(dirname(to), { recursive: true });
    cpSync(file, to);
  }
  if (vendored) return;
  mkdirSync(target, { recursive: true });
  const mini = { name: manifest.name, version: manifest.version, type: manifest.type ?? 'commonjs' };
  writeFileSync(join(target, 'package.json'), `${JSON.stringify(mini, null, 2)}\n`);
}

function* walk(path, depth) {
  if (!existsSync(path)) return;
  if (!statSync(path).isDirectory()) {
    yield path;
    return;
  }
  if (depth <= 0) return;
  for (const name of readdirSync(path).sort()) {
    if (name === 'node_modules') continue;
    yield* walk(join(path, name), depth - 1);
  }
}

/** The licence notices of the registry packages a bundle in `out` took in, and of those it carries copies of. */
function notices(out, vendored) {
  const all = new Map(vendored);
  for (const [name, copy] of Object.entries(COPIED_FROM)) {
    if (!existsSync(join(out, 'assets', copy))) continue;
    const home = installed(name, join(ROOT, copy));
    if (home) all.set(home, readJson(join(home, 'package.json')));
  }
  const lines = ['# Third-party software in this package', ''];
  for (const [home, manifest] of [...all].sort(([, a], [, b]) => a.name.localeCompare(b.name))) {
    const licence = readdirSync(home).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
    lines.push(`## ${manifest.name} ${manifest.version} (${manifest.license ?? 'see below'})`, '');
    if (licence) lines.push('```', readFileSync(join(home, licence), 'utf8').trim(), '```', '');
  }
  return `${lines.join('\n')}\n`;
}

/** The folder of the registry package `name` as Node would find it from `from`. */
function installed(name, from) {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const home = join(dir, 'node_modules', name);
    if (existsSync(join(home, 'package.json'))) return home;
    if (dir === dirname(dir)) return undefined;
  }
}

/** The shared fields every package of the repository declares (root package.json). */
function shared() {
  const root = readJson(join(ROOT, 'package.json'));
  return { version: root.version, license: root.license, repository: root.repository, engines: root.engines };
}

/** The CLI package: bundle, mirror, manifest, README, LICENSE, notices; then `npm pack`. */
async function releaseCli(outDir) {
  const stage = mkdtempSync(join(tmpdir(), 'airspace-release-'));
  try {
    const vendored = await bundleNode(stage, {
      bin: 'packages/cli/dist/bin.js',
      ...Object.fromEntries(WORKERS.map((w) => [w.replace(/^.*\//, '').replace(/\.js$/, ''), w])),
    });
    const cli = readJson(join(ROOT, 'packages/cli/package.json'));
    const { version, license, repository, engines } = shared();
    const manifest = {
      name: PACKAGE_NAME,
      version,
      description: cli.description,
      keywords: ['coding-agents', 'git', 'worktree', 'merge-conflicts', 'language-server', 'mcp'],
      license,
      repository: { ...repository, directory: 'packages/cli' },
      engines,
      type: 'module',
      bin: { airspace: 'bin/airspace.js' },
      dependencies: runtimeDependencies(),
      files: ['bin', 'dist', 'assets', 'THIRD-PARTY-NOTICES.md'],
    };
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    mkdirSync(join(stage, 'bin'));
    writeFileSync(join(stage, 'bin/airspace.js'), "#!/usr/bin/env node\nimport '../dist/bin.js';\n", { mode: 0o755 });
    cpSync(join(ROOT, 'packages/cli/README.md'), join(stage, 'README.md'));
    cpSync(join(ROOT, 'LICENSE'), join(stage, 'LICENSE'));
    writeFileSync(join(stage, 'THIRD-PARTY-NOTICES.md'), notices(stage, vendored));
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', outDir], {
        cwd: stage,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    );
    return join(outDir, packed[0].filename);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** The VS Code extension: the client (CommonJS, `vscode` external) and the server as above; then `vsce package`. */
async function releaseVscode(outDir) {
  const stage = mkdtempSync(join(tmpdir(), 'airspace-vsix-'));
  try {
    const extension = join(ROOT, 'packages/vscode');
    const clientBuild = await build({
      absWorkingDir: ROOT,
      entryPoints: [join(extension, 'dist/extension.js')],
      outfile: join(stage, 'dist/extension.js'),
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      external: ['vscode', '@airspace/lsp-server/bin'],
      legalComments: 'none',
      metafile: true,
      logLevel: 'warning',
    });
    const server = join(stage, 'server');
    const vendored = await bundleNode(server, {
      bin: 'packages/lsp-server/dist/bin.js',
      ...Object.fromEntries(WORKERS.map((w) => [w.replace(/^.*\//, '').replace(/\.js$/, ''), w])),
    });
    // The server is ES modules in a CommonJS extension.
    writeFileSync(join(server, 'package.json'), `${JSON.stringify({ type: 'module' }, null, 2)}\n`);
    const client = readJson(join(extension, 'package.json'));
    const { version, license, repository } = shared();
    const { dependencies, devDependencies, scripts, private: _, ...manifest } = client;
    writeFileSync(
      join(stage, 'package.json'),
      `${JSON.stringify({ ...manifest, version, license, repository: { ...repository, directory: 'packages/vscode' } }, null, 2)}\n`,
    );
    for (const file of ['README.md', '.vscodeignore']) cpSync(join(extension, file), join(stage, file));
    cpSync(join(ROOT, 'LICENSE'), join(stage, 'LICENSE'));
    const clientVendored = registryPackages(Object.keys(clientBuild.metafile.inputs));
    writeFileSync(join(stage, 'THIRD-PARTY-NOTICES.md'), notices(server, [...vendored, ...clientVendored]));
    // vsce stores each file's modification time: a fixed one keeps the .vsix the same bytes per build.
    for (const file of walk(stage, Infinity)) utimesSync(file, FIXED_TIME, FIXED_TIME);
    const vsix = join(outDir, `${manifest.name}-${version}.vsix`);
    const vsceManifest = createRequire(join(extension, 'package.json')).resolve('@vscode/vsce/package.json');
    const vsce = join(dirname(vsceManifest), readJson(vsceManifest).bin.vsce);
    execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--out', vsix], {
      cwd: stage,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    normalizeZip(vsix);
    return vsix;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * Rewrites a zip with its entries in a fixed order (vsce's manifest files first, then by name) and
 * one modification time: vsce lists files in the order its glob finds them and stamps the files it
 * writes itself with the clock. The entries' bytes are kept as they are.
 */
function normalizeZip(file) {
  const zip = readFileSync(file);
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const entries = [];
  for (let i = 0, at = zip.readUInt32LE(end + 16); i < zip.readUInt16LE(end + 10); i++) {
    const nameLength = zip.readUInt16LE(at + 28);
    const local = zip.readUInt32LE(at + 42);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    entries.push({
      name: zip.subarray(at + 46, at + 46 + nameLength),
      method: zip.readUInt16LE(at + 10),
      crc: zip.readUInt32LE(at + 16),
      compressed: zip.readUInt32LE(at + 20),
      size: zip.readUInt32LE(at + 24),
      data: zip.subarray(start, start + zip.readUInt32LE(at + 20)),
    });
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  const rank = (e) => (e.name.toString().startsWith('extension/') ? 1 : 0);
  entries.sort((a, b) => rank(a) - rank(b) || Buffer.compare(a.name, b.name));
  // DOS date and time of FIXED_TIME (1985-10-26 08:15:00).
  const dosTime = (8 << 11) | (15 << 5);
  const dosDate = ((1985 - 1980) << 9) | (10 << 5) | 26;
  const locals = [];
  const central = [];
  let offset = 0;
  for (const e of entries) {
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0);
    head.writeUInt16LE(20, 4);
    head.writeUInt16LE(0x0800, 6);
    head.writeUInt16LE(e.method, 8);
    head.writeUInt16LE(dosTime, 10);
    head.writeUInt16LE(dosDate, 12);
    head.writeUInt32LE(e.crc, 14);
    head.writeUInt32LE(e.compressed, 18);
    head.writeUInt32LE(e.size, 22);
    head.writeUInt16LE(e.name.length, 26);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    head.copy(dir, 8, 6, 30);
    dir.writeUInt32LE(offset, 42);
    locals.push(head, e.name, e.data);
    central.push(dir, e.name);
    offset += head.length + e.name.length + e.data.length;
  }
  const directory = Buffer.concat(central);
  const tail = Buffer.alloc(22);
  tail.writeUInt32LE(0x06054b50, 0);
  tail.writeUInt16LE(entries.length, 8);
  tail.writeUInt16LE(entries.length, 10);
  tail.writeUInt32LE(directory.length, 12);
  tail.writeUInt32LE(offset, 16);
  writeFileSync(file, Buffer.concat([...locals, directory, tail]));
}

async function main() {
  const at = process.argv.indexOf('--out');
  const outDir = resolve(at >= 0 ? process.argv[at + 1] : join(ROOT, 'release'));
  for (const built of [...WORKERS, 'packages/cli/dist/bin.js', 'packages/vscode/dist/extension.js']) {
    if (!existsSync(join(ROOT, built))) throw new Error(`release: ${built} is missing; run the build first (npm run release does)`);
  }
  mkdirSync(outDir, { recursive: true });
  for (const old of readdirSync(outDir)) if (/\.(tgz|vsix)$/.test(old)) rmSync(join(outDir, old));
  const written = [await releaseCli(outDir), await releaseVscode(outDir)];
  for (const file of written) console.log(`${posix(relative(process.cwd(), file))}  ${(statSync(file).size / 1024).toFixed(0)} KiB`);
}

await main();
