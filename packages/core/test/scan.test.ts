import { describe, expect, it } from 'vitest';
import { ChannelStopped, defineChannel, importGraphOfEdges, unavailableService, type Agent, type FileEdit } from '../src/index.js';
import { scanAirspace } from '../src/scan.js';
import { DEFAULT_THRESHOLDS } from '../src/scan-types.js';

function file(path: string, extra: Partial<FileEdit> = {}): FileEdit {
  return { path, status: 'modified', weight: 1, baseRanges: [[1, 5]], newRanges: [[1, 5]], ...extra };
}

function agent(id: string, paths: string[], extra: Partial<Agent> = {}): Agent {
  return { id, label: id, startedAt: 1000, committedWork: 0, files: paths.map((p) => file(p)), ...extra };
}

/** Risk = fixed value when the two agents share a path, evidence naming it. */
const samePath = (id: string, risk: number, precision: 'line' | 'file' = 'line', defaultWeight = 1) =>
  defineChannel({
    id,
    defaultWeight,
    meta: { precision },
    score(a, b) {
      const shared = a.files.find((f) => b.files.some((g) => g.path === f.path));
      if (!shared) return { risk: 0, evidence: [] };
      return {
        risk,
        evidence: [
          {
            message: `${a.id} and ${b.id} both edit ${shared.path}`,
            kind: 'same-file',
            a: { agent: a.id, path: shared.path },
            b: { agent: b.id, path: shared.path },
          },
        ],
      };
    },
  });

describe('scanAirspace', () => {
  it('scores every pair once, a < b by id, and raises advisories with right of way', async () => {
    const agents = [
      agent('carol', ['docs/readme.md']),
      agent('bob', ['src/a.ts'], { committedWork: 5 }),
      agent('alice', ['src/a.ts'], { committedWork: 1 }),
    ];
    const result = await scanAirspace(agents, { channels: [samePath('same', 0.9)], now: 0 });
    expect(result.links.map((l) => `${l.a}-${l.b}`)).toEqual(['alice-bob', 'alice-carol', 'bob-carol']);
    expect(result.counts).toMatchObject({ agents: 3, pairs: 3, clear: 2, resolution: 1, traffic: 0, unknown: 0 });
    const [adv] = result.advisories;
    expect(adv).toMatchObject({ a: 'alice', b: 'bob', level: 'resolution', steer: 'alice', hold: 'bob' });
    expect(adv!.message).toContain('alice');
    expect(adv!.message).toContain('bob');
    expect(adv!.message).toContain('RESOLUTION');
    expect(adv!.message).toContain('alice steers away, bob holds course');
    expect(adv!.message).toContain('both edit src/a.ts');
    expect(result.generatedAt).toBe('1970-01-01T00:00:00.000Z');
    expect(Object.keys(result.positions).sort()).toEqual(['alice', 'bob', 'carol']);
    expect(Object.keys(result.fileCoordinates).sort()).toEqual(['docs/readme.md', 'src/a.ts']);
    expect(result.weights).toEqual({ same: 1 });
  });

  it('uses weights and thresholds from options', async () => {
    const agents = [agent('a', ['x.ts']), agent('b', ['x.ts'])];
    const traffic = await scanAirspace(
      agents,
      { channels: [samePath('same', 0.9)] },
      { weights: { same: 0.5 }, thresholds: { traffic: 0.35, resolution: 0.7 } },
    );
    expect(traffic.links[0]!.risk).toBeCloseTo(0.45);
    expect(traffic.links[0]!.level).toBe('traffic');
    expect(traffic.advisories[0]!.message).toContain('TRAFFIC');
    const clear = await scanAirspace(
      agents,
      { channels: [samePath('same', 0.9)] },
      { weights: { same: 0.5 }, thresholds: { traffic: 0.5 } },
    );
    expect(clear.links[0]!.level).toBe('clear');
    expect(clear.advisories).toEqual([]);
    const bad = await scanAirspace(agents, { channels: [samePath('same', 0.9)] }, { thresholds: { traffic: 0.8, resolution: 0.5 } });
    expect(bad.thresholds).toEqual(DEFAULT_THRESHOLDS);
    expect(bad.problems.map((p) => p.code)).toEqual(['INVALID_THRESHOLDS']);
  });

  it('runs prepare once per scan and hands its result to score', async () => {
    let prepares = 0;
    let scores = 0;
    const channel = defineChannel<{ factor: number }, Map<string, number>>({
      id: 'counting',
      defaultWeight: 1,
      defaultOptions: { factor: 1 },
      prepare(agents, ctx) {
        prepares++;
        return new Map(agents.map((a) => [a.id, a.files.length * ctx.options.factor]));
      },
      score(a, b, ctx) {
        scores++;
        const risk = Math.min(1, ((ctx.prepared.get(a.id) ?? 0) + (ctx.prepared.get(b.id) ?? 0)) / 10);
        return { risk, evidence: risk > 0 ? [{ message: 'files' }] : [] };
      },
    });
    const agents = [agent('a', ['1', '2']), agent('b', ['3']), agent('c', [])];
    const result = await scanAirspace(agents, { channels: [channel] }, { channelOptions: { counting: { factor: 2 } } });
    expect(prepares).toBe(1);
    expect(scores).toBe(3);
    expect(result.links.find((l) => l.a === 'a' && l.b === 'b')!.risk).toBeCloseTo(0.6);
  });

  it('turns a throwing, NaN, out-of-range or evidence-less channel into problems without stopping the others', async () => {
    const throws = defineChannel({
      id: 'throws',
      defaultWeight: 1,
      meta: { precision: 'line' },
      score() {
        throw new Error('boom');
      },
    });
    const nan = defineChannel({ id: 'nan', defaultWeight: 1, score: () => ({ risk: Number.NaN, evidence: [] }) });
    const big = defineChannel({ id: 'big', defaultWeight: 1, score: async () => ({ risk: 2, evidence: [{ message: 'x' }] }) });
    const silent = defineChannel({ id: 'silent', defaultWeight: 0.2, score: () => ({ risk: 0.5, evidence: [] }) });
    const agents = [agent('a', ['x.ts']), agent('b', ['x.ts'])];
    const result = await scanAirspace(agents, { channels: [throws, nan, big, silent, samePath('same', 0.4)] });
    const link = result.links[0]!;
    // A risk without evidence is a problem and counts as 0.
    expect(link.channels.map((c) => [c.channel, c.risk])).toEqual([
      ['throws', 0],
      ['nan', 0],
      ['big', 0],
      ['silent', 0],
      ['same', 0.4],
    ]);
    expect(link.risk).toBeCloseTo(0.4);
    const codes = result.problems.map((p) => `${p.code}:${p.channel}`);
    expect(codes).toEqual(
      expect.arrayContaining(['CHANNEL_THREW:throws', 'RISK_OUT_OF_RANGE:nan', 'RISK_OUT_OF_RANGE:big', 'MISSING_EVIDENCE:silent']),
    );
    expect(result.problems.find((p) => p.code === 'CHANNEL_THREW')!.message).toContain('boom');
    expect(link.channels[0]!.problems![0]!.message).toContain('a × b');
  });

  it('scores a channel whose service is missing as 0 with a problem', async () => {
    const needs = defineChannel({
      id: 'needs-graph',
      defaultWeight: 1,
      requires: ['importGraph'],
      score: () => ({ risk: 1, evidence: [{ message: 'x' }] }),
    });
    const agents = [agent('a', ['x.ts']), agent('b', ['y.ts'])];
    const result = await scanAirspace(agents, { channels: [needs] });
    expect(result.links[0]!.risk).toBe(0);
    expect(result.links[0]!.channels[0]!.problems![0]!.code).toBe('MISSING_SERVICE');
    expect(result.problems.map((p) => p.code)).toEqual(['MISSING_SERVICE']);
    // A value that is not the service (no forAgent) is as good as missing: the channel is not called.
    const malformed = await scanAirspace(agents, { channels: [needs], services: { importGraph: {} as never } });
    expect(malformed.links[0]!.risk).toBe(0);
    expect(malformed.problems[0]).toMatchObject({ code: 'MISSING_SERVICE', channel: 'needs-graph' });
    expect(malformed.problems[0]!.message).toContain('forAgent()');
    const supplied = await scanAirspace(agents, { channels: [needs], services: { importGraph: importGraphOfEdges([]) } });
    expect(supplied.links[0]!.risk).toBe(1);
  });

  it('reports a channel whose service the front end cannot give as not checked, with its code and reason', async () => {
    const needs = defineChannel({
      id: 'needs-graph',
      defaultWeight: 1,
      requires: ['importGraph'],
      score: () => ({ risk: 1, evidence: [{ message: 'x' }] }),
    });
    const agents = [agent('a', ['x.ts']), agent('b', ['y.ts'])];
    const services = { importGraph: unavailableService('PARSER_UNAVAILABLE', 'no parser loaded') as never };
    const result = await scanAirspace(agents, { channels: [needs], services });
    const expected = {
      code: 'PARSER_UNAVAILABLE',
      channel: 'needs-graph',
      message: 'Channel "needs-graph" was not checked: it requires "importGraph", which is unavailable: no parser loaded.',
    };
    expect(result.problems).toEqual([expected]);
    expect(result.links[0]!.channels[0]).toMatchObject({ risk: 0, problems: [expected] });
  });

  it('caps file-precision channels at traffic, unless configured otherwise', async () => {
    const agents = [agent('a', ['x.ts']), agent('b', ['x.ts'])];
    const capped = await scanAirspace(agents, { channels: [samePath('dep', 0.95, 'file')] });
    expect(capped.links[0]!.level).toBe('traffic');
    expect(capped.links[0]!.levelReason).toMatch(/capped at traffic.*dep/);
    const free = await scanAirspace(
      agents,
      { channels: [samePath('dep', 0.95, 'file')] },
      { escalation: { resolutionPrecisions: ['line', 'symbol', 'file'] } },
    );
    expect(free.links[0]!.level).toBe('resolution');
    const precise = await scanAirspace(agents, { channels: [samePath('dep', 0.95, 'file'), samePath('lines', 0.8, 'line')] });
    expect(precise.links[0]!.level).toBe('resolution');
  });

  it('does not act on a risk without evidence, however high', async () => {
    const silent = defineChannel({
      id: 'silent',
      defaultWeight: 1,
      meta: { precision: 'line' },
      score: () => ({ risk: 0.9, evidence: [] }),
    });
    const result = await scanAirspace([agent('a', ['x.ts']), agent('b', ['y.ts']), agent('c', ['z.ts'])], { channels: [silent] });
    expect(result.counts).toMatchObject({ clear: 3, traffic: 0, resolution: 0 });
    expect(result.advisories).toEqual([]);
    expect(result.problems.filter((p) => p.code === 'MISSING_EVIDENCE')).toHaveLength(3);
  });

  it('lets whole-file evidence of a line channel raise traffic at most (preciseRisk)', async () => {
    const wholeFile = (preciseRisk: number) =>
      defineChannel({
        id: 'lines',
        defaultWeight: 1,
        meta: { precision: 'line' },
        score: (a, b) => ({
          risk: 1,
          preciseRisk,
          evidence: [{ message: `${a.id} and ${b.id} both rewrite x.ts (no line information)`, kind: 'whole-file' }],
        }),
      });
    const agents = [agent('a', ['x.ts']), agent('b', ['x.ts'])];
    const coarse = await scanAirspace(agents, { channels: [wholeFile(0)] });
    expect(coarse.links[0]).toMatchObject({ level: 'traffic', risk: 1 });
    expect(coarse.links[0]!.levelReason).toMatch(/capped at traffic.*lines \(whole-file\)/);
    expect(coarse.links[0]!.channels[0]!.preciseRisk).toBe(0);
    const partly = await scanAirspace(agents, { channels: [wholeFile(0.8)] });
    expect(partly.links[0]!.level).toBe('resolution');
    expect(partly.links[0]!.channels[0]!.preciseRisk).toBe(0.8);
  });

  it('lets a checked result overrule another channel: its findings of those kinds raise no resolution alone', async () => {
    const guess = (kind: string) =>
      defineChannel({
        id: 'guess',
        defaultWeight: 1,
        meta: { precision: 'symbol' },
        score: (a, b) => ({ risk: 0.9, evidence: [{ message: `${a.id} changes what ${b.id} reads`, kind }] }),
      });
    const checker = (clean: boolean) =>
      defineChannel({
        id: 'checker',
        defaultWeight: 1,
        meta: { precision: 'line' },
        score: () => ({
          risk: 0,
          evidence: [{ message: 'checked', kind: 'checked', risk: 0 }],
          ...(clean ? { overrules: [{ channel: 'guess', kinds: ['write-read'], reason: 'the compiler found no new error' }] } : {}),
        }),
      });
    const agents = [agent('a', ['x.ts']), agent('b', ['y.ts'])];
    // Not checked: today's behaviour.
    const unchecked = await scanAirspace(agents, { channels: [guess('write-read'), checker(false)] });
    expect(unchecked.links[0]!.level).toBe('resolution');
    // Checked clean: the risk stays, the level drops to traffic and says why.
    const checked = await scanAirspace(agents, { channels: [guess('write-read'), checker(true)] });
    expect(checked.links[0]).toMatchObject({ level: 'traffic', risk: 0.9 });
    expect(checked.links[0]!.levelReason).toMatch(/^guess overruled: the compiler found no new error; capped at traffic/);
    expect(checked.links[0]!.channels.find((c) => c.channel === 'checker')!.overrules).toHaveLength(1);
    // A finding of a kind not overruled keeps its resolution.
    const other = await scanAirspace(agents, { channels: [guess('write-write'), checker(true)] });
    expect(other.links[0]!.level).toBe('resolution');
  });

  it('keeps a pair with an incomplete agent unknown when only file-level evidence speaks', async () => {
    const incomplete = { incomplete: ['no merge base with main (shallow clone or unrelated history): compared file-level only'] };
    const agents = [agent('a', ['x.ts']), agent('b', ['x.ts'], incomplete)];
    const coarse = await scanAirspace(agents, { channels: [samePath('dep', 0.9, 'file')] });
    expect(coarse.links[0]!.level).toBe('unknown');
    expect(coarse.links[0]!.levelReason).toMatch(/no merge base.*file-level evidence alone \(risk 0\.90\)/);
    expect(coarse.counts.unknown).toBe(1);
    expect(coarse.advisories[0]!.level).toBe('unknown');
    // What could not be seen has no probability (the risk 0.90 would read as a near-certain collision).
    expect(coarse.links[0]!.probability).toBeUndefined();
    expect(coarse.advisories[0]!.probability).toBeUndefined();
    const precise = await scanAirspace(agents, { channels: [samePath('lines', 0.6, 'line')] });
    expect(precise.links[0]!.level).toBe('traffic');
    expect(precise.links[0]!.probability).toEqual(expect.any(Number));
  });

  it('never clears a pair with an incomplete agent, a one-sided base or different repositories', async () => {
    const channels = [samePath('same', 0.9)];
    const incomplete = await scanAirspace([agent('a', ['x.ts']), agent('b', ['y.ts'], { incomplete: ['diff timed out'] })], { channels });
    expect(incomplete.links[0]!.level).toBe('unknown');
    expect(incomplete.links[0]!.levelReason).toContain('diff timed out');
    expect(incomplete.advisories[0]!.level).toBe('unknown');
    expect(incomplete.counts.unknown).toBe(1);
    expect(incomplete.problems.map((p) => p.code)).toContain('INCOMPLETE_AGENT');

    const stillRisky = await scanAirspace([agent('a', ['x.ts']), agent('b', ['x.ts'], { incomplete: ['partial'] })], { channels });
    expect(stillRisky.links[0]!.level).toBe('resolution');

    const oneBase = await scanAirspace([agent('a', ['x.ts'], { base: 'abc' }), agent('b', ['y.ts'])], { channels });
    expect(oneBase.links[0]!.level).toBe('unknown');
    expect(oneBase.links[0]!.levelReason).toContain('no merge base');

    const repos = await scanAirspace([agent('a', ['x.ts'], { repository: 'r1' }), agent('b', ['x.ts'], { repository: 'r2' })], {
      channels,
    });
    expect(repos.links[0]!).toMatchObject({ level: 'unknown', risk: 0 });
    expect(repos.problems.map((p) => p.code)).toContain('INCOMPARABLE_AGENTS');

    const bothBases = await scanAirspace([agent('a', ['x.ts'], { base: 'abc' }), agent('b', ['y.ts'], { base: 'def' })], { channels });
    expect(bothBases.links[0]!.level).toBe('clear');
  });

  it('reports duplicate channel ids, duplicate agents and invalid ranges without throwing', async () => {
    const bad = {
      ...agent('b', ['y.ts']),
      files: [
        file('y.ts', {
          baseRanges: [
            [5, 1],
            [2, 3],
          ] as never,
          weight: Number.NaN,
        }),
      ],
    };
    const result = await scanAirspace([agent('a', ['x.ts']), agent('a', ['z.ts']), bad], {
      channels: [samePath('same', 0.9), samePath('same', 0.1), { id: 'Bad Id' } as never],
    });
    const codes = result.problems.map((p) => p.code);
    expect(codes).toEqual(
      expect.arrayContaining(['DUPLICATE_CHANNEL_ID', 'INVALID_CHANNEL', 'DUPLICATE_AGENT_ID', 'INVALID_RANGE', 'INVALID_WEIGHT']),
    );
    expect(result.counts.agents).toBe(2);
    expect(result.weights).toEqual({ same: 1 });
  });

  it('survives malformed agents (no files array, entries without a path)', async () => {
    const broken = [
      { id: 'a', label: 'a', startedAt: 0, committedWork: 0, files: 'nope' } as never,
      { id: 'b', label: 'b', startedAt: 0, committedWork: 0, files: [null, { weight: 1 }, file('ok.ts')] } as never,
    ];
    const result = await scanAirspace(broken, { channels: [samePath('same', 0.9)] });
    expect(result.counts.pairs).toBe(1);
    expect(result.problems.filter((p) => p.code === 'MALFORMED_AGENT')).toHaveLength(3);
    expect(Object.keys(result.fileCoordinates)).toEqual(['ok.ts']);
  });

  it('keeps the strongest evidence first on links', async () => {
    const weak = defineChannel({ id: 'weak', defaultWeight: 0.2, score: (a) => ({ risk: 1, evidence: [{ message: `weak ${a.id}` }] }) });
    const strong = defineChannel({
      id: 'strong',
      defaultWeight: 1,
      meta: { precision: 'line' },
      score: (a) => ({ risk: 0.5, evidence: [{ message: `strong ${a.id}` }] }),
    });
    const result = await scanAirspace([agent('a', []), agent('b', [])], { channels: [weak, strong] });
    expect(result.links[0]!.evidence.map((e) => e.message)).toEqual(['strong a', 'weak a']);
  });
});

describe('scanAirspace: third-party channels cannot stop, stall or change the scan', () => {
  const agents = () => [agent('a', ['x.ts']), agent('b', ['x.ts']), agent('c', ['x.ts'])];
  const budgets = (id: string, channelMs: number, callMs: number) => ({ budgets: { [id]: { channelMs, callMs } } });

  it('a score that never resolves times out per call; the channel scores 0 for the rest, the others go on', async () => {
    let calls = 0;
    let aborted: unknown;
    const never = defineChannel({
      id: 'never',
      defaultWeight: 1,
      score: (_a, _b, ctx) => {
        calls++;
        ctx.signal?.addEventListener('abort', () => (aborted = ctx.signal!.reason));
        return new Promise(() => undefined);
      },
    });
    const result = await scanAirspace(agents(), { channels: [samePath('same', 0.9), never] }, budgets('never', 5000, 30));
    expect(calls).toBe(1); // stopped after the first stalled call, not once per pair
    expect(result.links).toHaveLength(3);
    expect(result.links.every((l) => l.level === 'resolution')).toBe(true);
    for (const l of result.links)
      expect(l.channels.find((c) => c.channel === 'never')).toMatchObject({ risk: 0, problems: [{ code: 'CHANNEL_TIMED_OUT' }] });
    const timedOut = result.problems.filter((p) => p.code === 'CHANNEL_TIMED_OUT');
    expect(timedOut).toHaveLength(1);
    expect(timedOut[0]).toMatchObject({ channel: 'never' });
    expect(timedOut[0]!.message).toMatch(/"never" did not answer within 30 ms while scoring a × b/);
    expect(aborted).toMatchObject({ code: 'CHANNEL_TIMED_OUT' });
  });

  it('a prepare that never resolves is bounded too', async () => {
    const stalls = defineChannel({
      id: 'stalls',
      defaultWeight: 1,
      prepare: () => new Promise(() => undefined),
      score: () => ({ risk: 1, evidence: [{ message: 'x' }] }),
    });
    const result = await scanAirspace(agents(), { channels: [stalls] }, budgets('stalls', 5000, 30));
    expect(result.links.every((l) => l.risk === 0)).toBe(true);
    expect(result.problems.find((p) => p.code === 'CHANNEL_TIMED_OUT')?.message).toMatch(
      /"stalls" did not answer within 30 ms while preparing/,
    );
  });

  it('a channel over its budget scores 0 for the remaining pairs, with a problem naming it and the budget', async () => {
    let calls = 0;
    const slow = defineChannel({
      id: 'slow',
      defaultWeight: 1,
      score: async () => {
        calls++;
        await new Promise((r) => setTimeout(r, 40));
        return { risk: 0.5, evidence: [{ message: 'slowly' }] };
      },
    });
    const result = await scanAirspace(agents(), { channels: [slow] }, budgets('slow', 60, 1000));
    expect(calls).toBe(2); // 40 ms, then the second call is cut at the remaining 20 ms
    const risks = result.links.map((l) => l.channels.find((c) => c.channel === 'slow')!.risk);
    expect(risks).toEqual([0.5, 0, 0]);
    const over = result.problems.filter((p) => p.code === 'CHANNEL_OVER_BUDGET');
    expect(over).toHaveLength(1);
    expect(over[0]).toMatchObject({ channel: 'slow' });
    expect(over[0]!.message).toMatch(/"slow" used its time budget of 60 ms/);
  });

  it('a synchronous slow score is stopped once it has spent the budget', async () => {
    const busy = defineChannel({
      id: 'busy',
      defaultWeight: 1,
      score: () => {
        const until = Date.now() + 30;
        while (Date.now() < until);
        return { risk: 0.5, evidence: [{ message: 'busy' }] };
      },
    });
    const result = await scanAirspace(agents(), { channels: [busy] }, budgets('busy', 20, 1000));
    expect(result.links.map((l) => l.channels[0]!.risk)).toEqual([0.5, 0, 0]);
    expect(result.problems.map((p) => p.code)).toContain('CHANNEL_OVER_BUDGET');
  });

  it('a host that throws ChannelStopped (a plugin thread that exited) stops the channel for the rest of the scan', async () => {
    let calls = 0;
    const exits = defineChannel({
      id: 'exits',
      defaultWeight: 1,
      score: () => {
        calls++;
        throw new ChannelStopped({ code: 'PLUGIN_EXITED', channel: 'exits', message: 'Plugin ./exits.mjs called process.exit(0).' });
      },
    });
    const result = await scanAirspace(agents(), { channels: [samePath('same', 0.9), exits] });
    expect(calls).toBe(1);
    expect(result.problems).toEqual([{ code: 'PLUGIN_EXITED', channel: 'exits', message: 'Plugin ./exits.mjs called process.exit(0).' }]);
    expect(result.links.map((l) => l.channels.find((c) => c.channel === 'exits')!.problems?.[0]?.code)).toEqual([
      'PLUGIN_EXITED',
      'PLUGIN_EXITED',
      'PLUGIN_EXITED',
    ]);
    expect(result.counts.resolution).toBe(3);
  });

  it('channels without a budget (built-ins) are not timed', async () => {
    const slowish = defineChannel({
      id: 'slowish',
      defaultWeight: 1,
      score: async () => (await new Promise((r) => setTimeout(r, 20)), { risk: 0.5, evidence: [{ message: 'ok' }] }),
    });
    const result = await scanAirspace(agents(), { channels: [slowish] }, budgets('other', 1, 1));
    expect(result.links.map((l) => l.channels[0]!.risk)).toEqual([0.5, 0.5, 0.5]);
    expect(result.problems).toEqual([]);
  });

  it('a channel cannot change the agents it is given: inputs are frozen', async () => {
    const hacker = defineChannel({
      id: 'hacker',
      defaultWeight: 1,
      prepare(agents) {
        for (const a of agents) (a as { id: string }).id = 'hacked';
      },
      score(a, b) {
        (a as { label: string }).label = 'hacked';
        (a.files as FileEdit[]).push(file('evil.ts'));
        ((b.files[0] as FileEdit).baseRanges as [number, number][]).push([1, 1]);
        return { risk: 0, evidence: [] };
      },
    });
    const result = await scanAirspace(agents(), { channels: [samePath('same', 0.9), hacker] });
    expect(result.agents.map((a) => a.id)).toEqual(['a', 'b', 'c']);
    expect(result.agents.map((a) => a.label)).toEqual(['a', 'b', 'c']);
    expect(result.agents.every((a) => a.files.length === 1 && (a.files[0]!.baseRanges as unknown[]).length === 1)).toBe(true);
    expect(result.links.map((l) => `${l.a}-${l.b}`)).toEqual(['a-b', 'a-c', 'b-c']);
    expect(result.problems.filter((p) => p.code === 'CHANNEL_THREW' && p.channel === 'hacker').length).toBeGreaterThan(0);
  });
});
