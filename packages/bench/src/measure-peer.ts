/**
 * One run of a peer tool in its own process, through its API:
 *   node dist/measure-peer.js <depcruise|madge> <repo> <subdir> <out.json>
 * Prints one JSON line `{ ms, cpuMs, maxRssMB, modules, edges }`; writes the relative-import edge list to out.json.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { inSubdirs, subdirList } from './subdirs.js';

const [tool, repo, subdir, out] = process.argv.slice(2);
if (!tool || !repo || !subdir || !out) {
  console.error('usage: measure-peer <depcruise|madge> <repo> <subdir> <out.json>');
  process.exit(2);
}

async function run(): Promise<void> {
  process.chdir(repo!);
  const edges: [string, string][] = [];
  let modules = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  if (tool === 'depcruise') {
    const { cruise } = (await import('dependency-cruiser')) as unknown as {
      cruise: (files: string[], options: Record<string, unknown>) => Promise<{ output: unknown }>;
    };
    const result = await cruise(subdirList(subdir!), {
      doNotFollow: { path: 'node_modules' },
      tsPreCompilationDeps: true,
      combinedDependencies: false,
      outputType: 'json',
      ...(existsSync('tsconfig.json') ? { tsConfig: { fileName: 'tsconfig.json' } } : {}),
    });
    const json = (typeof result.output === 'string' ? JSON.parse(result.output) : result.output) as {
      modules: { source: string; dependencies: { resolved: string; module: string; dependencyTypes: string[] }[] }[];
    };
    const ms = performance.now() - t0;
    for (const m of json.modules) {
      if (!inSubdirs(m.source, subdir!)) continue;
      modules++;
      for (const d of m.dependencies) if (d.module.startsWith('.') && inSubdirs(d.resolved, subdir!)) edges.push([m.source, d.resolved]);
    }
    finish(ms);
  } else {
    const name = 'madge'; // untyped package
    const madge = ((await import(name)) as { default: unknown }).default as (
      path: string | string[],
      config: Record<string, unknown>,
    ) => Promise<{ obj(): Record<string, string[]> }>;
    const res = await madge(subdirList(subdir!), {
      fileExtensions: ['ts', 'tsx', 'js', 'jsx', 'mjs', 'cjs'],
      ...(existsSync('tsconfig.json') ? { tsConfig: resolve('tsconfig.json') } : {}),
      baseDir: '.',
    });
    const ms = performance.now() - t0;
    const obj = res.obj();
    for (const [from, tos] of Object.entries(obj)) {
      modules++;
      for (const to of tos) edges.push([relative('.', resolve(from)), relative('.', resolve(to))]);
    }
    finish(ms);
  }
  function finish(ms: number) {
    // CPU time of the call, every thread (comparable under load, unlike wall time).
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    writeFileSync(out!, JSON.stringify(edges));
    console.log(JSON.stringify({ tool, ms, cpuMs, maxRssMB: process.resourceUsage().maxRSS / 1024, modules, edges: edges.length }));
  }
}

run().catch((e) => {
  console.error(e);
  process.exit(1);
});
