/**
 * The scan benchmark's inputs: the import graph of the generated repository (indexed once with
 * `@airspace/analysis`, kept as plain edges in a cache file so a second run does not parse again)
 * and deterministic agents that each change `files` files of it, most in one home directory.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { edgeKindsTo, buildIndex, memorySnapshot } from '@airspace/analysis';
import { importGraphOfEdges, type Agent, type FileEdit, type ImportGraphService } from '@airspace/core';
import { generateRepo, prng } from './generate.js';

export interface GraphEdges {
  readonly files: readonly string[];
  /** `[importer, imported, kinds]` */
  readonly edges: readonly (readonly [string, string, readonly string[]])[];
}

/** The import graph of `generateRepo({ files, seed })`, from a cache file when one was written. */
export async function generatedGraph(files: number, seed: number, cacheDir = join(tmpdir(), 'airspace-bench')): Promise<GraphEdges> {
  const file = join(cacheDir, `graph-${files}-${seed}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as GraphEdges;
  const repo = generateRepo({ files, seed });
  const ix = await buildIndex(memorySnapshot(repo.files));
  const edges: [string, string, string[]][] = [];
  for (const [from, targets] of ix.imports) for (const to of targets) edges.push([from, to, [...edgeKindsTo(ix.files.get(from), to)]]);
  const out: GraphEdges = { files: [...ix.files.keys()].sort(), edges };
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(file, JSON.stringify(out));
  return out;
}

/** The `importGraph` service over plain edges (every agent sees the base graph). */
export function graphService(g: GraphEdges): ImportGraphService {
  return importGraphOfEdges(g.edges, g.files);
}

/**
 * `count` agents of `perAgent` files each: 70% of an agent's files in its home directory (the
 * directory of a random file), the rest anywhere; one changed block of 1–12 lines per file. The
 * first n agents of a larger set are the agents of the smaller one.
 */
export function generateAgents(files: readonly string[], count: number, perAgent: number, seed = 7): Agent[] {
  const rand = prng(seed);
  const byDir = new Map<string, string[]>();
  for (const f of files) {
    const dir = f.slice(0, f.lastIndexOf('/'));
    (byDir.get(dir) ?? byDir.set(dir, []).get(dir)!).push(f);
  }
  const agents: Agent[] = [];
  for (let k = 0; k < count; k++) {
    const home = byDir.get(dirOf(files[Math.floor(rand() * files.length)]!))!;
    const chosen = new Map<string, FileEdit>();
    for (let tries = 0; chosen.size < Math.min(perAgent, files.length) && tries < perAgent * 20; tries++) {
      const path = rand() < 0.7 ? home[Math.floor(rand() * home.length)]! : files[Math.floor(rand() * files.length)]!;
      if (chosen.has(path)) continue;
      const start = 1 + Math.floor(rand() * 60);
      const end = start + Math.floor(rand() * 12);
      chosen.set(path, { path, status: 'modified', weight: 0.5 + rand() / 2, baseRanges: [[start, end]], newRanges: [[start, end]] });
    }
    agents.push({
      id: `agent-${String(k).padStart(4, '0')}`,
      label: `agent ${k}`,
      startedAt: k,
      committedWork: k % 5,
      files: [...chosen.values()],
    });
  }
  return agents;
}

function dirOf(path: string): string {
  return path.slice(0, path.lastIndexOf('/'));
}
