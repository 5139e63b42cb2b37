import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Agent } from '@airspace/core';
import { acknowledgePair, pairAcknowledged, pairTrailFile, verifyShadowTrailText } from '../src/index.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const agent = (id: string, paths: string[]): Agent => ({
  id,
  label: id,
  startedAt: 0,
  committedWork: 0,
  files: paths.map((path) => ({
    path,
    weight: 1,
    status: 'modified' as const,
    baseRanges: [[1, 2]] as const,
    newRanges: [[1, 2]] as const,
  })),
});

describe('acknowledging an advisory between two agents of a scan', () => {
  it("creates the pair's trail from their working sets, appends the acknowledgement, and reads it back", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airspace-pair-'));
    dirs.push(dir);
    const alice = agent('alice', ['src/a.ts']);
    const bob = agent('bob/feature', ['src/a.ts', 'src/b.ts']);
    expect(await pairAcknowledged(dir, 'alice', 'bob/feature')).toBe(false);
    const ack = await acknowledgePair(dir, alice, bob, 'repo', { now: Date.parse('2026-12-01T10:00:00.000Z'), note: 'we split the lines' });
    expect(ack.file).toBe(pairTrailFile(dir, 'bob/feature', 'alice'));
    expect(verifyShadowTrailText(readFileSync(ack.file, 'utf8')).ok).toBe(true);
    expect(await pairAcknowledged(dir, 'alice', 'bob/feature')).toBe(true);
    expect(await pairAcknowledged(dir, 'bob/feature', 'alice')).toBe(false);
    // The other side acknowledges the same trail; a second acknowledgement by one side records
    // nothing and says it was already made (the first one's receipt), never a failure.
    await acknowledgePair(dir, bob, alice, 'repo', { now: Date.parse('2026-12-01T10:01:00.000Z') });
    expect(await pairAcknowledged(dir, 'bob/feature', 'alice')).toBe(true);
    const before = readFileSync(ack.file, 'utf8');
    const again = await acknowledgePair(dir, alice, bob, 'repo', { now: Date.parse('2026-12-01T10:02:00.000Z') });
    expect(again).toEqual({ file: ack.file, receipt: ack.receipt, already: true });
    expect(ack.already).toBeUndefined();
    expect(readFileSync(ack.file, 'utf8')).toBe(before);
  });
});
