import { defineChannel } from '@airspace/core';
import type { ObservationInput } from '../src/index.js';

export const T0 = Date.parse('2026-03-01T12:00:00.000Z');
export const at = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();

export function observation(agentId: string, overrides: Partial<ObservationInput> = {}): ObservationInput {
  return {
    version: 1,
    agentId,
    taskId: 'task-7',
    repositoryId: 'github.com/acme/shop',
    base: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
    scopeId: 'worktree-diff',
    readPaths: [],
    writePaths: [],
    complete: true,
    observedAt: at(0),
    expiresAt: at(60),
    ...overrides,
  };
}

/** A channel with a fixed risk for any pair sharing nothing and a fixed risk otherwise; evidence names the pair. */
export function fixedChannel(id: string, risk: number, precision: 'line' | 'file' = 'file') {
  return defineChannel({
    id,
    defaultWeight: 1,
    meta: { precision },
    score(a, b) {
      return risk > 0 ? { risk, evidence: [{ kind: id, message: `${id}: ${a.id} × ${b.id} scored ${risk}.` }] } : { risk: 0, evidence: [] };
    },
  });
}

/** Scores 1 when the two agents edit a common path (whole-file overlap), 0 otherwise. */
export const samePathChannel = defineChannel({
  id: 'same-path',
  defaultWeight: 1,
  meta: { precision: 'line' },
  score(a, b) {
    const paths = new Set(a.files.map((f) => f.path));
    const shared = b.files.map((f) => f.path).filter((p) => paths.has(p));
    return shared.length > 0
      ? { risk: 1, evidence: [{ kind: 'overlap', message: `${a.id} and ${b.id} both touch ${shared.join(', ')}.` }] }
      : { risk: 0, evidence: [] };
  },
});

/** Scores 0.6 (above the default τ_TA, below τ_RA) when a direct import (`services.importGraph.importsOf`) joins the agents' files. */
export const edgeChannel = defineChannel({
  id: 'edge',
  defaultWeight: 1,
  meta: { precision: 'file' },
  requires: ['importGraph'],
  score(a, b, ctx) {
    const graph = ctx.services.importGraph.base;
    const pa = new Set(a.files.map((f) => f.path));
    const pb = new Set(b.files.map((f) => f.path));
    const edges = [...pa, ...pb].flatMap((from) => graph.importsOf(from).map((to) => [from, to] as [string, string]));
    const hit = edges.find(([from, to]) => (pa.has(from) && pb.has(to)) || (pb.has(from) && pa.has(to)));
    return hit
      ? { risk: 0.6, evidence: [{ kind: 'import', message: `${hit[0]} imports ${hit[1]}.`, chain: hit }] }
      : { risk: 0, evidence: [] };
  },
});
