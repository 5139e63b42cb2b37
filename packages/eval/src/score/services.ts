/**
 * The `git` service of a replay: the scanner's own GitService, with each scenario's two sides
 * registered as committed agent states (head = tree = the observed commit, merge base = the
 * merge's base), so the merge channel and pair re-diffs work on history exactly as on worktrees.
 * Recreated every `recycleEvery` scenarios so its caches stay bounded on long replays.
 */
import { GitService, type RepositoryInfo } from '@airspace/git';
import type { Scenario } from '../extract/scenario.js';

export class ReplayGitService {
  private service: GitService | undefined;
  private used = 0;

  constructor(
    private readonly repository: RepositoryInfo,
    private readonly recycleEvery = 200,
  ) {}

  /** Services for one scenario: `{ git }`. */
  servicesFor(scenario: Scenario): { git: GitService } {
    if (!this.service || this.used >= this.recycleEvery) {
      this.service?.dispose();
      this.service = new GitService(this.repository);
      this.used = 0;
    }
    this.used++;
    const git = this.service;
    scenario.agents.forEach((agent, i) => {
      const side = scenario.sides[i]!;
      git.register({ id: agent.id, head: side.commit, tree: side.commit, dirty: false, mergeBase: scenario.base });
    });
    return { git };
  }

  dispose(): void {
    this.service?.dispose();
    this.service = undefined;
  }
}
