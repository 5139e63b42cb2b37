/**
 * A deterministic synthetic monorepo for the indexing benchmark: workspace packages of
 * TypeScript, TSX and JavaScript (relative imports, `.js`-suffixed imports of `.ts` files, type
 * imports, re-exporting index files, workspace and tsconfig-paths imports, CommonJS `require`,
 * dynamic `import()`, external packages) and a Python tree (packages, relative and absolute
 * imports). Sizes and fan-out are drawn from a seeded generator: same options, same bytes.
 */
import type { FileTree } from '@airspace/git/fixture';
import { seededRandom } from '@airspace/core/builders';

export interface GenerateOptions {
  readonly files?: number;
  readonly seed?: number;
  /** Workspace packages for the JavaScript/TypeScript part. */
  readonly packages?: number;
}

/** The seeded generator the repository is drawn from (mulberry32, from core). */
export const prng = seededRandom;

type Kind = 'ts' | 'tsx' | 'js' | 'py';

interface Planned {
  readonly path: string;
  readonly kind: Kind;
  readonly pkg: number;
  readonly module: string;
}

const EXTERNAL_JS = ['react', 'lodash', 'zod', 'node:path', '@tanstack/react-query', 'date-fns'];
const EXTERNAL_PY = ['os', 'sys', 'json', 'typing', 'numpy', 'requests', 'dataclasses'];

/** The generator's random draws, in one deterministic sequence. */
interface Draws {
  readonly rand: () => number;
  readonly pick: <T>(list: readonly T[]) => T;
  readonly between: (lo: number, hi: number) => number;
}

function drawsOf(seed: number): Draws {
  const rand = prng(seed);
  return {
    rand,
    pick: <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!,
    between: (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1)),
  };
}

/** The generated repository as a file tree; `tsRoot` is the JavaScript/TypeScript part (for peers). */
export function generateRepo(options: GenerateOptions = {}): { files: FileTree; tsRoot: string; pyRoot: string } {
  const total = options.files ?? 10_000;
  const draws = drawsOf(options.seed ?? 42);
  const packages = options.packages ?? Math.max(2, Math.round(total / 500));
  const files: Record<string, string> = {};

  // Plan paths first so that imports can point anywhere.
  const pyCount = Math.round(total * 0.25);
  const { plan, pyPackages } = planPaths(total - pyCount, pyCount, packages, draws.rand);
  const byPkg = new Map<number, Planned[]>();
  for (const p of plan) if (p.kind !== 'py') byPkg.set(p.pkg, [...(byPkg.get(p.pkg) ?? []), p]);
  const pyFiles = plan.filter((p) => p.kind === 'py');
  writeManifests(files, packages, byPkg, pyPackages);
  for (const f of plan) {
    if (f.kind === 'py') files[f.path] = pythonFile(f, pyFiles, draws);
    else files[f.path] = scriptImports(f, byPkg.get(f.pkg)!, packages, draws).join('\n') + '\n\n' + body(f, draws.rand, draws.between);
  }
  return { files, tsRoot: 'packages', pyRoot: 'py' };
}

function planPaths(jsCount: number, pyCount: number, packages: number, rand: () => number): { plan: Planned[]; pyPackages: number } {
  const plan: Planned[] = [];
  for (let i = 0; i < jsCount; i++) {
    const r = rand();
    const kind: Kind = r < 0.6 ? 'ts' : r < 0.8 ? 'tsx' : 'js';
    const pkg = i % packages;
    const dir = `d${Math.floor(i / packages) % 12}`;
    const module = `m${i}`;
    plan.push({ path: `packages/p${pkg}/src/${dir}/${module}.${kind}`, kind, pkg, module });
  }
  const pyPackages = Math.max(2, Math.round(pyCount / 60));
  for (let i = 0; i < pyCount; i++) {
    const pkg = i % pyPackages;
    plan.push({ path: `py/app/pkg${pkg}/mod${i}.py`, kind: 'py', pkg, module: `mod${i}` });
  }
  return { plan, pyPackages };
}

/** package.json and tsconfig.json files, each package's index, the Python packages' `__init__.py`. */
function writeManifests(files: Record<string, string>, packages: number, byPkg: ReadonlyMap<number, Planned[]>, pyPackages: number): void {
  files['package.json'] = JSON.stringify({ name: 'generated', private: true, workspaces: ['packages/*'] }, null, 2) + '\n';
  files['tsconfig.json'] =
    JSON.stringify(
      { compilerOptions: { baseUrl: '.', paths: { '@shared/*': ['packages/p0/src/*'] }, jsx: 'react-jsx', strict: true } },
      null,
      2,
    ) + '\n';
  for (let p = 0; p < packages; p++) {
    files[`packages/p${p}/package.json`] =
      JSON.stringify(
        {
          name: `@gen/p${p}`,
          version: '1.0.0',
          type: 'module',
          exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } },
        },
        null,
        2,
      ) + '\n';
    files[`packages/p${p}/tsconfig.json`] =
      JSON.stringify({ extends: '../../tsconfig.json', compilerOptions: { rootDir: 'src', outDir: 'dist' } }, null, 2) + '\n';
    const exported = (byPkg.get(p) ?? []).filter((f) => f.kind === 'ts').slice(0, 8);
    files[`packages/p${p}/src/index.ts`] = exported
      .map((f) => `export * from './${f.path.split('/src/')[1]!.replace(/\.ts$/, '.js')}';\n`)
      .join('');
  }
  files['py/app/__init__.py'] = '';
  for (let p = 0; p < pyPackages; p++) files[`py/app/pkg${p}/__init__.py`] = `"""Package ${p}."""\n`;
}

/** The specifier of `to` from `from`'s directory. */
function relativeSpecifier(from: string, to: string): string {
  const a = from.split('/').slice(0, -1);
  const b = to.split('/');
  let i = 0;
  while (i < a.length && i < b.length - 1 && a[i] === b[i]) i++;
  const up = a.length - i;
  const rest = b.slice(i).join('/');
  return (up === 0 ? './' : '../'.repeat(up)) + rest;
}

/** A JavaScript/TypeScript file's imports: siblings mostly, other packages, `@shared`, externals, lazy imports. */
function scriptImports(f: Planned, siblings: readonly Planned[], packages: number, { rand, pick, between }: Draws): string[] {
  const rel = relativeSpecifier;
  const lines: string[] = [];
  const used = new Set<string>();
  const fanOut = between(2, 9);
  for (let k = 0; k < fanOut; k++) {
    const r = rand();
    if (r < 0.72) {
      const t = pick(siblings);
      if (t.path === f.path || used.has(t.path)) continue;
      used.add(t.path);
      const spec = rel(f.path, t.path).replace(/\.(ts|tsx|js)$/, '');
      const name = `f${t.module.slice(1)}`;
      if (f.kind === 'js')
        lines.push(
          rand() < 0.5 ? `const { ${name} } = require('${spec}');` : `import { ${name} } from '${spec}.${t.kind === 'js' ? 'js' : 'js'}';`,
        );
      else if (t.kind !== 'js' && rand() < 0.15) lines.push(`import type { T${t.module.slice(1)} } from '${spec}';`);
      else if (rand() < 0.3 && t.kind === 'ts') lines.push(`import { ${name} } from '${spec}.js';`);
      else lines.push(`import { ${name} } from '${spec}';`);
    } else if (r < 0.82) {
      const other = between(0, packages - 1);
      if (other !== f.pkg) lines.push(`import * as p${other} from '@gen/p${other}';`);
    } else if (r < 0.86) {
      lines.push(`import * as shared${k} from '@shared/index';`);
    } else if (r < 0.97) {
      const ext = pick(EXTERNAL_JS);
      lines.push(`import * as ext${k} from '${ext}';`);
    } else {
      const t = pick(siblings);
      lines.push(`export const lazy${k} = () => import('${rel(f.path, t.path).replace(/\.(ts|tsx|js)$/, '')}');`);
    }
  }
  return lines;
}

function pythonFile(f: Planned, pyFiles: readonly Planned[], { rand, pick, between }: Draws): string {
  const lines: string[] = [];
  const fanOut = between(1, 7);
  for (let k = 0; k < fanOut; k++) {
    const r = rand();
    const t = pick(pyFiles);
    if (t.path === f.path) continue;
    if (r < 0.4 && t.pkg === f.pkg) lines.push(`from .${t.module} import func_${t.module.slice(3)}`);
    else if (r < 0.7) lines.push(`from app.pkg${t.pkg}.${t.module} import func_${t.module.slice(3)}`);
    else if (r < 0.8) lines.push(`import app.pkg${t.pkg}.${t.module} as m${k}`);
    else lines.push(`import ${pick(EXTERNAL_PY)}`);
  }
  const n = f.module.slice(3);
  const out = [...lines, '', ''];
  const fns = between(2, 8);
  for (let i = 0; i < fns; i++) {
    out.push(
      `def ${i === 0 ? `func_${n}` : `helper_${n}_${i}`}(value, *args):`,
      `    """Compute step ${i} for module ${n}."""`,
      `    total = value`,
    );
    for (let s = 0; s < between(3, 14); s++) out.push(`    total = total * ${between(1, 9)} + len(str(args)) - ${between(0, 99)}`);
    out.push('    return total', '', '');
  }
  out.push(`class Service${n}:`, `    def __init__(self, config):`, `        self.config = config`, '');
  for (let i = 0; i < between(1, 5); i++)
    out.push(`    def method_${i}(self, x):`, `        return self.config.get("k${i}", x) + func_${n}(x)`, '');
  return out.join('\n') + '\n';
}

function body(f: Planned, rand: () => number, between: (lo: number, hi: number) => number): string {
  const n = f.module.slice(1);
  const ts = f.kind !== 'js';
  const out: string[] = [];
  if (ts) out.push(`export interface T${n} {`, `  id: string;`, `  count: number;`, `  tags: readonly string[];`, `}`, '');
  const fns = between(2, 10);
  for (let i = 0; i < fns; i++) {
    const name = i === 0 ? `f${n}` : `helper${n}_${i}`;
    out.push(
      `export function ${name}(${ts ? 'input: number, label = "x"' : 'input, label = "x"'})${ts ? ': number' : ''} {`,
      `  let acc = input;`,
    );
    for (let s = 0; s < between(3, 16); s++)
      out.push(`  acc = (acc * ${between(2, 9)} + label.length) % ${between(100, 999)}; // step ${s}`);
    out.push(`  return acc;`, `}`, '');
  }
  out.push(`export class Widget${n} {`, `  ${ts ? 'private ' : ''}value${ts ? ': number' : ''} = 0;`);
  for (let i = 0; i < between(1, 6); i++)
    out.push(`  update${i}(delta${ts ? ': number' : ''}) {`, `    this.value += delta * ${i + 1};`, `    return f${n}(this.value);`, `  }`);
  out.push('}', '');
  if (f.kind === 'tsx' || (f.kind === 'js' && rand() < 0.3)) {
    out.push(
      `export const View${n} = (props${ts ? ': { title: string }' : ''}) => (`,
      `  <section className="view">`,
      `    <h2>{props.title}</h2>`,
      `    <p>{f${n}(${between(1, 9)})}</p>`,
      `  </section>`,
      `);`,
      '',
    );
  }
  return out.join('\n');
}
