/**
 * The release as a user gets it. `scripts/release.mjs` (`npm run release`) writes the CLI tarball
 * and the VS Code extension; the tarball installs into an empty folder with `--ignore-scripts`
 * (what users with a script policy get) and offline (its two dependencies, the TypeScript compiler
 * and pyright that the typecheck channel loads on demand, are plain JavaScript, cached first),
 * `airspace demo` there prints the README's table, and the typecheck channel checks a Python
 * pair's merge with the installed pyright. The `.vsix` holds the two bundles and the parser as
 * WebAssembly, and no `node_modules` or native binary.
 */
import { execFileSync, spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoFixture } from '@airspace/git/fixture';
import { collidingWorktrees } from './editor-session.js';
import { describeWith, NPM } from './programs.js';
import { ENV } from './run-cli.js';
import { ENGINE_ENV } from './engines.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
/** The release's only dependencies: the typecheck channel's, which it loads on demand. */
const TYPECHECK_DEPENDENCIES = (
  JSON.parse(readFileSync(join(ROOT, 'plugins/channel-typecheck/package.json'), 'utf8')) as { dependencies: Record<string, string> }
).dependencies;

/** The table the README shows under "prints the advisories by risk". */
function readmeTable(): string {
  const block = /prints the advisories by risk:\n\n```\n([\s\S]*?)```/.exec(README);
  if (!block) throw new Error('README.md has no demo table after "prints the advisories by risk:"');
  return block[1]!.trimEnd();
}

/** Entries of a zip file (name and uncompressed bytes), read from its central directory. */
function zipEntries(file: string): Map<string, Buffer> {
  const zip = readFileSync(file);
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    const local = zip.readUInt32LE(at + 42);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(start, start + compressed);
    entries.set(name, method === 8 ? inflateRawSync(raw) : raw);
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return entries;
}

/**
 * Starts a language server, initializes it on `folder` and answers its `airspace/scan` for it
 * (`Content-Length` frames on stdio).
 */
function scanThroughServer(args: string[], folder: string): Promise<{ links: { a: string; b: string; level: string }[] }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, { cwd: folder, env: ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    const send = (message: object): void => {
      const body = JSON.stringify({ jsonrpc: '2.0', ...message });
      child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    };
    let buffer = Buffer.alloc(0);
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no airspace/scan answer in 60 s; stderr: ${stderr}`));
    }, 60_000);
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before answering; stderr: ${stderr}`));
    });
    child.stdout.on('data', (d: Buffer) => {
      buffer = Buffer.concat([buffer, d]);
      for (;;) {
        const head = buffer.indexOf('\r\n\r\n');
        const length = /Content-Length: (\d+)/.exec(buffer.subarray(0, head).toString());
        if (head < 0 || !length || buffer.length < head + 4 + Number(length[1])) return;
        const message = JSON.parse(buffer.subarray(head + 4, head + 4 + Number(length[1])).toString()) as { id?: number; result?: unknown };
        buffer = buffer.subarray(head + 4 + Number(length[1]));
        if (message.id === 1) {
          send({ method: 'initialized', params: {} });
          send({ id: 2, method: 'airspace/scan', params: { folder: pathToFileURL(folder).href } });
        } else if (message.id === 2) {
          clearTimeout(timer);
          child.kill();
          resolvePromise(message.result as { links: { a: string; b: string; level: string }[] });
        }
      }
    });
    const uri = pathToFileURL(folder).href;
    send({
      id: 1,
      method: 'initialize',
      params: { processId: null, rootUri: uri, workspaceFolders: [{ uri, name: 'bob' }], capabilities: {} },
    });
  });
}

let out: string;
let user: string;
let cached: SpawnSyncReturns<string>;
let install: SpawnSyncReturns<string>;
const bin = (): string => join(user, 'node_modules/.bin/airspace');

describeWith(NPM, 'the release (npm run release)', () => {
  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'airspace-release-test-'));
    user = mkdtempSync(join(tmpdir(), 'airspace-user-'));
    execFileSync(process.execPath, [join(ROOT, 'scripts/release.mjs'), '--out', out], { stdio: 'pipe', timeout: 180_000 });
    writeFileSync(join(user, 'package.json'), '{ "private": true }\n');
    const tarball = join(out, `airspace-tcas-${VERSION}.tgz`);
    // `npm ci` caches the locked tarballs, not the registry documents an install of a tarball resolves
    // its dependencies with: a fresh machine's cache lacks them. So they are cached first (from the
    // registry, unless npm's cache has them), and the install itself runs offline.
    const specs = ['typescript', 'pyright'].map((name) => `${name}@${TYPECHECK_DEPENDENCIES[name]}`);
    cached = spawnSync('npm', ['cache', 'add', '--prefer-offline', '--loglevel=error', ...specs], { encoding: 'utf8', timeout: 120_000 });
    const args = ['install', '--ignore-scripts', '--offline', '--no-audit', '--no-fund', '--loglevel=error', tarball];
    install = spawnSync('npm', args, { cwd: user, encoding: 'utf8', timeout: 120_000 });
  }, 300_000);
  afterAll(() => {
    rmSync(out, { recursive: true, force: true });
    rmSync(user, { recursive: true, force: true });
  });

  it('installs the CLI from its one tarball into an empty folder with --ignore-scripts, offline, and its demo prints the README table', () => {
    expect(cached.status, cached.stderr).toBe(0);
    expect(install.status, install.stderr).toBe(0);
    const demo = spawnSync(bin(), ['demo'], { cwd: user, env: ENV, encoding: 'utf8', timeout: 120_000 });
    expect(demo.status, demo.stderr).toBe(0);
    expect(demo.stdout).toContain(readmeTable());
    const version = spawnSync(bin(), ['--version'], { cwd: user, env: ENV, encoding: 'utf8', timeout: 60_000 });
    expect(version.stdout.trim()).toBe(VERSION);
  });

  it('reads a TypeScript config in a repository (jiti loads its transform from the package)', () => {
    const repo = join(user, 'repo');
    mkdirSync(repo);
    const git = (...args: string[]): void => void execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
    git('init', '-q');
    writeFileSync(join(repo, 'airspace.config.ts'), 'const weight: number = 0.33;\nexport default { channels: { tree: { weight } } };\n');
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-qm', 'config');
    const channels = spawnSync(bin(), ['channels', '--json'], { cwd: repo, env: ENV, encoding: 'utf8', timeout: 60_000 });
    expect(channels.stdout, channels.stderr).not.toContain('CONFIG_UNREADABLE');
    expect(channels.stdout).toMatch(/"id": ?"tree"[^}]*"weight": ?0\.33/);
  });

  it('checks Python from the install: pyright resolves, and a merge that breaks a call is reported with its message', () => {
    // Where the bundled typecheck channel looks for pyright from (its module's place in the mirror).
    const channel = join(user, 'node_modules/airspace-tcas/assets/plugins/channel-typecheck/dist/pyright.js');
    const pyright = dirname(createRequire(channel).resolve('pyright/package.json'));
    expect(existsSync(join(pyright, 'index.js'))).toBe(true);
    // erin adds a parameter to create_session; frank, in a new file, calls it with the old one. git
    // merges the two cleanly; only the merged program is broken.
    const lines = (...l: string[]): string => l.join('\n') + '\n';
    const repo = createRepoFixture({
      // A time limit for a loaded machine, where pyright's start-up alone can pass the default 15 s.
      'airspace.config.json': '{ "channels": { "typecheck": { "options": { "timeLimitMs": 120000, "budgetMs": 120000 } } } }\n',
      'pyproject.toml': lines('[project]', 'name = "shop"'),
      'src/shop/__init__.py': '',
      'src/shop/session.py': lines('def create_session(user: str) -> str:', '    return user'),
    });
    try {
      repo
        .worktree('erin')
        .write('src/shop/session.py', lines('def create_session(user: str, ttl: int) -> str:', '    return user + str(ttl)'));
      repo
        .worktree('frank')
        .write('src/shop/login.py', lines('from shop.session import create_session', '', 'token = create_session("ann")'));
      const scan = spawnSync(bin(), ['scan', '--repo', repo.dir, '--json'], { cwd: user, env: ENV, encoding: 'utf8', timeout: 120_000 });
      expect(scan.status, scan.stderr).toBe(0);
      const links = (
        JSON.parse(scan.stdout) as {
          links: Array<{
            a: string;
            b: string;
            level: string;
            channels: Array<{ channel: string; risk: number; evidence: Array<{ message: string }> }>;
          }>;
        }
      ).links;
      const pair = links.find((l) => [l.a, l.b].sort().join(' ') === 'erin frank')!;
      const typecheck = pair.channels.find((c) => c.channel === 'typecheck')!;
      expect(typecheck.evidence[0]?.message).toBe(
        'merging erin and frank: src/shop/login.py:3 reportCallIssue Argument missing for parameter "ttl" — erin changed create_session at src/shop/session.py:1–2',
      );
      expect(typecheck.risk).toBe(1);
      expect(pair.level).toBe('resolution');
    } finally {
      repo.dispose();
    }
  }, 150_000);

  it("type-checks a pair's merge through the installed CLI's engine, in the compiler's thread (its worker is bundled)", async () => {
    const ls = (...l: string[]) => l.join('\n') + '\n';
    const repo = createRepoFixture({
      'tsconfig.json': ls('{ "compilerOptions": { "strict": true, "module": "nodenext", "noEmit": true }, "include": ["src"] }'),
      'package.json': ls('{ "name": "shop", "private": true, "type": "module" }'),
      'src/session.ts': ls('export function createSession(user: string): string {', '  return user;', '}'),
    });
    repo
      .worktree('erin')
      .write('src/session.ts', ls('export function createSession(user: string, ttlMs: number): string {', '  return user + ttlMs;', '}'));
    const frank = repo
      .worktree('frank')
      .write('src/login.ts', ls("import { createSession } from './session.js';", '', 'export const token = createSession("frank");'));
    const env = { ...ENGINE_ENV };
    try {
      // The first scans say the pair is still being checked; the compiler's answer follows.
      let typecheck: { pending?: boolean; evidence: { message: string }[]; problems?: { message: string }[] } | undefined;
      for (let i = 0; i < 90 && (!typecheck || typecheck.pending); i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 1000));
        const scan = spawnSync(bin(), ['scan', '--json'], { cwd: frank.dir, env, encoding: 'utf8', timeout: 120_000 });
        const result = JSON.parse(scan.stdout) as { links: { a: string; b: string; channels: { channel: string }[] }[] };
        typecheck = result.links
          .find((l) => l.a === 'erin' && l.b === 'frank')
          ?.channels.find((c) => c.channel === 'typecheck') as typeof typecheck;
      }
      expect(typecheck?.pending, JSON.stringify(typecheck)).toBeUndefined();
      expect(typecheck!.evidence[0]?.message, JSON.stringify(typecheck)).toMatch(/src\/login\.ts:3 TS2554 Expected 2 arguments, but got 1/);
    } finally {
      spawnSync(bin(), ['engine', 'stop', '--repo', repo.dir], { env, encoding: 'utf8', timeout: 60_000 });
      repo.dispose();
    }
  }, 240_000);

  it('packs the CLI with the fields a registry shows and only the compiler and pyright as dependencies', () => {
    const manifest = JSON.parse(readFileSync(join(user, 'node_modules/airspace-tcas/package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: 'airspace-tcas', bin: { airspace: 'bin/airspace.js' }, license: 'MIT' });
    expect(manifest).toHaveProperty('repository.url');
    expect(manifest).toHaveProperty('engines.node');
    expect(manifest['dependencies']).toEqual({
      typescript: TYPECHECK_DEPENDENCIES['typescript'],
      pyright: TYPECHECK_DEPENDENCIES['pyright'],
    });
    // Bundled registry code keeps its licence: commander is in every CLI bundle.
    expect(readFileSync(join(user, 'node_modules/airspace-tcas/THIRD-PARTY-NOTICES.md'), 'utf8')).toMatch(/^## commander /m);
    for (const file of ['LICENSE', 'README.md', 'THIRD-PARTY-NOTICES.md']) {
      expect(statSync(join(user, 'node_modules/airspace-tcas', file)).size).toBeGreaterThan(0);
    }
  });

  it("runs the .vsix's bundled language server outside the repository: a scan through it finds the collision", async () => {
    const server = mkdtempSync(join(tmpdir(), 'airspace-vsix-'));
    const { repo, bob } = collidingWorktrees();
    try {
      for (const [name, data] of zipEntries(join(out, `airspace-vscode-${VERSION}.vsix`))) {
        mkdirSync(dirname(join(server, name)), { recursive: true });
        writeFileSync(join(server, name), data);
      }
      const scan = await scanThroughServer([join(server, 'extension/server/dist/bin.js'), '--stdio'], bob.dir);
      expect(scan.links.map((l) => `${l.a} ${l.b} ${l.level}`)).toContain('alice bob resolution');
    } finally {
      repo.dispose();
      rmSync(server, { recursive: true, force: true });
    }
  }, 90_000);

  it('writes the same bytes when run again', () => {
    const again = mkdtempSync(join(tmpdir(), 'airspace-release-again-'));
    try {
      execFileSync(process.execPath, [join(ROOT, 'scripts/release.mjs'), '--out', again], { stdio: 'pipe', timeout: 180_000 });
      for (const file of [`airspace-tcas-${VERSION}.tgz`, `airspace-vscode-${VERSION}.vsix`]) {
        expect(readFileSync(join(again, file)).equals(readFileSync(join(out, file))), file).toBe(true);
      }
    } finally {
      rmSync(again, { recursive: true, force: true });
    }
  }, 240_000);

  it('packages the VS Code extension bundled: client, server, parser as wasm, no node_modules, nothing native', () => {
    const vsix = join(out, `airspace-vscode-${VERSION}.vsix`);
    const entries = zipEntries(vsix);
    const names = [...entries.keys()];
    for (const name of ['extension/package.json', 'extension/dist/extension.js', 'extension/server/dist/bin.js', 'extension/LICENSE.txt']) {
      expect(names).toContain(name);
    }
    expect(names.filter((n) => n.endsWith('.wasm')).length).toBeGreaterThan(0);
    expect(names.filter((n) => n.includes('node_modules/'))).toEqual([]);
    expect(names.filter((n) => n.endsWith('.node'))).toEqual([]);
    expect(names.length).toBeLessThan(200);
    expect(statSync(vsix).size).toBeLessThan(8 * 1024 * 1024);
    const manifest = JSON.parse(entries.get('extension/package.json')!.toString('utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: 'airspace-vscode', main: './dist/extension.js', license: 'MIT' });
    expect(manifest).not.toHaveProperty('dependencies');
    expect(entries.get('extension/THIRD-PARTY-NOTICES.md')!.toString('utf8')).toMatch(/^## vscode-languageclient /m);
  });
});

describe('package manifests', () => {
  it('every package names the repository and its folder, the licence and the Node it needs', () => {
    const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      repository: { url: string };
      engines: { node: string };
    };
    const folders = ['packages', 'plugins', 'examples']
      .flatMap((group) => readdirSync(join(ROOT, group)).map((name) => `${group}/${name}`))
      .filter((folder) => existsSync(join(ROOT, folder, 'package.json')))
      .concat('test');
    expect(folders.length).toBeGreaterThan(20);
    expect(existsSync(join(ROOT, 'LICENSE'))).toBe(true);
    for (const folder of folders) {
      const manifest = JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')) as Record<string, unknown>;
      expect(manifest, folder).toMatchObject({ license: 'MIT', repository: { url: root.repository.url, directory: folder } });
      const engines = manifest.engines as Record<string, string> | undefined;
      expect(engines?.node ?? engines?.vscode, folder).toBe(engines?.vscode ?? root.engines.node);
    }
  });
});
