import { describe, expect, it } from 'vitest';
import {
  appendAcknowledgement,
  appendReobservation,
  appendScopeRevision,
  createShadowTrail,
  summarizeShadowTrail,
  verifyShadowTrail,
} from '../src/index.js';
import type { ScopeRevisionPayload, ShadowTrail, TrailAdvisory } from '../src/index.js';
import { at, edgeChannel, observation, samePathChannel } from './helpers.js';

const channels = [samePathChannel, edgeChannel];
const alice = observation('alice', { writePaths: ['src/a.ts'] });
const bob = observation('bob', { writePaths: ['src/a.ts', 'src/b.ts'] });

async function colliding(): Promise<ShadowTrail> {
  return createShadowTrail(alice, bob, { now: at(1), channels, trailId: 'trail-1', eventId: 'e-created' });
}

const advisoryAt = (trail: ShadowTrail, i: number): TrailAdvisory => (trail.receipts[i]!.payload as { advisory: TrailAdvisory }).advisory;

describe('acknowledgements', () => {
  it('records one per observed agent, bound to the latest advisory', async () => {
    const created = await colliding();
    const one = appendAcknowledgement(created, { agentId: 'alice', note: 'seen' }, { now: at(2), eventId: 'e-ack-a' });
    const two = appendAcknowledgement(one, { agentId: 'bob' }, { now: at(3) });
    expect(verifyShadowTrail(JSON.parse(JSON.stringify(two)))).toMatchObject({ ok: true, receipts: 3 });
    const payload = two.receipts[1]!.payload;
    expect(payload).toEqual({
      advisoryEventId: 'e-created',
      advisoryHash: created.receipts[0]!.hash,
      agentId: 'alice',
      kind: 'acknowledgement',
      note: 'seen',
    });
    const summary = summarizeShadowTrail(two);
    expect(summary.acknowledgements.map((a) => a.agentId)).toEqual(['alice', 'bob']);
    expect(summary.awaitingAcknowledgement).toEqual([]);
  });

  it('refuses a third party, a repeat, a time before the last receipt, and an unknown advisory', async () => {
    const created = await colliding();
    expect(() => appendAcknowledgement(created, { agentId: 'mallory' }, { now: at(2) })).toThrow(
      expect.objectContaining({ code: 'not-a-party' }),
    );
    const acked = appendAcknowledgement(created, { agentId: 'alice' }, { now: at(2) });
    expect(() => appendAcknowledgement(acked, { agentId: 'alice' }, { now: at(3) })).toThrow(
      expect.objectContaining({ code: 'duplicate-acknowledgement' }),
    );
    expect(() => appendAcknowledgement(acked, { agentId: 'bob' }, { now: at(1) })).toThrow(
      expect.objectContaining({ code: 'time-regression' }),
    );
    expect(() => appendAcknowledgement(acked, { agentId: 'bob', advisoryEventId: 'nope' }, { now: at(3) })).toThrow(
      expect.objectContaining({ code: 'unknown-advisory' }),
    );
  });

  it('refuses to acknowledge a clear advisory: nothing was found', async () => {
    const clear = await createShadowTrail(observation('alice', { writePaths: ['a.ts'] }), observation('bob', { writePaths: ['b.ts'] }), {
      now: at(1),
      channels,
    });
    expect(() => appendAcknowledgement(clear, { agentId: 'alice' }, { now: at(2) })).toThrow(
      expect.objectContaining({ code: 'nothing-to-acknowledge' }),
    );
  });

  it('refuses to acknowledge an advisory a later event superseded', async () => {
    const created = await colliding();
    const reobserved = await appendReobservation(
      created,
      observation('alice', { writePaths: ['src/a.ts'], observedAt: at(5) }),
      observation('bob', { writePaths: ['src/a.ts'], observedAt: at(5) }),
      { now: at(6), channels },
    );
    expect(() => appendAcknowledgement(reobserved, { agentId: 'alice', advisoryEventId: 'e-created' }, { now: at(7) })).toThrow(
      expect.objectContaining({ code: 'superseded-advisory' }),
    );
  });
});

describe('scope revisions', () => {
  const revision = {
    agentId: 'bob',
    authorizationRef: 'ticket-42#comment-3',
    footprint: { readPaths: ['src/a.ts'], writePaths: ['src/b.ts', 'src/c.ts', 'src/b.ts'] },
  };

  it('records one declared revision, labelled declared-only, and scores the revised footprint', async () => {
    const created = await colliding();
    expect(advisoryAt(created, 0).level).toBe('resolution');
    const revised = await appendScopeRevision(created, revision, { now: at(4), channels, eventId: 'e-rev' });
    const payload = revised.receipts[1]!.payload as ScopeRevisionPayload;
    expect(payload.authorizationRef).toEqual({ label: 'declared-only', ref: 'ticket-42#comment-3' });
    expect(payload.footprint).toEqual({ readPaths: ['src/a.ts'], writePaths: ['src/b.ts', 'src/c.ts'] });
    expect(payload.observationEventId).toBe('e-created');
    // bob no longer writes src/a.ts but reads it: a write/read overlap, no write/write.
    expect(payload.advisory.exactOverlaps).toEqual({ writeWrite: [], aWritesBReads: ['src/a.ts'], aReadsBWrites: [] });
    expect(payload.advisory.level).toBe('resolution');
    const summary = summarizeShadowTrail(revised);
    expect(summary.latestAdvisory).toMatchObject({ eventId: 'e-rev', kind: 'scope-revision', basis: 'declared' });
    expect(summary.scopeRevisions).toEqual([
      { eventId: 'e-rev', agentId: 'bob', time: at(4), authorizationRef: { label: 'declared-only', ref: 'ticket-42#comment-3' } },
    ]);
    expect(summary.statement).toMatch(/declared-only, not validated/);
  });

  it('is refused once an original observation has expired at the declared time', async () => {
    const created = await createShadowTrail(alice, observation('bob', { writePaths: ['src/a.ts'], expiresAt: at(30) }), {
      now: at(1),
      channels,
    });
    await expect(appendScopeRevision(created, revision, { now: at(30), channels })).rejects.toMatchObject({
      code: 'observation-not-current',
      message: expect.stringMatching(/bob expired/),
    });
  });

  it('is refused while an original observation is future-dated at the declared time', async () => {
    // Created (and unknown) at minute 1 with bob observed at minute 20; a declaration at minute 2 precedes bob's observation.
    const created = await createShadowTrail(alice, observation('bob', { observedAt: at(20), expiresAt: at(80) }), { now: at(1), channels });
    expect(advisoryAt(created, 0).level).toBe('unknown');
    await expect(appendScopeRevision(created, revision, { now: at(2), channels })).rejects.toMatchObject({
      code: 'observation-not-current',
      message: expect.stringMatching(/future-dated/),
    });
  });

  it('allows one revision per observed pair, a third party none, and another after a re-observation', async () => {
    const created = await colliding();
    await expect(appendScopeRevision(created, { ...revision, agentId: 'mallory' }, { now: at(2), channels })).rejects.toMatchObject({
      code: 'not-a-party',
    });
    await expect(appendScopeRevision(created, { ...revision, authorizationRef: ' ' }, { now: at(2), channels })).rejects.toMatchObject({
      code: 'invalid-argument',
    });
    const revised = await appendScopeRevision(created, revision, { now: at(2), channels });
    await expect(appendScopeRevision(revised, revision, { now: at(3), channels })).rejects.toMatchObject({
      code: 'revision-already-declared',
    });
    const reobserved = await appendReobservation(
      revised,
      observation('alice', { observedAt: at(4) }),
      observation('bob', { observedAt: at(4) }),
      { now: at(4), channels },
    );
    const again = await appendScopeRevision(reobserved, revision, { now: at(5), channels });
    expect(verifyShadowTrail(JSON.parse(JSON.stringify(again)))).toMatchObject({ ok: true, receipts: 4 });
  });
});

describe('re-observations', () => {
  it('records a fresh matching pair in the trail order, keeping the previous graph unless a new one is given', async () => {
    const graph = { edges: [['src/b.ts', 'src/c.ts']] as [string, string][] };
    const created = await createShadowTrail(alice, bob, { now: at(1), channels, graph });
    const a2 = observation('alice', { writePaths: ['src/c.ts'], observedAt: at(5) });
    const b2 = observation('bob', { writePaths: ['src/b.ts'], observedAt: at(5) });
    const kept = await appendReobservation(created, b2, a2, { now: at(6), channels });
    const payload = kept.receipts[1]!.payload as unknown as {
      observations: { agentId: string }[];
      graphSource: string;
      graph: unknown;
      advisory: TrailAdvisory;
    };
    expect(payload.observations.map((o) => o.agentId)).toEqual(['alice', 'bob']);
    expect(payload.graphSource).toBe('previous');
    expect(payload.graph).toEqual(graph);
    expect(payload.advisory.level).toBe('traffic');
    const replaced = await appendReobservation(created, a2, b2, { now: at(6), channels, graph: { edges: [] } });
    const replacedPayload = replaced.receipts[1]!.payload as unknown as typeof payload;
    expect(replacedPayload.graphSource).toBe('supplied');
    expect(replacedPayload.advisory.level).toBe('clear');
    expect(summarizeShadowTrail(replaced).latestAdvisory).toMatchObject({
      kind: 'reobservation',
      basis: 'observed',
      level: 'clear',
      found: false,
    });
  });

  it.each([
    ['another agent', observation('carol', { observedAt: at(5) }), 'mismatched-reobservation'],
    ['another task', observation('bob', { taskId: 'task-9', observedAt: at(5) }), 'mismatched-reobservation'],
    ['another repository', observation('bob', { repositoryId: 'elsewhere', observedAt: at(5) }), 'mismatched-reobservation'],
    ['a stale observation', observation('bob', { observedAt: at(0) }), 'stale-reobservation'],
  ])('refuses %s', async (_name, second, code) => {
    const created = await colliding();
    await expect(
      appendReobservation(created, observation('alice', { observedAt: at(5) }), second, { now: at(6), channels }),
    ).rejects.toMatchObject({ code });
  });

  it('may change base or scope; an incomparable pair is unknown', async () => {
    const created = await colliding();
    const next = await appendReobservation(
      created,
      observation('alice', { observedAt: at(5), base: 'c0ffee' }),
      observation('bob', { observedAt: at(5) }),
      { now: at(6), channels },
    );
    expect(summarizeShadowTrail(next).latestAdvisory.level).toBe('unknown');
  });
});

describe('the summary', () => {
  it('reports the latest scoped advisory, its own acknowledgements, historical acknowledgers apart, and outcome unadjudicated', async () => {
    let trail = await colliding();
    trail = appendAcknowledgement(trail, { agentId: 'alice' }, { now: at(2), eventId: 'ack-a1' });
    trail = appendAcknowledgement(trail, { agentId: 'bob' }, { now: at(2), eventId: 'ack-b1' });
    trail = await appendReobservation(
      trail,
      observation('alice', { writePaths: ['src/a.ts'], observedAt: at(5) }),
      observation('bob', { writePaths: ['src/a.ts'], observedAt: at(5) }),
      { now: at(6), channels, eventId: 'reobs' },
    );
    trail = appendAcknowledgement(trail, { agentId: 'bob' }, { now: at(7), eventId: 'ack-b2' });
    const summary = summarizeShadowTrail(JSON.parse(JSON.stringify(trail)));
    expect(summary).toMatchObject({
      trailId: 'trail-1',
      agents: ['alice', 'bob'],
      taskId: 'task-7',
      receipts: 5,
      outcome: 'unadjudicated',
    });
    expect(summary.latestAdvisory).toMatchObject({ eventId: 'reobs', level: 'resolution', found: true });
    expect(summary.acknowledgements.map((a) => a.eventId)).toEqual(['ack-b2']);
    expect(summary.awaitingAcknowledgement).toEqual(['alice']);
    expect(summary.historicalAcknowledgers.map((a) => [a.agentId, a.advisoryEventId])).toEqual([
      ['alice', 'e-created'],
      ['bob', 'e-created'],
    ]);
    expect(summary.statement).toMatch(/issues no grants, sends no messages/);
  });

  it('refuses to summarise a trail that does not verify', async () => {
    const trail = JSON.parse(JSON.stringify(await colliding()));
    trail.receipts[0].payload.advisory.level = 'clear';
    expect(() => summarizeShadowTrail(trail)).toThrow(expect.objectContaining({ code: 'invalid-trail' }));
  });
});

describe('copy semantics', () => {
  it('changing an earlier returned trail cannot change a later one', async () => {
    const created = await colliding();
    const later = appendAcknowledgement(created, { agentId: 'alice' }, { now: at(2) });
    const before = JSON.stringify(later);
    (created.receipts[0]!.payload as { advisory: { level: string } }).advisory.level = 'clear';
    (created.receipts[0]!.payload as unknown as { observations: { writePaths: string[] }[] }).observations[0]!.writePaths.push('zzz.ts');
    (created as unknown as { receipts: unknown[] }).receipts.push({ forged: true });
    expect(JSON.stringify(later)).toBe(before);
    expect(verifyShadowTrail(later)).toMatchObject({ ok: true });
    // …and the mutated earlier object is detected, not trusted.
    expect(verifyShadowTrail(created).ok).toBe(false);
  });

  it('changing a later trail cannot change the earlier one', async () => {
    const created = await colliding();
    const snapshot = JSON.stringify(created);
    const later = appendAcknowledgement(created, { agentId: 'alice' }, { now: at(2) });
    (later.receipts[0]!.payload as { kind: string }).kind = 'tampered';
    expect(JSON.stringify(created)).toBe(snapshot);
    expect(verifyShadowTrail(created)).toMatchObject({ ok: true });
  });

  it('an append refuses a trail that was changed after it was returned', async () => {
    const created = await colliding();
    (created.receipts[0]!.payload as unknown as { graph: { edges: unknown[] } }).graph.edges.push(['x.ts', 'y.ts']);
    expect(() => appendAcknowledgement(created, { agentId: 'alice' }, { now: at(2) })).toThrow(
      expect.objectContaining({ code: 'invalid-trail' }),
    );
  });
});
