/**
 * Hover: the findings on a line with their evidence and the other side's diff. The diffs are
 * read with git (other-change.ts) and cached by the other side's state, so a hover repeated on an
 * unchanged airspace runs no git.
 */
import type { Finding } from './findings.js';
import { coversLine } from './lines.js';
import { otherChange } from './other-change.js';
import { hoverMarkdown } from './present.js';
import { message, type Repo, type Session } from './session.js';

const MAX_CACHED_DIFFS = 500;

function otherDiff(diffCache: Map<string, Promise<string>>, f: Finding, repo: Repo | undefined): Promise<string> {
  if (!f.other.worktree || !f.other.path) return Promise.resolve('');
  const other = repo?.loop.latest?.agents.find((a) => a.id === f.other.agent);
  const base = other?.base;
  // The other side's state tree is in the key: its diff is fetched again only when it changed.
  const state = typeof other?.meta?.tree === 'string' ? other.meta.tree : '';
  const key = JSON.stringify([f.other.worktree, f.other.path, base ?? '', f.other.range ?? null, state]);
  if (diffCache.size > MAX_CACHED_DIFFS) diffCache.clear();
  let p = diffCache.get(key);
  if (!p) {
    p = otherChange({
      worktree: f.other.worktree,
      path: f.other.path,
      ...(f.other.range ? { range: f.other.range } : {}),
      ...(base ? { base } : {}),
    }).catch((e) => `(their diff is unavailable: ${message(e)})`);
    diffCache.set(key, p);
  }
  return p;
}

/** The other side's diff for each finding (empty where it has no worktree or path). */
export async function otherDiffs(s: Session, list: readonly Finding[], repo: Repo | undefined): Promise<Map<Finding, string>> {
  const out = new Map<Finding, string>();
  await Promise.all(list.map(async (f) => out.set(f, await otherDiff(s.diffCache, f, repo))));
  return out;
}

export function registerHover(s: Session): void {
  s.connection.onHover((params) =>
    s.guard('textDocument/hover', null, async () => {
      const at = s.findingsAt(params.textDocument.uri);
      const here = at?.list.filter((f) => coversLine(f.range, params.position.line)) ?? [];
      if (!at || here.length === 0) return null;
      const text = hoverMarkdown(here, await otherDiffs(s, here, s.repoOf(at.self)));
      return { contents: { kind: 'markdown' as const, value: text } };
    }),
  );
}
