/**
 * The merge channel: exact textual conflicts. Each agent's current state (commits, staged,
 * unstaged, untracked, unsaved buffers) is a scratch commit; `git merge-tree --write-tree` merges
 * two of them the way `git merge` would, in a scratch object directory. Conflicted paths → risk 1
 * with evidence (the conflicting hunks in base and current lines where the agents' hunks show
 * them, git's own message otherwise); a clean merge → 0.
 *
 * Needs the `git` service (`GitService` of `@airspace/git`, whose `merge` gives core's
 * `MergeOutcome`). `prepare` merges every pair that shares a path in one `git merge-tree --stdin`
 * process; results are cached by the pair of state commits (tree + head), so a second scan with
 * nothing changed runs no merge. Pairs that share no path (nor a file/directory prefix) cannot
 * conflict textually and are not merged.
 */
import {
  conflicts,
  defineChannel,
  describeRanges,
  groupRuns,
  mapToCurrent,
  sharesOrWithinGap,
  spanOf,
  type Agent,
  type Evidence,
  type EvidenceSide,
  type FileEdit,
  type GitChannelService,
  type MergeConflict,
  type OptionsSchema,
  type Problem,
  type Range,
  touchedPaths,
} from '@airspace/core';

export interface MergeOptions {
  /** Evidence items per conflicted path at most. */
  readonly maxEvidencePerPath: number;
  /** Evidence items per pair at most. */
  readonly maxEvidence: number;
}

export const DEFAULT_MERGE_OPTIONS: MergeOptions = { maxEvidencePerPath: 5, maxEvidence: 25 };

export const MERGE_OPTIONS_SCHEMA: OptionsSchema<MergeOptions> = {
  maxEvidencePerPath: { type: 'number', integer: true, min: 1 },
  maxEvidence: { type: 'number', integer: true, min: 1 },
};

function parents(path: string): string[] {
  const out: string[] = [];
  for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) out.push(path.slice(0, i));
  return out;
}

/**
 * Whether a textual conflict is possible at all: a path both touch (either side of a rename), or
 * a file of one that is a directory of the other (file/directory conflict).
 */
export function mayConflict(a: Agent, b: Agent): boolean {
  const pa = touchedPaths(a);
  const pb = touchedPaths(b);
  for (const p of pa) if (pb.has(p)) return true;
  for (const p of pa) for (const d of parents(p)) if (pb.has(d)) return true;
  for (const p of pb) for (const d of parents(p)) if (pa.has(d)) return true;
  return false;
}

function findEdit(agent: Agent, path: string): FileEdit | undefined {
  return agent.files.find((f) => f.path === path) ?? agent.files.find((f) => f.oldPath === path);
}

const lines = (r: Range): string => (r[1] < r[0] ? `after line ${r[1]}` : r[0] === r[1] ? `line ${r[0]}` : `lines ${r[0]}–${r[1]}`);

function side(agent: string, f: FileEdit, baseRange?: Range): EvidenceSide {
  const range = baseRange && f.hunks ? mapToCurrent(f.hunks, baseRange) : undefined;
  return { agent, path: f.path, ...(baseRange ? { baseRange } : {}), ...(range ? { range } : {}) };
}

async function evidenceFor(
  a: Agent,
  b: Agent,
  c: MergeConflict,
  service: GitChannelService,
  opts: MergeOptions,
  problems: Problem[],
): Promise<Evidence[]> {
  let f = findEdit(a, c.path);
  let g = findEdit(b, c.path);
  const why = c.message ?? `${c.type ?? 'CONFLICT'} in ${c.path}`;
  if (f && g && a.base !== b.base) {
    try {
      const paired = await service.pairEdits(a, b, c.path);
      if (paired) [f, g] = [paired.a, paired.b];
    } catch (e) {
      problems.push({
        code: 'PAIR_EDITS_FAILED',
        channel: 'merge',
        path: c.path,
        message: `Re-basing ${c.path} for ${a.id} × ${b.id} failed: ${e instanceof Error ? e.message : String(e)}.`,
      });
    }
  }
  if (f && g && f.baseRanges !== 'whole' && g.baseRanges !== 'whole') {
    const hunkA = new Map((f.hunks ?? []).map((h) => [`${h.base[0]}:${h.base[1]}`, h.contentId]));
    const pairs = conflicts(f.baseRanges, g.baseRanges).filter((p) => {
      // Identical hunks merge cleanly; they are not where the conflict is.
      const idA = hunkA.get(`${p.a[0]}:${p.a[1]}`);
      const idB = g!.hunks?.find((h) => h.base[0] === p.b[0] && h.base[1] === p.b[1])?.contentId;
      return !(p.a[0] === p.b[0] && p.a[1] === p.b[1] && idA !== undefined && idA === idB);
    });
    if (pairs.length > 0) {
      // Neighbouring pairs, or several small changes inside one large one, share one line.
      const runs = groupRuns(
        pairs,
        () => 'conflict',
        (p) => [p.a, p.b],
        sharesOrWithinGap,
      );
      return runs.slice(0, opts.maxEvidencePerPath).map((run) => {
        const [as, bs] = [run.map((p) => p.a), run.map((p) => p.b)];
        const one = run.length === 1;
        const changes = one
          ? `: ${a.id} changes base ${lines(as[0]!)}, ${b.id} changes base ${lines(bs[0]!)}`
          : ` where ${a.id} (${describeRanges(as)}) and ${b.id} (${describeRanges(bs)}) change the base`;
        return {
          kind: 'merge-conflict',
          risk: 1,
          confidence: 'high' as const,
          a: side(a.id, f!, one ? as[0] : spanOf(as)),
          b: side(b.id, g!, one ? bs[0] : spanOf(bs)),
          message: `git merge of ${a.id} and ${b.id} conflicts in ${c.path}${changes} (${why}).`,
        };
      });
    }
  }
  return [
    {
      kind: 'merge-conflict',
      risk: 1,
      confidence: 'high',
      a: f ? side(a.id, f) : { agent: a.id, path: c.path },
      b: g ? side(b.id, g) : { agent: b.id, path: c.path },
      message: `git merge of ${a.id} and ${b.id} conflicts in ${c.path} (${why}).`,
    },
  ];
}

export function mergeChannel() {
  return defineChannel({
    id: 'merge',
    defaultWeight: 1,
    meta: {
      description:
        "Exact textual conflicts: a scratch `git merge-tree --write-tree` of the two agents' current states, uncommitted work included.",
      precision: 'line',
      scoresGitState: true,
    },
    defaultOptions: DEFAULT_MERGE_OPTIONS,
    optionsSchema: MERGE_OPTIONS_SCHEMA,
    requires: ['git'],
    async prepare(agents, ctx) {
      const service = ctx.services.git;
      if (service.mergeMany) {
        const pairs: [Agent, Agent][] = [];
        for (let i = 0; i < agents.length; i++) {
          for (let j = i + 1; j < agents.length; j++) if (mayConflict(agents[i]!, agents[j]!)) pairs.push([agents[i]!, agents[j]!]);
        }
        try {
          await service.mergeMany(pairs);
        } catch (e) {
          ctx.logger.warn(`merge: batch merge failed, merging pair by pair: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      return undefined;
    },
    async score(a, b, ctx) {
      const opts = ctx.options;
      const service = ctx.services.git;
      if (!mayConflict(a, b)) return { risk: 0, evidence: [] };
      const outcome = await service.merge(a, b);
      if (outcome.error) {
        return {
          risk: 0,
          evidence: [],
          problems: [
            { code: 'MERGE_UNAVAILABLE', channel: 'merge', message: `Could not merge ${a.id} and ${b.id}: ${outcome.error}; scored 0.` },
          ],
        };
      }
      if (outcome.clean || outcome.conflicts.length === 0) return { risk: 0, evidence: [] };
      const problems: Problem[] = [];
      const evidence: Evidence[] = [];
      for (const c of outcome.conflicts) evidence.push(...(await evidenceFor(a, b, c, service, opts, problems)));
      return { risk: 1, evidence: evidence.slice(0, opts.maxEvidence), ...(problems.length ? { problems } : {}) };
    },
  });
}

export default mergeChannel();
