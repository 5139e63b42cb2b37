/**
 * A large airspace for the view's browser test (100 agents, 10,000 files), made by core's
 * `scanAirspace` on in-memory agents with two small channels defined here: line overlap in base
 * coordinates (precision `line`) and a direct import between touched files (precision `file`).
 * Deterministic: fixed clock, fixed paths. (The demo repository is scanned for real.)
 */
import { defineChannel, scanAirspace, type Agent, type Evidence, type FileEdit, type Range, type ScanResult } from '@airspace/core';

const NOW = Date.parse('2026-12-02T12:00:00Z');

function overlaps(x: Range, y: Range): boolean {
  // Touching or overlapping base ranges conflict in a merge (insertions are [k+1, k]).
  return x[0] <= y[1] + 1 && y[0] <= x[1] + 1;
}

const linesChannel = defineChannel({
  id: 'lines',
  defaultWeight: 1,
  meta: { description: 'Changed lines of one file overlap in base coordinates.', precision: 'line' },
  score(a, b) {
    const evidence: Evidence[] = [];
    const theirs = new Map(b.files.map((f) => [f.path, f] as const));
    for (const fa of a.files) {
      const fb = theirs.get(fa.path);
      if (!fb) continue;
      if (fa.baseRanges === 'whole' || fb.baseRanges === 'whole') {
        evidence.push({
          kind: 'whole-file',
          risk: 1,
          message: `${a.label} and ${b.label} both rewrite ${fa.path}.`,
          a: { agent: a.id, path: fa.path },
          b: { agent: b.id, path: fb.path },
        });
        continue;
      }
      for (const ra of fa.baseRanges) {
        for (const rb of fb.baseRanges) {
          if (!overlaps(ra, rb)) continue;
          evidence.push({
            kind: 'overlap',
            risk: 1,
            message: `${a.label} changes ${fa.path} lines ${ra[0]}–${ra[1]} where ${b.label} changes lines ${rb[0]}–${rb[1]}.`,
            a: { agent: a.id, path: fa.path, baseRange: ra, range: ra },
            b: { agent: b.id, path: fb.path, baseRange: rb, range: rb },
          });
        }
      }
      if (!evidence.some((e) => e.a?.path === fa.path)) {
        evidence.push({
          kind: 'same-file',
          risk: 0.3,
          message: `${a.label} and ${b.label} both change ${fa.path}, on different lines.`,
          a: { agent: a.id, path: fa.path },
          b: { agent: b.id, path: fb.path },
        });
      }
    }
    const risk = evidence.reduce((m, e) => Math.max(m, e.risk ?? 0), 0);
    return { risk, evidence };
  },
});

/** A direct import between files the two agents change, over `edges` (a test double, not a plugin). */
const importsChannel = (edges: ReadonlyArray<readonly [string, string]>) =>
  defineChannel({
    id: 'imports',
    defaultWeight: 0.6,
    meta: { description: 'A file one agent changes imports a file the other changes.', precision: 'file' },
    score(a, b) {
      const pa = new Set(a.files.map((f) => f.path));
      const pb = new Set(b.files.map((f) => f.path));
      const evidence: Evidence[] = [];
      for (const [from, to] of edges) {
        const forward = pa.has(from) && pb.has(to);
        const backward = pb.has(from) && pa.has(to);
        if (!forward && !backward) continue;
        const [sa, sb] = forward ? [from, to] : [to, from];
        evidence.push({
          kind: 'import',
          risk: 1,
          chain: [from, to],
          message: `${from} imports ${to}.`,
          a: { agent: a.id, path: sa },
          b: { agent: b.id, path: sb },
        });
      }
      return { risk: evidence.length > 0 ? 1 : 0, evidence };
    },
  });

function edit(path: string, ranges: Range[] | 'whole', status: FileEdit['status'] = 'modified'): FileEdit {
  return { path, status, weight: 1, baseRanges: ranges, newRanges: ranges, lastEditedAt: NOW - 600_000 };
}

function agent(id: string, label: string, committedWork: number, startedMinutesAgo: number, files: FileEdit[]): Agent {
  return { id, label, committedWork, startedAt: NOW - startedMinutesAgo * 60_000, files, worktree: `../airspace-demo-${id}` };
}

export function scanAgents(agents: readonly Agent[], imports: ReadonlyArray<readonly [string, string]>, now = NOW): Promise<ScanResult> {
  return scanAirspace(agents, { channels: [linesChannel, importsChannel(imports)], now }, { edges: imports });
}

/**
 * Many agents over many files: `agentCount` agents, each in its own module, touching `fileCount`
 * distinct files in total; every fifth agent also changes lines its neighbour changes (resolution)
 * and every seventh imports from its neighbour (traffic).
 */
export function largeScan(agentCount: number, fileCount: number): Promise<ScanResult> {
  const dirs = ['src/core', 'src/api', 'src/ui/components', 'src/ui/pages', 'src/db', 'lib/util', 'test/unit', 'test/e2e', 'docs'];
  const perAgent = Math.ceil(fileCount / agentCount);
  const moduleOf = (k: number): string => `${dirs[k % dirs.length]}/m${Math.floor(k / dirs.length)}`;
  const agents: Agent[] = [];
  const imports: Array<readonly [string, string]> = [];
  let made = 0;
  for (let k = 0; k < agentCount; k++) {
    const files: FileEdit[] = [];
    for (let j = 0; j < perAgent && made < fileCount; j++, made++)
      files.push(edit(`${moduleOf(k)}/file${j}.ts`, [[(j % 50) + 1, (j % 50) + 8]]));
    if (k + 1 < agentCount && k % 5 === 0) files.push(edit(`${moduleOf(k + 1)}/file0.ts`, [[3, 6]]));
    if (k + 1 < agentCount && k % 7 === 3) imports.push([`${moduleOf(k)}/file1.ts`, `${moduleOf(k + 1)}/file1.ts`]);
    agents.push(agent(`agent-${String(k).padStart(3, '0')}`, `agent ${k}`, k % 7, 10 + k, files));
  }
  return scanAgents(agents, imports);
}

/** A test double standing for any channel with a partial finding: the given pairs get the given risk. */
const nudgeChannel = (pairs: ReadonlyArray<readonly [string, string, number]>) =>
  defineChannel({
    id: 'nudge',
    defaultWeight: 1,
    meta: { description: 'A partial finding on chosen pairs.', precision: 'file' },
    score(a, b) {
      const hit = pairs.find(([x, y]) => (x === a.id && y === b.id) || (x === b.id && y === a.id));
      if (!hit) return { risk: 0, evidence: [] };
      const path = a.files[0]!.path;
      return {
        risk: hit[2],
        evidence: [
          {
            kind: 'nudge',
            risk: hit[2],
            message: `${a.label} and ${b.label} change neighbouring code.`,
            a: { agent: a.id, path },
            b: { agent: b.id, path: b.files[0]!.path },
          },
        ],
      };
    },
  });

/** The pairs of a crowded airspace: which agents (1-based) collide, and how. */
export interface CrowdPlan {
  readonly resolution: ReadonlyArray<readonly [number, number]>;
  readonly traffic: ReadonlyArray<readonly [number, number]>;
  /** Clear pairs just under τ_TA (risk 0.455 against 0.526). */
  readonly near: ReadonlyArray<readonly [number, number]>;
}

/** The 8-agent airspace of a large library tour: two resolution pairs sharing agent 8, one apart, traffic, a near miss. */
export const PLAN_8: CrowdPlan = {
  resolution: [
    [1, 8],
    [8, 4],
    [2, 6],
  ],
  traffic: [
    [3, 7],
    [5, 6],
  ],
  near: [[4, 5]],
};

/** 20 agents: chains, a hub and pairs across the ring. */
export const PLAN_20: CrowdPlan = {
  resolution: [
    [1, 2],
    [3, 11],
    [5, 17],
    [6, 7],
    [7, 8],
    [12, 20],
    [14, 9],
  ],
  traffic: [
    [2, 10],
    [4, 15],
    [13, 16],
    [18, 19],
    [19, 1],
    [9, 12],
  ],
  near: [
    [6, 13],
    [10, 18],
  ],
};

/**
 * `count` agents ("agent 1" …) in one repository: every one edits its own lines of package.json
 * (so every pair has a little clear risk, the clutter of dozens of clear links), a resolution pair
 * edits the same lines of a shared file, a traffic pair imports one from the other, and a near pair
 * gets a partial finding of 0.455, just under τ_TA 0.526.
 */
export function crowdScan(count: number, plan: CrowdPlan): Promise<ScanResult> {
  const id = (k: number): string => `agent-${String(k).padStart(2, '0')}`;
  const files = new Map<number, FileEdit[]>();
  for (let k = 1; k <= count; k++)
    files.set(k, [
      edit(`src/area${k}/main.ts`, [[1, 20]]),
      edit(`src/area${k}/util.ts`, [[5, 9]]),
      edit('package.json', [[k * 10, k * 10 + 2]]),
    ]);
  plan.resolution.forEach(([x, y], i) => {
    files.get(x)!.push(edit(`src/shared/r${i}.ts`, [[10, 20]]));
    files.get(y)!.push(edit(`src/shared/r${i}.ts`, [[15, 25]]));
  });
  const imports = plan.traffic.map(([x, y]) => [`src/area${x}/main.ts`, `src/area${y}/main.ts`] as const);
  const agents = [...files].map(([k, f]) => agent(id(k), `agent ${k}`, k % 3, 10 + k, f));
  // With the clear 0.3 of package.json the pair scores 1 − 0.7 · (1 − 0.2214) = 0.455.
  const near = plan.near.map(([x, y]) => [id(x), id(y), 0.2214] as const);
  return scanAirspace(agents, { channels: [linesChannel, importsChannel(imports), nudgeChannel(near)], now: NOW }, { edges: imports });
}
