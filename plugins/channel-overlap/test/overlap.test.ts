import { describe, expect, it } from 'vitest';
import { agent, channelTester, edit, scoreOnce } from '@airspace/core/testing';
import type { FileEdit, GitChannelService } from '@airspace/core';
import overlap from '../src/index.js';

const a = (...files: ReturnType<typeof edit>[]) => agent('alice', files);
const b = (...files: ReturnType<typeof edit>[]) => agent('bob', files);

channelTester.run('overlap', overlap, {
  low: [
    { name: 'different files', a: a(edit('src/a.ts', [[1, 10]])), b: b(edit('src/b.ts', [[1, 10]])), max: 0 },
    { name: 'same file, far apart', a: a(edit('src/a.ts', [[1, 10]])), b: b(edit('src/a.ts', [[200, 210]])), max: 0 },
    {
      name: 'one-line gap is clean (proximity only, below τ_TA)',
      a: a(edit('src/a.ts', [[1, 3]])),
      b: b(edit('src/a.ts', [[5, 6]])),
      kind: 'nearby',
      max: 0.3,
    },
    { name: 'insertions at different points', a: a(edit('src/a.ts', [[4, 3]])), b: b(edit('src/a.ts', [[9, 8]])), max: 0.2 },
    {
      name: 'identical change (same resulting blob)',
      a: a(edit('package.json', [[5, 5]], { newBlob: 'abc123' })),
      b: b(edit('package.json', [[5, 5]], { newBlob: 'abc123' })),
      kind: 'identical-change',
      max: 0.1,
    },
    {
      name: 'identical hunks (same base range and content) are compatible',
      a: a(edit('src/a.ts', [[10, 12]], { contentId: 'h1' })),
      b: b(edit('src/a.ts', [[10, 12]], { contentId: 'h1' })),
      kind: 'compatible-change',
      max: 0,
    },
    {
      name: 'both delete the file',
      a: a(edit('old.ts', 'whole', { status: 'deleted' })),
      b: b(edit('old.ts', 'whole', { status: 'deleted' })),
      kind: 'identical-change',
      max: 0.1,
    },
    {
      name: 'rename on one side, no line change on the other side of the same base',
      a: a(edit('src/new.ts', [], { status: 'renamed', oldPath: 'src/old.ts' })),
      b: b(edit('src/old.ts', [[3, 4]])),
      max: 0,
    },
    {
      name: 'intent on a path the other changes: traffic, not resolution',
      a: agent('alice', [], { intent: ['src/a.ts'] }),
      b: b(edit('src/a.ts', [[1, 2]])),
      kind: 'intent',
      max: 0.5,
    },
    {
      name: 'intent on unrelated paths',
      a: agent('alice', [], { intent: ['src/x.ts'] }),
      b: agent('bob', [edit('src/a.ts', [[1, 2]])], { intent: ['src/y.ts'] }),
      max: 0,
    },
    {
      name: 'stale nearby edits count less (recency)',
      a: a(edit('src/a.ts', [[1, 3]], { weight: 0.3 })),
      b: b(edit('src/a.ts', [[5, 6]], { weight: 0.5 })),
      kind: 'nearby',
      max: 0.05,
    },
    {
      name: 'a modified file without line information, stale',
      a: a(edit('src/a.ts', 'whole', { weight: 0.3 })),
      b: b(edit('src/a.ts', [[5, 6]])),
      kind: 'whole-file',
      max: 0.3,
    },
  ],
  high: [
    { name: 'overlapping lines', a: a(edit('src/a.ts', [[10, 20]])), b: b(edit('src/a.ts', [[15, 18]])), kind: 'overlap', min: 1 },
    {
      name: 'a conflict stays a conflict however old the edits',
      a: a(edit('src/a.ts', [[10, 20]], { weight: 0.3 })),
      b: b(edit('src/a.ts', [[15, 18]], { weight: 0.3 })),
      kind: 'overlap',
      min: 0.9,
    },
    {
      name: 'modify/delete with an old deletion',
      a: a(edit('src/a.ts', 'whole', { status: 'deleted', weight: 0.3 })),
      b: b(edit('src/a.ts', [[3, 3]])),
      kind: 'whole-file',
      min: 0.9,
    },
    { name: 'touching (adjacent) changes', a: a(edit('src/a.ts', [[1, 3]])), b: b(edit('src/a.ts', [[4, 6]])), kind: 'touching', min: 0.9 },
    {
      name: 'same insertion point',
      a: a(edit('src/a.ts', [[4, 3]])),
      b: b(edit('src/a.ts', [[4, 3]])),
      kind: 'same-insertion-point',
      min: 0.9,
    },
    { name: 'insertion inside a change', a: a(edit('src/a.ts', [[5, 4]])), b: b(edit('src/a.ts', [[3, 8]])), kind: 'overlap', min: 0.9 },
    {
      name: 'insertion right after a change',
      a: a(edit('src/a.ts', [[9, 8]])),
      b: b(edit('src/a.ts', [[3, 8]])),
      kind: 'touching',
      min: 0.9,
    },
    {
      name: 'thin overlap of two big regions is still a conflict',
      a: a(edit('src/a.ts', [[1, 100]])),
      b: b(edit('src/a.ts', [[100, 300]])),
      kind: 'overlap',
      min: 0.9,
    },
    {
      name: 'same path added by both',
      a: a(edit('src/new.ts', 'whole', { status: 'added', newBlob: 'x1' })),
      b: b(edit('src/new.ts', 'whole', { status: 'added', newBlob: 'x2' })),
      kind: 'whole-file',
      min: 1,
    },
    {
      name: 'modify/delete',
      a: a(edit('src/a.ts', 'whole', { status: 'deleted' })),
      b: b(edit('src/a.ts', [[3, 3]])),
      kind: 'whole-file',
      min: 1,
    },
    {
      name: 'binary on both sides',
      a: a(edit('img.png', [], { binary: true })),
      b: b(edit('img.png', [], { binary: true })),
      kind: 'whole-file',
      min: 1,
    },
    {
      name: 'rename on one side, overlapping edit on the other',
      a: a(edit('src/new.ts', [[3, 5]], { status: 'renamed', oldPath: 'src/old.ts' })),
      b: b(edit('src/old.ts', [[4, 4]])),
      kind: 'overlap',
      min: 1,
    },
    {
      name: 'a renamed file is named old → new in the evidence',
      a: a(edit('src/new.ts', [[3, 5]], { status: 'renamed', oldPath: 'src/old.ts' })),
      b: b(edit('src/old.ts', [[4, 4]])),
      kind: 'overlap',
      check: (r) => expect(r.evidence[0]!.message).toContain('of src/old.ts (alice renames it → src/new.ts) in the merge base'),
    },
    {
      name: 'many neighbouring conflicting hunks: one evidence line with a range; one far apart: a line of its own',
      a: a(
        edit('src/a.ts', [
          [10, 10],
          [12, 12],
          [14, 14],
          [16, 16],
          [18, 18],
          [100, 101],
        ]),
      ),
      b: b(
        edit('src/a.ts', [
          [10, 10],
          [12, 12],
          [14, 14],
          [16, 16],
          [18, 18],
          [100, 100],
        ]),
      ),
      kind: 'overlap',
      check: (r) => {
        expect(r.evidence.map((e) => e.message)).toEqual([
          'alice (lines 10–18, 5 changes) and bob (lines 10–18, 5 changes) change overlapping lines of src/a.ts in the merge base; git would report a conflict.',
          'alice (lines 100–101) and bob (line 100) change overlapping lines of src/a.ts in the merge base; git would report a conflict.',
        ]);
        expect(r.evidence[0]).toMatchObject({ a: { baseRange: [10, 18] }, b: { baseRange: [10, 18] } });
      },
    },
    {
      name: 'one large change against several small ones far apart: one evidence line',
      a: a(edit('src/a.ts', [[10, 60]])),
      b: b(
        edit('src/a.ts', [
          [12, 12],
          [30, 30],
          [55, 56],
        ]),
      ),
      kind: 'overlap',
      check: (r) =>
        expect(r.evidence.map((e) => e.message)).toEqual([
          'alice (lines 10–60) and bob (line 12, line 30 and lines 55–56) change overlapping lines of src/a.ts in the merge base; git would report a conflict.',
        ]),
    },
    {
      name: 'both rename one file to different paths',
      a: a(edit('src/x.ts', [], { status: 'renamed', oldPath: 'src/old.ts' })),
      b: b(edit('src/y.ts', [], { status: 'renamed', oldPath: 'src/old.ts' })),
      kind: 'whole-file',
      min: 1,
    },
    {
      name: 'compatible hunk does not hide a real conflict elsewhere',
      a: a(
        edit('src/a.ts', [], {
          hunks: [
            { base: [10, 12], current: [10, 12], contentId: 'same' },
            { base: [40, 41], current: [40, 41], contentId: 'mine' },
          ],
        }),
      ),
      b: b(
        edit('src/a.ts', [], {
          hunks: [
            { base: [10, 12], current: [10, 12], contentId: 'same' },
            { base: [41, 45], current: [41, 45], contentId: 'theirs' },
          ],
        }),
      ),
      kind: 'overlap',
      min: 0.9,
    },
  ],
});

describe('overlap evidence and options', () => {
  it('claims line precision only on line evidence: whole-file edits without lines are file-level', async () => {
    // A file over the size limit has no line information: each side's edit is the whole file.
    const tooLarge = await scoreOnce(overlap, a(edit('data/big.ts', 'whole')), b(edit('data/big.ts', 'whole')));
    expect(tooLarge.risk).toBe(1);
    expect(tooLarge.preciseRisk).toBe(0);
    expect(tooLarge.evidence[0]!.message).toContain('file-level evidence only');
    // A real line conflict in another file keeps its precision beside it.
    const mixed = await scoreOnce(
      overlap,
      a(edit('data/big.ts', 'whole'), edit('src/a.ts', [[3, 4]])),
      b(edit('data/big.ts', 'whole'), edit('src/a.ts', [[4, 6]])),
    );
    expect(mixed.preciseRisk).toBeCloseTo(0.9);
    // Certain conflicts git reports on whole files (modify/delete, add/add) stay precise.
    const modifyDelete = await scoreOnce(overlap, a(edit('src/a.ts', 'whole', { status: 'deleted' })), b(edit('src/a.ts', [[3, 3]])));
    expect(modifyDelete.preciseRisk).toBeUndefined();
    // ...unless an agent is incomplete (no merge base): its statuses are stand-ins too.
    const shallow = await scoreOnce(
      overlap,
      agent('alice', [edit('src/new.ts', 'whole', { status: 'added', newBlob: 'x1' })], { incomplete: ['no merge base'] }),
      b(edit('src/new.ts', 'whole', { status: 'added', newBlob: 'x2' })),
    );
    expect(shallow.risk).toBe(1);
    expect(shallow.preciseRisk).toBe(0);
    // Declared intent is a path, not lines.
    const intent = await scoreOnce(overlap, agent('alice', [], { intent: ['src/a.ts'] }), b(edit('src/a.ts', [[3, 3]])));
    expect(intent.risk).toBe(0.5);
    expect(intent.preciseRisk).toBe(0);
  });

  it('names both sides with base and current ranges mapped through hunks', async () => {
    // alice inserted 50 lines at the top and changed base lines 10–20; bob changed base lines 15–18.
    const alice = agent('alice', [
      edit(
        'src/a.ts',
        [
          [1, 0],
          [10, 20],
        ],
        {
          hunks: [
            { base: [1, 0], current: [1, 50] },
            { base: [10, 20], current: [60, 72] },
          ],
        },
      ),
    ]);
    const bob = agent('bob', [edit('src/a.ts', [[15, 18]])]);
    const result = await scoreOnce(overlap, alice, bob);
    expect(result.risk).toBe(1);
    const e = result.evidence.find((x) => x.kind === 'overlap')!;
    expect(e.a).toEqual({ agent: 'alice', path: 'src/a.ts', baseRange: [10, 20], range: [60, 72] });
    expect(e.b).toEqual({ agent: 'bob', path: 'src/a.ts', baseRange: [15, 18], range: [15, 18] });
    expect(e.message).toContain('alice (lines 10–20) and bob (lines 15–18)');
    expect(e.message).toContain('git would report a conflict');
  });

  it('compares base coordinates, not new-side lines', async () => {
    // alice's new-side lines 60–70 are base lines 10–20; bob edits base 60–70: no overlap.
    const alice = agent('alice', [
      edit(
        'src/a.ts',
        [
          [1, 0],
          [10, 20],
        ],
        {
          newRanges: [
            [1, 50],
            [60, 70],
          ],
        },
      ),
    ]);
    const bob = agent('bob', [edit('src/a.ts', [[60, 70]])]);
    expect((await scoreOnce(overlap, alice, bob)).risk).toBe(0);
  });

  it('honours conflictFloor, identicalRisk and proximity options', async () => {
    const big = [agent('alice', [edit('f.ts', [[1, 100]])]), agent('bob', [edit('f.ts', [[100, 300]])])] as const;
    expect((await scoreOnce(overlap, ...big, { options: { conflictFloor: 0.6 } })).risk).toBeCloseTo(0.6);
    const gap = [agent('alice', [edit('f.ts', [[1, 3]])]), agent('bob', [edit('f.ts', [[5, 6]])])] as const;
    expect((await scoreOnce(overlap, ...gap)).risk).toBeCloseTo(0.3);
    expect((await scoreOnce(overlap, ...gap, { options: { proximityRisk: 0 } })).risk).toBe(0);
    const far = [agent('alice', [edit('f.ts', [[1, 3]])]), agent('bob', [edit('f.ts', [[12, 12]])])] as const; // 8 lines apart
    expect((await scoreOnce(overlap, ...far)).risk).toBeCloseTo(0.3 * Math.pow(0.5, 7 / 4));
    const same = [
      agent('alice', [edit('p.json', [[2, 2]], { newBlob: 'b1' })]),
      agent('bob', [edit('p.json', [[2, 2]], { newBlob: 'b1' })]),
    ] as const;
    expect((await scoreOnce(overlap, ...same, { options: { identicalRisk: 0 } })).risk).toBe(0);
  });

  it('scores declared intent as look-ahead, and lets real edits of the path win', async () => {
    const both = await scoreOnce(overlap, agent('alice', [], { intent: ['src/a.ts'] }), agent('bob', [], { intent: ['src/a.ts'] }));
    expect(both.risk).toBe(0.5);
    expect(both.evidence[0]!.message).toContain('bob also declared');
    const edited = await scoreOnce(
      overlap,
      agent('alice', [edit('src/a.ts', [[1, 2]])], { intent: ['src/a.ts'] }),
      b(edit('src/a.ts', [[100, 101]])),
    );
    expect(edited.risk).toBe(0);
    expect(
      (
        await scoreOnce(overlap, agent('alice', [], { intent: ['src/a.ts'] }), b(edit('src/a.ts', [[1, 2]])), {
          options: { intentRisk: 0 },
        })
      ).risk,
    ).toBe(0);
  });

  it('scores declared edits as look-ahead: file-level, saying "declared", real lines beside them still precise', async () => {
    // What the scanner makes of a declaration: no hunks, no blob, marked declared.
    const declared = (path: string, lines: 'whole' | [number, number][] = 'whole'): FileEdit => ({
      path,
      status: 'modified',
      weight: 1,
      baseRanges: lines,
      newRanges: lines,
      declared: true,
    });
    const both = await scoreOnce(overlap, a(declared('src/a.ts')), b(declared('src/a.ts')));
    expect(both.risk).toBe(1);
    expect(both.preciseRisk).toBe(0);
    expect(both.evidence[0]!.message).toBe('alice and bob both declared they are about to touch src/a.ts; file-level evidence only.');
    // Declared lines over the other's real lines: the conflict rule applies, but only as traffic.
    const lines = await scoreOnce(overlap, a(declared('src/a.ts', [[3, 4]])), b(edit('src/a.ts', [[4, 6]])));
    expect(lines.risk).toBeGreaterThanOrEqual(0.9);
    expect(lines.preciseRisk).toBe(0);
    expect(lines.evidence[0]!.message).toContain('(alice only declared it is about to change these lines)');
    // A real conflict stays precise when the agent also declares the whole file.
    const real = { ...edit('src/a.ts', [[10, 12]]), baseRanges: 'whole' as const, newRanges: 'whole' as const, declared: true };
    const mixed = await scoreOnce(overlap, a(real), b(edit('src/a.ts', [[11, 11]])));
    expect(mixed.risk).toBe(1);
    expect(mixed.preciseRisk ?? mixed.risk).toBeGreaterThanOrEqual(0.9);
    expect(mixed.evidence.map((e) => e.kind)).toEqual(expect.arrayContaining(['overlap', 'whole-file']));
  });

  it('takes the strongest shared file and multiplies recency weights', async () => {
    const alice = agent('alice', [edit('x.ts', [[1, 3]], { weight: 0.5 }), edit('y.ts', [[1, 3]], { weight: 1 })]);
    const bob = agent('bob', [edit('x.ts', [[5, 5]], { weight: 1 }), edit('y.ts', [[5, 5]], { weight: 0.8 })]);
    expect((await scoreOnce(overlap, alice, bob)).risk).toBeCloseTo(0.8 * 0.3);
    const conflict = agent('carol', [edit('x.ts', [[1, 10]], { weight: 0.5 }), edit('z.ts', [[1, 10]], { weight: 1 })]);
    const full = agent('dave', [edit('x.ts', [[1, 10]], { weight: 1 }), edit('z.ts', [[1, 10]], { weight: 0.95 })]);
    expect((await scoreOnce(overlap, conflict, full)).risk).toBeCloseTo(0.95);
  });

  it('re-bases through the git service when bases differ, and tolerates its absence or failure', async () => {
    const alice = agent('alice', [edit('src/a.ts', [[30, 32]])], { base: 'b1' });
    const bob = agent('bob', [edit('src/a.ts', [[2, 3]])], { base: 'b2' });
    const calls: string[] = [];
    const unused = () => Promise.reject(new Error('the overlap channel does not merge'));
    const git: GitChannelService = {
      merge: unused,
      pairEdits(x, y, path) {
        calls.push(`${x.id}×${y.id}:${path}`);
        return { a: edit('src/a.ts', [[2, 4]]), b: edit('src/a.ts', [[2, 3]]), base: 'm' };
      },
    };
    const rebased = await scoreOnce(overlap, alice, bob, { services: { git } });
    expect(calls).toEqual(['alice×bob:src/a.ts']);
    expect(rebased.risk).toBe(1);
    expect(rebased.evidence[0]!.confidence).toBeUndefined();

    const without = await scoreOnce(overlap, alice, bob);
    expect(without.risk).toBeCloseTo(0);

    const near = [
      agent('alice', [edit('f.ts', [[1, 3]])], { base: 'b1' }),
      agent('bob', [edit('f.ts', [[4, 4]])], { base: 'b2' }),
    ] as const;
    expect((await scoreOnce(overlap, ...near)).evidence[0]!.confidence).toBe('low');

    const failing: GitChannelService = { merge: unused, pairEdits: () => Promise.reject(new Error('no merge base')) };
    const degraded = await scoreOnce(overlap, ...near, { services: { git: failing } });
    expect(degraded.risk).toBeGreaterThanOrEqual(0.9);
    expect(degraded.problems![0]!.message).toContain('no merge base');
  });
});
