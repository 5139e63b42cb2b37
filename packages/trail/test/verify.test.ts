import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  appendAcknowledgement,
  appendReobservation,
  appendScopeRevision,
  canonicalize,
  createShadowTrail,
  receiptHash,
  serializeTrail,
  verifyShadowTrail,
  verifyShadowTrailText,
} from '../src/index.js';
import type { ShadowTrail, VerifyResult } from '../src/index.js';
import { at, edgeChannel, observation, samePathChannel } from './helpers.js';

const channels = [samePathChannel, edgeChannel];
let trail: ShadowTrail;
let text: string;

beforeAll(async () => {
  let t = await createShadowTrail(
    observation('alice', { writePaths: ['src/a.ts', 'src/shared.ts'], readPaths: ['src/util.ts', 'src/types.ts'] }),
    observation('bob', { writePaths: ['src/shared.ts', 'src/util.ts'], readPaths: ['src/a.ts'] }),
    {
      now: at(1),
      channels,
      graph: {
        edges: [
          ['src/a.ts', 'src/util.ts'],
          ['src/shared.ts', 'src/types.ts'],
        ],
      },
      trailId: 'trail-v',
      eventId: 'created',
    },
  );
  t = appendAcknowledgement(t, { agentId: 'alice', note: 'stepping back from shared.ts' }, { now: at(2), eventId: 'ack-alice' });
  t = await appendScopeRevision(
    t,
    {
      agentId: 'alice',
      authorizationRef: 'PR-12 review',
      footprint: { readPaths: ['src/shared.ts'], writePaths: ['src/a.ts', 'src/b.ts'] },
    },
    { now: at(3), channels, eventId: 'revision' },
  );
  t = await appendReobservation(
    t,
    observation('alice', { writePaths: ['src/a.ts', 'src/b.ts'], readPaths: ['src/shared.ts'], observedAt: at(4) }),
    observation('bob', { writePaths: ['src/shared.ts', 'src/util.ts'], observedAt: at(4) }),
    { now: at(5), channels, eventId: 'reobservation' },
  );
  t = appendAcknowledgement(t, { agentId: 'bob' }, { now: at(6), eventId: 'ack-bob' });
  trail = t;
  text = serializeTrail(trail);
});

/** A fresh persisted copy, as a reader gets it. */
const persisted = (): any => JSON.parse(text);
const reason = (result: VerifyResult): string => (result.ok ? 'ok' : result.reason);

/** Re-hash every receipt from `from` on, as a party able to rewrite the whole trail would. */
function rehash(t: any): any {
  const renamed = new Map<string, string>();
  for (let i = 0; i < t.receipts.length; i++) {
    const r = t.receipts[i];
    if (r.payload.kind === 'acknowledgement') r.payload.advisoryHash = renamed.get(r.payload.advisoryHash) ?? r.payload.advisoryHash;
    r.previousHash = i === 0 ? null : t.receipts[i - 1].hash;
    const old = r.hash;
    r.hash = receiptHash(r);
    renamed.set(old, r.hash);
  }
  return t;
}

describe('verifyShadowTrail', () => {
  it('accepts the trail after JSON persistence', () => {
    expect(verifyShadowTrailText(text)).toEqual({ ok: true, trailId: 'trail-v', receipts: 5, headHash: trail.receipts[4]!.hash });
    expect(verifyShadowTrail(trail)).toMatchObject({ ok: true });
  });

  it('persists canonical JSON: each receipt is the canonical form of itself', () => {
    for (const r of persisted().receipts) expect(JSON.stringify(r)).toBe(canonicalize(r));
  });

  describe('tampering with each field of a persisted receipt', () => {
    it.each([
      [
        'eventId',
        (r: any) => {
          r.eventId = 'forged';
        },
        'hash-mismatch',
      ],
      [
        'time (still canonical)',
        (r: any) => {
          r.time = at(2.5);
        },
        'hash-mismatch',
      ],
      [
        'time (non-canonical spelling)',
        (r: any) => {
          r.time = '2026-03-01T12:03:00Z';
        },
        'noncanonical-value',
      ],
      [
        'trailId',
        (r: any) => {
          r.trailId = 'trail-w';
        },
        'trail-id-mismatch',
      ],
      [
        'previousHash',
        (r: any) => {
          r.previousHash = 'a'.repeat(64);
        },
        'broken-chain',
      ],
      [
        'previousHash set to null',
        (r: any) => {
          r.previousHash = null;
        },
        'broken-chain',
      ],
      [
        'hash of a middle receipt',
        (r: any) => {
          r.hash = 'b'.repeat(64);
        },
        'broken-chain',
      ],
      [
        'hash (not hex)',
        (r: any) => {
          r.hash = 'xyz';
        },
        'malformed-receipt',
      ],
      [
        'payload kind',
        (r: any) => {
          r.payload.kind = 'acknowledgement';
        },
        'malformed-receipt',
      ],
      [
        'payload authorizationRef ref',
        (r: any) => {
          r.payload.authorizationRef.ref = 'PR-13 review';
        },
        'hash-mismatch',
      ],
      [
        'payload authorizationRef label',
        (r: any) => {
          r.payload.authorizationRef.label = 'authorized';
        },
        'hash-mismatch',
      ],
      [
        'payload agentId',
        (r: any) => {
          r.payload.agentId = 'bob';
        },
        'hash-mismatch',
      ],
      [
        'payload advisory level',
        (r: any) => {
          r.payload.advisory.level = 'clear';
          r.payload.advisory.found = false;
        },
        'hash-mismatch',
      ],
      [
        'payload advisory risk',
        (r: any) => {
          r.payload.advisory.risk = 0.01;
        },
        'hash-mismatch',
      ],
      [
        'payload footprint path',
        (r: any) => {
          r.payload.footprint.writePaths[1] = 'src/c.ts';
        },
        'hash-mismatch',
      ],
      [
        'an added payload field',
        (r: any) => {
          r.payload.granted = true;
        },
        'malformed-receipt',
      ],
      [
        'a removed payload field',
        (r: any) => {
          delete r.payload.observationEventId;
        },
        'malformed-receipt',
      ],
      [
        'an added receipt field',
        (r: any) => {
          r.signature = 'trust me';
        },
        'malformed-receipt',
      ],
    ])('%s is rejected', (_name, mutate, expected) => {
      const t = persisted();
      mutate(t.receipts[2]); // the scope revision, in the middle of the chain
      expect(reason(verifyShadowTrail(t))).toBe(expected);
    });

    it("the last receipt's hash is a hash mismatch", () => {
      const t = persisted();
      t.receipts[4].hash = 'c'.repeat(64);
      expect(verifyShadowTrail(t)).toMatchObject({ ok: false, reason: 'hash-mismatch', index: 4, eventId: 'ack-bob' });
    });

    it('every leaf of every payload is bound: changing any one is rejected', () => {
      let checked = 0;
      const leaves = (value: unknown, path: (string | number)[]): (string | number)[][] =>
        value !== null && typeof value === 'object'
          ? Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, Array.isArray(value) ? Number(k) : k]))
          : [path];
      const original = persisted();
      original.receipts.forEach((receipt: any, i: number) => {
        for (const path of leaves(receipt.payload, [])) {
          const t = persisted();
          let holder: any = t.receipts[i].payload;
          for (const key of path.slice(0, -1)) holder = holder[key];
          const key = path.at(-1)!;
          const value = holder[key];
          holder[key] =
            typeof value === 'string'
              ? `${value}~`
              : typeof value === 'number'
                ? value + 0.5
                : typeof value === 'boolean'
                  ? !value
                  : 'null-was-here';
          const result = verifyShadowTrail(t);
          expect(result.ok, `payload.${path.join('.')} of receipt ${i}`).toBe(false);
          checked++;
        }
      });
      expect(checked).toBeGreaterThan(100);
    });
  });

  it('rejects reordered payload keys before comparing hashes (the canonical hash would still match)', () => {
    const t = persisted();
    const r = t.receipts[1];
    r.payload = Object.fromEntries(Object.entries(r.payload).reverse());
    expect(receiptHash(r)).toBe(r.hash);
    expect(verifyShadowTrail(t)).toMatchObject({ ok: false, reason: 'noncanonical-field-order', index: 1 });
    expect((verifyShadowTrail(t) as { message: string }).message).toMatch(
      /receipt\.payload are not in canonical \(sorted\) order: note, kind, agentId/,
    );
  });

  it('rejects reordered keys deep inside a payload', () => {
    const t = persisted();
    const o = t.receipts[0].payload.observations[1];
    t.receipts[0].payload.observations[1] = Object.fromEntries(Object.entries(o).reverse());
    expect(verifyShadowTrail(t)).toMatchObject({ ok: false, reason: 'noncanonical-field-order', index: 0 });
  });

  it.each([
    ['observation write paths', (t: any) => t.receipts[0].payload.observations[0].writePaths.reverse()],
    ['observation read paths', (t: any) => t.receipts[0].payload.observations[0].readPaths.reverse()],
    ['a duplicated path', (t: any) => t.receipts[3].payload.observations[1].writePaths.push('src/util.ts')],
    ['footprint paths', (t: any) => t.receipts[2].payload.footprint.writePaths.reverse()],
    ['graph edges', (t: any) => t.receipts[0].payload.graph.edges.reverse()],
    ['exact overlaps', (t: any) => t.receipts[0].payload.advisory.exactOverlaps.aWritesBReads.push('a.ts')],
  ])('rejects reordered %s as noncanonical path order, before comparing hashes', (_name, mutate) => {
    const t = persisted();
    mutate(t);
    expect(reason(verifyShadowTrail(t))).toBe('noncanonical-path-order');
    // Even a rewrite that re-hashes the reordered content is rejected for its order.
    expect(reason(verifyShadowTrail(rehash(t)))).toBe('noncanonical-path-order');
  });

  it('rejects a non-canonical path spelling', () => {
    const t = persisted();
    t.receipts[0].payload.observations[0].writePaths[0] = './src/a.ts';
    expect(reason(verifyShadowTrail(rehash(t)))).toBe('noncanonical-value');
  });

  it('rejects swapped receipts', () => {
    const t = persisted();
    [t.receipts[1], t.receipts[2]] = [t.receipts[2], t.receipts[1]];
    expect(verifyShadowTrail(t)).toMatchObject({ ok: false, reason: 'broken-chain', index: 1 });
  });

  it('rejects a chain truncated at the front or in the middle', () => {
    const front = persisted();
    front.receipts.shift();
    expect(verifyShadowTrail(front)).toMatchObject({ ok: false, reason: 'broken-chain', index: 0 });
    const middle = persisted();
    middle.receipts.splice(2, 1);
    expect(verifyShadowTrail(middle)).toMatchObject({ ok: false, reason: 'broken-chain', index: 2 });
    const empty = persisted();
    empty.receipts = [];
    expect(reason(verifyShadowTrail(empty))).toBe('malformed-trail');
  });

  it('detects a chain cut at its end only against a head hash kept by the reader', () => {
    const t = persisted();
    t.receipts.pop();
    expect(verifyShadowTrail(t)).toMatchObject({ ok: true, receipts: 4 });
    expect(verifyShadowTrail(t, { expectedHeadHash: trail.receipts[4]!.hash })).toMatchObject({ ok: false, reason: 'head-mismatch' });
    expect(verifyShadowTrail(persisted(), { expectedHeadHash: trail.receipts[4]!.hash })).toMatchObject({ ok: true });
  });

  it('tells a mistyped head (a few digits off a receipt) from a trail cut or replaced', () => {
    const head = trail.receipts[4]!.hash;
    const typo = (head[0] === 'a' ? 'b' : 'a') + head.slice(1);
    const slip = verifyShadowTrail(persisted(), { expectedHeadHash: typo }) as { ok: false; reason: string; message: string };
    expect(slip).toMatchObject({ ok: false, reason: 'head-mismatch' });
    expect(slip.message).toMatch(/receipt 4's hash differs from it in 1 digit: check the head you copied/);
    const other = verifyShadowTrail(persisted(), { expectedHeadHash: 'f'.repeat(64) }) as { message: string };
    expect(other.message).toMatch(/not in this trail \(truncated or replaced\)/);
  });

  it('rejects a duplicate event id, a time regression and a broken rule even in a consistently re-hashed chain', () => {
    const duplicate = persisted();
    duplicate.receipts[4].eventId = 'ack-alice';
    expect(reason(verifyShadowTrail(rehash(duplicate)))).toBe('duplicate-event-id');
    const backwards = persisted();
    backwards.receipts[4].time = at(0);
    expect(reason(verifyShadowTrail(rehash(backwards)))).toBe('time-regression');
    const thirdParty = persisted();
    thirdParty.receipts[4].payload.agentId = 'mallory';
    const result = verifyShadowTrail(rehash(thirdParty));
    expect(result).toMatchObject({ ok: false, reason: 'invalid-event', index: 4 });
    expect((result as { message: string }).message).toMatch(/not-a-party/);
    const secondCreation = persisted();
    secondCreation.receipts[1] = { ...structuredClone(secondCreation.receipts[0]), eventId: 'again' };
    expect(verifyShadowTrail(rehash(secondCreation))).toMatchObject({ reason: 'invalid-event', index: 1 });
  });

  it('cannot tell a full consistent rewrite from the original (a stated limit)', () => {
    const forged = persisted();
    forged.receipts[0].payload.advisory.risk = 0.1;
    expect(verifyShadowTrail(rehash(forged))).toMatchObject({ ok: true });
  });

  it.each([
    ['not JSON', '{"format":', 'malformed-json'],
    ['not an object', '[]', 'malformed-trail'],
    ['another format', JSON.stringify({ format: 'x' }), 'malformed-trail'],
    ['another version', JSON.stringify({ format: 'airspace-shadow-trail', version: 2 }), 'unsupported-version'],
  ])('rejects %s', (_name, input, expected) => {
    expect(reason(verifyShadowTrailText(input))).toBe(expected);
  });

  it('rejects a key given twice in one object, which parsing would hide (RFC 8785 allows each key once)', () => {
    const ok = verifyShadowTrailText(text);
    expect(ok.ok).toBe(true);
    // A reader that keeps the first key would see "clear"; JSON.parse keeps the last, so the hashes still match.
    const level = text.replace(/"level": "/, '"level": "clear", "level": "');
    expect(level).not.toBe(text);
    expect(verifyShadowTrail(JSON.parse(level))).toMatchObject({ ok: true, headHash: (ok as { headHash: string }).headHash });
    expect(verifyShadowTrailText(level)).toMatchObject({ ok: false, reason: 'duplicate-key' });
    expect((verifyShadowTrailText(level) as { message: string }).message).toMatch(/^\$\.receipts\[0\]\.payload\..*level appears twice/);
    const agent = text.replace(/"agentId": "alice"/, '"agentId": "mallory", "agentId": "alice"');
    expect(agent).not.toBe(text);
    expect(verifyShadowTrailText(agent)).toMatchObject({ ok: false, reason: 'duplicate-key' });
    // Spelled differently, the same key: compared decoded.
    const escaped = text.replace(/"format": /, '"\\u0066ormat": "x", "format": ');
    expect(verifyShadowTrailText(escaped)).toMatchObject({ ok: false, reason: 'duplicate-key' });
    // The same key in different objects, and keys inside strings, are fine.
    expect(verifyShadowTrailText('{"a": {"k": 1}, "b": {"k": "{\\"k\\": 1, \\"k\\": 2}"}}')).not.toMatchObject({ reason: 'duplicate-key' });
    expect(verifyShadowTrailText('[{"k": 1}, {"k": 2}, [{"k": [1, {"k": 0, "k": 1}]}]]')).toMatchObject({
      reason: 'duplicate-key',
      message: '$[2][0].k[1].k appears twice in one object; canonical JSON allows each key once',
    });
  });

  it('rejects an extra top-level field and non-canonical top-level order', () => {
    expect(reason(verifyShadowTrail({ ...persisted(), note: 'x' }))).toBe('malformed-trail');
    const { format, receipts, trailId, version } = persisted();
    expect(reason(verifyShadowTrail({ version, trailId, receipts, format }))).toBe('noncanonical-field-order');
  });

  it('any single-byte change to the persisted text fails verification or parsing, or is canonical-equivalent', () => {
    const bytes = Buffer.from(text, 'utf8');
    const canonical = canonicalize(JSON.parse(text));
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let equivalent = 0;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: bytes.length - 1 }), fc.integer({ min: 1, max: 255 }), (position, delta) => {
        const changed = Buffer.from(bytes);
        changed[position] = (changed[position]! + delta) % 256;
        let parsed: unknown;
        try {
          parsed = JSON.parse(decoder.decode(changed));
        } catch {
          return true; // not UTF-8 or not JSON: the reader cannot even load it
        }
        const result = verifyShadowTrail(parsed);
        if (!result.ok) return true;
        equivalent++;
        return canonicalize(parsed) === canonical;
      }),
      { numRuns: 2000, seed: 8785 },
    );
    // Whitespace changes between tokens are the canonical-equivalent ones; the run does meet some.
    expect(equivalent).toBeGreaterThan(0);
  });
});
