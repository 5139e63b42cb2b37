/**
 * The `git` service that channels receive in `ctx.services.git`: the state of every loaded agent
 * (head, state tree, merge base), pair merge bases, edits re-diffed against a pair's merge base,
 * and scratch merges (run and parsed in `merge-tree.ts`). Everything is cached, so N agents cost
 * N states, not N² diffs or merges.
 */
import type { Agent, FileEdit, MergeOutcome, PairedEdits, PairEditsService, PairTrees, RecencyOptions } from '@airspace/core';
import { DEFAULT_RECENCY } from '@airspace/core';
import { join } from 'node:path';
import { runGitRaw } from './exec.js';
import type { RepositoryInfo } from './repository.js';
import { ScratchStore } from './scratch.js';
import { writeStateCommit } from './state-tree.js';
import { readLooseObject, writeLooseObject } from './blob.js';
import { TreeModel } from './tree-model.js';
import { createBlobReader, type BlobReader } from './blob-reader.js';
import { DEFAULT_MAX_FILE_BYTES, diffTrees, toFileEdit } from './working-set.js';
import { currentToBase } from './mapping.js';
import { mergeCommits, parseMergeTreeStdin } from './merge-tree.js';

/** What the service knows about one loaded agent. */
export interface AgentState {
  readonly id: string;
  /** Commit the agent is at (undefined for an unborn branch). */
  readonly head?: string;
  /** Tree-ish of its current state (a scratch tree for a worktree, the head commit for a ref). */
  readonly tree: string;
  /** True when the state holds work that is not committed (staged, unstaged, untracked, unsaved). */
  readonly dirty: boolean;
  /** Merge base with the scan base; undefined when missing (shallow clone, unrelated history). */
  readonly mergeBase?: string;
  readonly worktree?: string;
}

/** A merge's outcome is core's contract (the merge channel reads it through core alone). */
export type { MergeConflict, MergeOutcome } from '@airspace/core';
export { parseMergeTree, parseMergeTreeStdin } from './merge-tree.js';

/** Core's PairedEdits, plus whether a side had to be re-diffed. */
export interface PairEdits extends PairedEdits {
  /** True when at least one side was re-diffed against the pair's merge base. */
  readonly rediffed: boolean;
}

export interface GitServiceStats {
  diffs: number;
  merges: number;
  mergeBases: number;
  stateCommits: number;
}

export interface GitServiceOptions {
  readonly maxFileBytes?: number;
  readonly recency?: RecencyOptions;
  /** Parent directory for the scratch object directory (default: the OS temp directory). */
  readonly scratchParent?: string;
}

function agentId(agent: Agent | string): string {
  return typeof agent === 'string' ? agent : agent.id;
}

function findEdit(agent: Agent, path: string): FileEdit | undefined {
  return agent.files.find((f) => f.path === path) ?? agent.files.find((f) => f.oldPath === path);
}

export class GitService implements PairEditsService {
  readonly scratch: ScratchStore;
  readonly stats: GitServiceStats = { diffs: 0, merges: 0, mergeBases: 0, stateCommits: 0 };
  readonly maxFileBytes: number;
  readonly recency: RecencyOptions;
  private readonly states = new Map<string, AgentState>();
  private readonly mergeBaseCache = new Map<string, Promise<string | undefined>>();
  private readonly editCache = new Map<string, Promise<ReadonlyMap<string, FileEdit>>>();
  private readonly commitCache = new Map<string, Promise<string>>();
  private readonly mergeCache = new Map<string, Promise<MergeOutcome>>();
  private readonly treeModels = new Map<string, TreeModel>();
  private readonly listings = new Map<string, Promise<ReadonlyMap<string, string>>>();
  private objectReader: BlobReader | undefined;

  constructor(
    readonly repository: RepositoryInfo,
    options: GitServiceOptions = {},
  ) {
    this.scratch = new ScratchStore(join(repository.commonDir, 'objects'), options.scratchParent);
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.recency = options.recency ?? DEFAULT_RECENCY;
  }

  /** Where git runs for object-level work: any directory of the repository will do. */
  get cwd(): string {
    return this.repository.root;
  }

  register(state: AgentState): void {
    this.states.set(state.id, state);
  }

  state(agent: Agent | string): AgentState | undefined {
    return this.states.get(agentId(agent));
  }

  /**
   * The agent's state tree in memory (directories read on demand through one long-lived
   * `git cat-file --batch`), kept in step by `patchAgent`, which changes it in place and registers
   * the new tree. Undefined for an agent with no state.
   */
  treeModel(agent: Agent | string): TreeModel | undefined {
    const s = this.state(agent);
    if (!s) return undefined;
    const id = agentId(agent);
    const hit = this.treeModels.get(id);
    if (hit?.id === s.tree) return hit;
    const model = new TreeModel(s.tree, (tree) => this.readObject(tree));
    this.treeModels.set(id, model);
    return model;
  }

  /**
   * The content of an object of the repository or of the scratch store: what Airspace wrote
   * itself is read in-process, anything else through one long-lived `git cat-file --batch`.
   */
  readObject(id: string): Promise<Buffer> {
    const loose = readLooseObject(this.scratch.objectsDir, id);
    if (loose) return Promise.resolve(loose.content);
    this.objectReader ??= createBlobReader(this.cwd, { env: this.scratch.env() });
    return this.objectReader.read(id);
  }

  /** Merge base of two commits (cached, order-free); undefined when they share no history here. */
  mergeBase(x: string, y: string): Promise<string | undefined> {
    if (x === y) return Promise.resolve(x);
    const key = x < y ? `${x}:${y}` : `${y}:${x}`;
    let hit = this.mergeBaseCache.get(key);
    if (!hit) {
      this.stats.mergeBases++;
      hit = runGitRaw(['merge-base', x, y], { cwd: this.cwd, env: this.scratch.env(), okCodes: [1] }).then((r) =>
        r.code === 0 ? r.stdout.toString().trim().split('\n')[0] || undefined : undefined,
      );
      this.mergeBaseCache.set(key, hit);
    }
    return hit;
  }

  /** The pair's merge base: what `git merge` of the two agents' heads would use. */
  async pairBase(a: Agent | string, b: Agent | string): Promise<string | undefined> {
    const sa = this.state(a);
    const sb = this.state(b);
    if (!sa?.head || !sb?.head) return undefined;
    if (sa.mergeBase && sa.mergeBase === sb.mergeBase && sa.head === sb.head) return sa.mergeBase;
    return this.mergeBase(sa.head, sb.head);
  }

  /**
   * Both agents' edits of `path` relative to the pair's merge base (core's `PairEditsService`).
   * When both agents already share that merge base, their own FileEdits are returned without any
   * git call; otherwise the side(s) with another base are re-diffed with one whole-tree diff per
   * (base, state), shared by every path and partner: N agents cost at most N diffs per distinct
   * pair base, never N². Undefined when either side has no change of the path relative to the
   * pair's base.
   */
  async pairEdits(a: Agent, b: Agent, path: string): Promise<PairEdits | undefined> {
    const ownA = findEdit(a, path);
    const ownB = findEdit(b, path);
    const sa = this.state(a);
    const sb = this.state(b);
    const own = (): PairEdits | undefined =>
      ownA && ownB ? { a: ownA, b: ownB, rediffed: false, ...(a.base && a.base === b.base ? { base: a.base } : {}) } : undefined;
    if (!sa || !sb || !sa.mergeBase || !sb.mergeBase) return own();
    if (sa.mergeBase === sb.mergeBase) return own();
    const base = await this.pairBase(a, b);
    if (!base) return own();
    const paths = [...new Set([path, ownA?.path, ownA?.oldPath, ownB?.path, ownB?.oldPath].filter((p): p is string => !!p))];
    // A declared edit (intent) is not in the agent's state either: its lines are mapped like a
    // probe's, and a declared whole file is the whole file in any base.
    const side = (agent: Agent, s: AgentState, mine: FileEdit | undefined) =>
      s.mergeBase === base
        ? Promise.resolve(mine)
        : agent.meta?.['probe'] || mine?.declared
          ? this.probeAgainst(s, base, paths, mine)
          : this.editAgainst(s, base, paths, mine);
    const [ea, eb] = await Promise.all([side(a, sa, ownA), side(b, sb, ownB)]);
    return ea && eb ? { a: ea, b: eb, base, rediffed: true } : undefined;
  }

  /**
   * A probe (`airspace check`: `agent.files` are the lines about to change, not the agent's real
   * edits) in another base's lines: the probed current lines mapped through the real state's
   * hunks against that base.
   */
  private async probeAgainst(
    s: AgentState,
    base: string,
    paths: readonly string[],
    probe: FileEdit | undefined,
  ): Promise<FileEdit | undefined> {
    if (!probe || probe.newRanges === 'whole') return probe;
    const real = await this.editAgainst(s, base, paths, undefined);
    if (real?.baseRanges === 'whole') return { ...probe, baseRanges: 'whole', newRanges: 'whole' };
    const hunks = real?.hunks ?? [];
    return { ...probe, baseRanges: probe.newRanges.map((r) => currentToBase(hunks, r)) };
  }

  private async editAgainst(
    s: AgentState,
    base: string,
    paths: readonly string[],
    mine: FileEdit | undefined,
  ): Promise<FileEdit | undefined> {
    const edits = await this.editsAgainst(s, base);
    let edit: FileEdit | undefined;
    for (const p of paths) if ((edit = edits.get(p))) break;
    // Keep the agent's own recency weight: the re-diff changes coordinates, not age.
    return edit && mine
      ? { ...edit, weight: mine.weight, ...(mine.lastEditedAt !== undefined ? { lastEditedAt: mine.lastEditedAt } : {}) }
      : edit;
  }

  /**
   * All of an agent's edits relative to another base, by path and by old path: one whole-tree
   * diff per (base, state), shared by every path and every partner with that pair base.
   */
  private editsAgainst(s: AgentState, base: string): Promise<ReadonlyMap<string, FileEdit>> {
    const key = `${base}\0${s.tree}`;
    let hit = this.editCache.get(key);
    if (!hit) {
      this.stats.diffs++;
      const now = Date.now();
      hit = diffTrees(this.cwd, this.scratch.env(), base, s.tree, this.maxFileBytes).then((entries) => {
        const byPath = new Map<string, FileEdit>();
        for (const e of entries) {
          const edit = toFileEdit(e, {
            lastEditedAt: () => undefined,
            now,
            recency: this.recency,
            tooLarge: () => false,
            wholeFiles: false,
          });
          if (!edit) continue;
          byPath.set(edit.path, edit);
          if (edit.oldPath && !byPath.has(edit.oldPath)) byPath.set(edit.oldPath, edit);
        }
        return byPath;
      });
      this.editCache.set(key, hit);
    }
    return hit;
  }

  /** A commit holding the agent's current state (its head when nothing is uncommitted). */
  stateCommit(agent: Agent | string): Promise<string | undefined> {
    const s = this.state(agent);
    if (!s) return Promise.resolve(undefined);
    if (!s.dirty && s.head) return Promise.resolve(s.head);
    const key = `${s.tree}:${s.head ?? ''}`;
    let hit = this.commitCache.get(key);
    if (!hit) {
      this.stats.stateCommits++;
      hit = Promise.resolve(writeStateCommit(this.scratch, s.tree, s.head));
      this.commitCache.set(key, hit);
    }
    return hit;
  }

  /**
   * Three-way merge of two agents' current states with `git merge-tree --write-tree`, objects in
   * the scratch directory. Cached by the pair of state commits (i.e. trees and heads): a second
   * scan with nothing changed runs no merge.
   */
  async merge(a: Agent | string, b: Agent | string): Promise<MergeOutcome> {
    const [ca, cb] = await Promise.all([this.stateCommit(a), this.stateCommit(b)]);
    if (!ca || !cb) return { clean: true, conflicts: [], error: `no git state for ${!ca ? agentId(a) : agentId(b)}` };
    const key = mergeKey(ca, cb);
    let hit = this.mergeCache.get(key);
    if (!hit) {
      this.stats.merges++;
      hit = mergeCommits(this.cwd, this.scratch.env(), ca, cb);
      this.mergeCache.set(key, hit);
    }
    return namingAgents(await hit, [
      [ca, agentId(a)],
      [cb, agentId(b)],
    ]);
  }

  /**
   * Three-way merge of two commits (of the repository or of the scratch store), objects written
   * in the scratch directory; cached by the pair. `airspace order` merges cumulative results with it.
   */
  mergeCommits(x: string, y: string): Promise<MergeOutcome> {
    const key = `${x}>${y}`;
    let hit = this.mergeCache.get(key);
    if (!hit) {
      this.stats.merges++;
      hit = mergeCommits(this.cwd, this.scratch.env(), x, y);
      this.mergeCache.set(key, hit);
    }
    return hit;
  }

  /** A scratch commit of `tree` with these parents (fixed identity and date: equal inputs, equal ids). */
  writeCommit(tree: string, parents: readonly string[], message = 'airspace merge'): string {
    const who = 'airspace <airspace@localhost> 1000000000 +0000';
    return writeLooseObject(
      this.scratch.objectsDir,
      'commit',
      `tree ${tree}\n${parents.map((p) => `parent ${p}\n`).join('')}author ${who}\ncommitter ${who}\n\n${message}\n`,
    );
  }

  /**
   * Merges many pairs in one `git merge-tree --stdin` process (a channel's `prepare`), filling the
   * cache that `merge` reads. Pairs the batch could not answer are left for `merge` to run alone.
   */
  async mergeMany(pairs: readonly (readonly [Agent | string, Agent | string])[]): Promise<void> {
    const todo = new Map<string, [string, string]>();
    for (const [a, b] of pairs) {
      const [ca, cb] = await Promise.all([this.stateCommit(a), this.stateCommit(b)]);
      if (!ca || !cb) continue;
      const key = mergeKey(ca, cb);
      if (!this.mergeCache.has(key)) todo.set(key, [ca, cb]);
    }
    if (todo.size === 0) return;
    const list = [...todo.values()];
    const r = await runGitRaw(['merge-tree', '--stdin', '--name-only', '-z'], {
      cwd: this.cwd,
      env: this.scratch.env(),
      input: list.map(([x, y]) => `${x} ${y}\n`).join(''),
      okCodes: [1, 128],
    });
    const outcomes = parseMergeTreeStdin(r.stdout);
    outcomes.forEach((outcome, i) => {
      const pair = list[i];
      if (!pair) return;
      this.stats.merges++;
      this.mergeCache.set(mergeKey(pair[0], pair[1]), Promise.resolve(outcome));
    });
  }

  /**
   * The four trees of a pair's merge (core's `PairTrees`): the pair's merge base, each agent's
   * state commit and their scratch merge (`merge`'s, cached with it).
   */
  async pairTrees(a: Agent | string, b: Agent | string): Promise<PairTrees> {
    const [ca, cb, merge] = await Promise.all([this.stateCommit(a), this.stateCommit(b), this.merge(a, b)]);
    const base = ca && cb ? await this.mergeBase(ca, cb) : undefined;
    return { ...(base ? { base } : {}), a: ca ?? '', b: cb ?? '', merge };
  }

  /**
   * Every file of a tree-ish of the repository or the scratch store, path → blob id
   * (`git ls-tree -r`; submodules and symbolic links left out). Cached by id: a tree never changes.
   */
  listTree(tree: string): Promise<ReadonlyMap<string, string>> {
    let hit = this.listings.get(tree);
    if (!hit) {
      hit = runGitRaw(['ls-tree', '-r', '-z', '--full-tree', tree], { cwd: this.cwd, env: this.scratch.env() }).then((r) => {
        const files = new Map<string, string>();
        for (const line of r.stdout.toString('utf8').split('\0')) {
          const tab = line.indexOf('\t');
          if (tab < 0) continue;
          const [mode, type, id] = line.slice(0, tab).split(' ');
          if (type === 'blob' && mode !== '120000' && id) files.set(line.slice(tab + 1), id);
        }
        return files;
      });
      hit.catch(() => this.listings.delete(tree));
      this.listings.set(tree, hit);
    }
    return hit;
  }

  /** A blob's content as UTF-8 text. */
  async readBlob(id: string): Promise<string> {
    return (await this.readObject(id)).toString('utf8');
  }

  /** Removes the scratch object directory. */
  dispose(): void {
    this.objectReader?.close();
    this.scratch.dispose();
  }
}

/**
 * git's conflict messages name the merged states by commit id ("renamed … in 3f2a…, but deleted
 * in 9c1e…"); a work tree's state commit exists only in the scratch store, so they name the
 * agents instead.
 */
function namingAgents(outcome: MergeOutcome, names: readonly (readonly [commit: string, agent: string])[]): MergeOutcome {
  if (!outcome.conflicts.some((c) => c.message && names.some(([commit]) => c.message!.includes(commit)))) return outcome;
  const name = (message: string): string => names.reduce((text, [commit, agent]) => text.split(commit).join(agent), message);
  return { ...outcome, conflicts: outcome.conflicts.map((c) => (c.message ? { ...c, message: name(c.message) } : c)) };
}

function mergeKey(x: string, y: string): string {
  return x < y ? `${x}:${y}` : `${y}:${x}`;
}
