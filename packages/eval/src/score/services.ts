/**
 * The `git` service of a replay: the scanner's own GitService, with each scenario's two sides
 * registered as committed agent states (head = tree = the observed commit, merge base = the
 * merge's base), so the merge channel and pair re-diffs work on history exactly as on worktrees.
 * Recreated every `recycleEvery` scenarios so its caches stay bounded on long replays. The
 * `coChange` service (`ReplayHistory`) reads each side as of its observed commit.
 */
import type { CoChangeService, PastConflictsService } from '@airspace/core';
import { coChangeService, CommitHistory, GitService, PastConflictHistory, pastConflictsService, type RepositoryInfo } from '@airspace/git';
import type { Scenario } from '../extract/scenario.js';

export class ReplayGitService {
  private service: GitService | undefined;
  private used = 0;
  /** Scenarios holding each service (`hold`): a recycled service is disposed when the last lets go. */
  private readonly holders = new Map<GitService, number>();

  constructor(
    private readonly repository: RepositoryInfo,
    private readonly recycleEvery = 200,
  ) {}

  /** Services for one scenario: `{ git }`, for work that ends before the next scenario's (a scan). */
  servicesFor(scenario: Scenario): { git: GitService } {
    if (!this.service || this.used >= this.recycleEvery) {
      const old = this.service;
      this.service = new GitService(this.repository);
      this.used = 0;
      // Disposing removes its scratch objects; a scenario still holding it would find no repository there.
      if (old && !this.holders.has(old)) old.dispose();
    }
    this.used++;
    const git = this.service;
    scenario.agents.forEach((agent, i) => {
      const side = scenario.sides[i]!;
      git.register({ id: agent.id, head: side.commit, tree: side.commit, dirty: false, mergeBase: scenario.base });
    });
    return { git };
  }

  /**
   * Services for work that may outlast many other scenarios' (a type check, run concurrently):
   * the service is not disposed, even when recycled, until `release`.
   */
  hold(scenario: Scenario): { git: GitService; release(): void } {
    const { git } = this.servicesFor(scenario);
    this.holders.set(git, (this.holders.get(git) ?? 0) + 1);
    let held = true;
    const release = (): void => {
      if (!held) return;
      held = false;
      const holding = this.holders.get(git);
      if (holding === undefined) return; // the replay was disposed first
      if (holding > 1) return void this.holders.set(git, holding - 1);
      this.holders.delete(git);
      if (git !== this.service) git.dispose();
    };
    return { git, release };
  }

  dispose(): void {
    for (const git of this.holders.keys()) if (git !== this.service) git.dispose();
    this.holders.clear();
    this.service?.dispose();
    this.service = undefined;
  }
}

/**
 * The history services of a replay: one mined history per repository (the whole history of the
 * merges replayed, mined once and cached under the git directory), each side read as of its
 * observed commit — its ancestors only, the window counted back from it — so a replay never
 * looks past the moment it observes. `coChange` reads which files commits changed together;
 * `pastConflicts` (when asked) the merges among those ancestors, re-merged once and cached.
 */
export class ReplayHistory {
  private history: Promise<CommitHistory> | undefined;
  private past: Promise<PastConflictHistory> | undefined;
  private first = true;

  constructor(
    private readonly root: string,
    private readonly provide: { readonly coChange: boolean; readonly pastConflicts: boolean } = { coChange: true, pastConflicts: false },
  ) {}

  async servicesFor(scenario: Scenario): Promise<{ coChange?: CoChangeService; pastConflicts?: PastConflictsService }> {
    this.history ??= CommitHistory.open(this.root);
    const history = await this.history;
    // The whole history of the first (newest) merge, then of any merge not in it yet: mined once,
    // and from the cache on later runs (a live scan's cache holds only windows).
    if (this.first || !history.graph.has(scenario.merge)) {
      this.first = false;
      await history.ensure(scenario.merge);
    }
    const commits = new Map(scenario.agents.map((agent, i) => [agent.id, scenario.sides[i]!.commit]));
    const commitOf = (agent: { id: string }): string | undefined => commits.get(agent.id);
    const services: { coChange?: CoChangeService; pastConflicts?: PastConflictsService } = {};
    if (this.provide.coChange) services.coChange = coChangeService(history, commitOf);
    if (this.provide.pastConflicts) {
      this.past ??= PastConflictHistory.open(history, this.root);
      services.pastConflicts = pastConflictsService(await this.past, commitOf);
    }
    return services;
  }

  dispose(): void {
    void this.past?.then(
      (p) => p.dispose(),
      () => undefined,
    );
  }
}
