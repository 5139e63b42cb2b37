/**
 * The pure parts of team mode: the observation format and how published candidates meet local
 * ones. Publishing and fetching between clones of a bare remote are tested end to end in the
 * repository's test/team-clones.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Problem } from '@airspace/core';
import type { AgentCandidate } from '../src/sources.js';
import { observationMessage, parseObservationMessage, reconcilePublished, type PublishedObservation } from '../src/index.js';

const observation: PublishedObservation = {
  airspace: 1,
  id: 'alice',
  label: 'Alice',
  clone: 'c-1',
  head: 'a'.repeat(40),
  branch: 'refs/heads/alice',
  base: { ref: 'origin/main', commit: 'b'.repeat(40) },
  mergeBase: 'b'.repeat(40),
  committedWork: 9,
  commits: 1,
  changedLines: 8,
  startedAt: '2026-06-01T09:00:00.000Z',
  publishedAt: '2026-06-01T10:00:00.000Z',
  expiresAt: '2026-06-01T18:00:00.000Z',
  intent: ['src/b.ts'],
  dirty: true,
  paths: ['src/a.ts'],
};

describe('observation messages', () => {
  it('round-trips', () => {
    const message = observationMessage(observation);
    expect(message.split('\n')[0]).toBe('airspace observation: alice');
    expect(parseObservationMessage(message)).toEqual({ observation });
  });

  it('names what is wrong with a message that is not one', () => {
    expect(parseObservationMessage('WIP\n\nsomething').error).toBe('its commit is not an Airspace observation');
    expect(parseObservationMessage('airspace observation: x\n\n{').error).toBe('its observation is not valid JSON');
    expect(parseObservationMessage(observationMessage({ ...observation, airspace: 2 })).error).toMatch(
      /version 2; this reader knows version 1/,
    );
    const { expiresAt: _dropped, ...noExpiry } = observation;
    expect(parseObservationMessage(`airspace observation: x\n\n${JSON.stringify(noExpiry)}`).error).toMatch(/lacks .*expiresAt/);
    expect(parseObservationMessage(observationMessage({ ...observation, paths: [1 as unknown as string] })).error).toMatch(
      /lacks committedWork or paths/,
    );
    expect(parseObservationMessage(observationMessage({ ...observation, intent: 'src/a.ts' as unknown as string[] })).error).toMatch(
      /malformed intent/,
    );
  });
});

describe('reconcilePublished', () => {
  const local = (id: string, ref?: string): AgentCandidate => ({
    id,
    label: id,
    source: 'worktree',
    worktree: `/w/${id}`,
    ...(ref ? { ref } : {}),
  });
  const published = (id: string, self: boolean, branch?: string): AgentCandidate => ({
    id,
    label: id,
    source: 'published',
    published: { remote: 'origin', committedWork: 0, paths: [], incomplete: [], self, ...(branch ? { branch } : {}) },
  });

  it("drops this clone's own publications of local agents, by id or by branch", () => {
    const problems: Problem[] = [];
    const lists = reconcilePublished(
      [
        [local('alice', 'refs/heads/alice')],
        [published('alice', true), published('laptop', true, 'refs/heads/alice'), published('elsewhere', true, 'refs/heads/gone')],
      ],
      problems,
    );
    expect(lists[1]!.map((c) => c.id)).toEqual(['elsewhere']);
    expect(problems).toEqual([]);
  });

  it("renames a teammate's agent whose id a local agent has, and says so", () => {
    const problems: Problem[] = [];
    const lists = reconcilePublished([[local('main')], [published('main', false), published('bob', false)]], problems);
    expect(lists[1]!.map((c) => c.id)).toEqual(['main@origin', 'bob']);
    expect(problems.map((p) => p.message)).toEqual([
      'A teammate published an agent named "main", as a local agent is named; it is listed as "main@origin".',
    ]);
  });
});
