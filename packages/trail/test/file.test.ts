import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  acknowledgeAdvisory,
  createShadowTrail,
  findTrailFile,
  readTrailFile,
  serializeTrail,
  summarizeShadowTrail,
  updateTrailFile,
  verifyShadowTrailText,
  writeTrailFileAtomic,
} from '../src/index.js';
import { at, observation, samePathChannel } from './helpers.js';

let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'airspace-trail-'));
  file = join(dir, 'trail.json');
  const trail = await createShadowTrail(observation('alice', { writePaths: ['a.ts'] }), observation('bob', { writePaths: ['a.ts'] }), {
    now: at(1),
    channels: [samePathChannel],
    eventId: 'created',
  });
  await writeTrailFileAtomic(file, trail);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('trail files', () => {
  it('writes verifiable canonical JSON and leaves no temporary or lock file behind', async () => {
    const text = await readFile(file, 'utf8');
    expect(verifyShadowTrailText(text)).toMatchObject({ ok: true, receipts: 1 });
    expect(text).toBe(serializeTrail(JSON.parse(text)));
    expect(await readdir(dir)).toEqual(['trail.json']);
  });

  it('acknowledgeAdvisory appends an acknowledgement of the latest advisory to the file', async () => {
    const { receipt, trail } = await acknowledgeAdvisory(file, { agentId: 'bob', note: 'from the editor' }, { now: at(2) });
    expect(receipt.payload).toMatchObject({ kind: 'acknowledgement', agentId: 'bob', advisoryEventId: 'created', note: 'from the editor' });
    const persisted = await readTrailFile(file);
    expect(persisted).toEqual(trail);
    expect(summarizeShadowTrail(persisted).acknowledgements.map((a) => a.agentId)).toEqual(['bob']);
  });

  it('keeps the old file intact when an append is refused', async () => {
    const before = await readFile(file, 'utf8');
    await expect(acknowledgeAdvisory(file, { agentId: 'mallory' }, { now: at(2) })).rejects.toMatchObject({ code: 'not-a-party' });
    expect(await readFile(file, 'utf8')).toBe(before);
    expect(await readdir(dir)).toEqual(['trail.json']);
  });

  it('refuses to append to a file that does not verify, and does not touch it', async () => {
    const tampered = (await readFile(file, 'utf8')).replace('"level": "resolution"', '"level": "clear"');
    await writeFile(file, tampered);
    await expect(acknowledgeAdvisory(file, { agentId: 'bob' }, { now: at(2) })).rejects.toMatchObject({
      code: 'invalid-trail',
      verification: { reason: 'malformed-receipt' },
    });
    expect(await readFile(file, 'utf8')).toBe(tampered);
  });

  it('serialises concurrent appends: neither acknowledgement is lost', async () => {
    await Promise.all([
      acknowledgeAdvisory(file, { agentId: 'alice' }, { now: at(2) }),
      acknowledgeAdvisory(file, { agentId: 'bob' }, { now: at(2) }),
    ]);
    const summary = summarizeShadowTrail(await readTrailFile(file));
    expect(summary.acknowledgements.map((a) => a.agentId).sort()).toEqual(['alice', 'bob']);
  });

  it('a change that throws leaves the file as it was', async () => {
    const before = await readFile(file, 'utf8');
    await expect(
      updateTrailFile(file, () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await readFile(file, 'utf8')).toBe(before);
    expect(await readdir(dir)).toEqual(['trail.json']);
  });

  it('names a missing file clearly', async () => {
    await expect(readTrailFile(join(dir, 'missing.json'))).rejects.toThrow(/Cannot read trail file .*missing\.json/);
  });

  it('findTrailFile finds the trail of a pair in a directory, skipping other pairs and broken files', async () => {
    await writeFile(join(dir, 'broken.json'), '{"format":');
    const other = await createShadowTrail(observation('carol'), observation('dave'), { now: at(1) });
    await writeTrailFileAtomic(join(dir, 'other.json'), other);
    expect(await findTrailFile(dir, 'bob', 'alice')).toBe(file);
    expect(await findTrailFile(dir, 'carol', 'dave')).toBe(join(dir, 'other.json'));
    expect(await findTrailFile(dir, 'alice', 'carol')).toBeUndefined();
    expect(await findTrailFile(join(dir, 'nowhere'), 'alice', 'bob')).toBeUndefined();
  });
});
