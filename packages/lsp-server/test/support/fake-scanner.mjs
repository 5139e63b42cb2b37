// A small stand-in scanning engine for the server's tests: real git diffs of every worktree
// against its merge base with `main` (unsaved buffers included), and one line-overlap channel.
// It exercises the server end to end without depending on the analysis engine's channels.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const git = (cwd, args, ok = [0]) => {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    if (ok.includes(e.status)) return e.stdout;
    throw e;
  }
};

function worktrees(repo) {
  const out = [];
  let cur;
  for (const line of git(repo, ['worktree', 'list', '--porcelain']).split('\n')) {
    if (line.startsWith('worktree ')) out.push((cur = { dir: line.slice(9) }));
    else if (line.startsWith('branch ')) cur.branch = line.slice('branch refs/heads/'.length);
  }
  return out;
}

function parseHunks(diff) {
  const hunks = [];
  for (const m of diff.matchAll(/^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/gm)) {
    const [os, oc, ns, nc] = [Number(m[1]), m[2] === undefined ? 1 : Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])];
    hunks.push({ base: oc === 0 ? [os + 1, os] : [os, os + oc - 1], current: nc === 0 ? [ns + 1, ns] : [ns, ns + nc - 1] });
  }
  return hunks;
}

function fileHunks(wt, base, path, override) {
  if (override === undefined) return parseHunks(git(wt.dir, ['diff', '-U0', '--no-color', base, '--', path]));
  const tmp = mkdtempSync(join(tmpdir(), 'fake-scan-'));
  try {
    writeFileSync(join(tmp, 'a'), git(wt.dir, ['show', `${base}:${path}`], [128]) ?? '');
    writeFileSync(join(tmp, 'b'), override);
    return parseHunks(git(tmp, ['diff', '--no-index', '-U0', '--no-color', 'a', 'b'], [1]));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

// Overlapping or touching base ranges (what git reports as a conflict).
const meets = (x, y) => x[0] <= y[1] + 1 && y[0] <= x[1] + 1;

function symbolAt(text, line) {
  const lines = text.split('\n');
  for (let i = Math.min(line, lines.length) - 1; i >= 0; i--) {
    const m = /function\s+(\w+)/.exec(lines[i]);
    if (m) return m[1];
  }
  return undefined;
}

export function createScanner(options) {
  let scans = 0;
  return {
    async scan(input = {}) {
      scans++;
      const overrides = input.overrides ?? {};
      const agents = [];
      for (const wt of worktrees(options.repo)) {
        if (!wt.branch || wt.branch === 'main') continue;
        const base = git(wt.dir, ['merge-base', 'HEAD', options.base ?? 'main']).trim();
        const own = overrides[wt.dir] ?? {};
        const paths = new Set(git(wt.dir, ['diff', '--name-only', base]).split('\n').filter(Boolean));
        for (const p of Object.keys(own)) paths.add(p);
        const files = [];
        for (const path of paths) {
          const hunks = fileHunks(wt, base, path, own[path]);
          if (hunks.length === 0) continue;
          files.push({
            path,
            status: 'modified',
            weight: 1,
            baseRanges: hunks.map((h) => h.base),
            newRanges: hunks.map((h) => h.current),
            hunks,
          });
        }
        const text = (path) => own[path] ?? readFileSync(join(wt.dir, path), 'utf8');
        if (files.length)
          agents.push({
            id: wt.branch,
            label: wt.branch,
            startedAt: 0,
            committedWork: 0,
            files,
            worktree: wt.dir,
            base,
            intent: input.intent?.[wt.branch],
            text,
          });
      }
      const links = [];
      const advisories = [];
      for (let i = 0; i < agents.length; i++)
        for (let j = i + 1; j < agents.length; j++) {
          const [a, b] = [agents[i], agents[j]].sort((x, y) => (x.id < y.id ? -1 : 1));
          const evidence = [];
          for (const fa of a.files)
            for (const fb of b.files) {
              if (fa.path !== fb.path) continue;
              for (const ha of fa.hunks)
                for (const hb of fb.hunks)
                  if (meets(ha.base, hb.base))
                    evidence.push({
                      message: `${a.id} and ${b.id} both change ${fa.path} around base lines ${Math.max(ha.base[0], hb.base[0])}–${Math.min(ha.base[1], hb.base[1])}.`,
                      kind: 'write-write',
                      risk: 1,
                      a: {
                        agent: a.id,
                        path: fa.path,
                        baseRange: ha.base,
                        range: ha.current,
                        symbol: symbolAt(a.text(fa.path), ha.current[0]),
                      },
                      b: {
                        agent: b.id,
                        path: fb.path,
                        baseRange: hb.base,
                        range: hb.current,
                        symbol: symbolAt(b.text(fb.path), hb.current[0]),
                      },
                    });
            }
          const risk = evidence.length ? 1 : 0;
          const level = risk ? 'resolution' : 'clear';
          links.push({
            a: a.id,
            b: b.id,
            risk,
            distance: 1 - risk,
            level,
            channels: [{ channel: 'overlap', weight: 1, risk, weighted: risk, precision: 'line', evidence }],
            evidence,
          });
          if (risk)
            advisories.push({
              a: a.id,
              b: b.id,
              level,
              risk,
              steer: b.id,
              hold: a.id,
              evidence,
              message: `${b.id} steers away from ${a.id}`,
            });
        }
      // FAKE_SCANNER_NO_WORKTREE=id: that agent comes from a source without a worktree (a branch, JSON).
      const clean = agents.map(({ text, ...rest }) =>
        rest.id === process.env.FAKE_SCANNER_NO_WORKTREE ? { ...rest, worktree: undefined } : rest,
      );
      return {
        version: 1,
        generatedAt: new Date(0).toISOString(),
        thresholds: { traffic: 0.35, resolution: 0.7 },
        weights: { overlap: 1 },
        agents: clean,
        advisories,
        links,
        positions: {},
        fileCoordinates: {},
        counts: {
          agents: clean.length,
          pairs: links.length,
          clear: links.length - advisories.length,
          traffic: 0,
          resolution: advisories.length,
          unknown: 0,
        },
        problems: [],
        // Lets tests see the engine's own view: how many scans ran and which intents arrived.
        meta: { scans, intent: input.intent ?? {}, changed: input.changed ?? null },
      };
    },
    dispose() {},
  };
}
