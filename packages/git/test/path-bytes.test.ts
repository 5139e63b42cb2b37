import { describe, expect, it } from 'vitest';
import { decodePath, hasRawBytes, pathBytes, splitPaths } from '../src/path-bytes.js';

describe('file names as bytes', () => {
  it.each([
    ['UTF-8', Buffer.from('src/ünïcødé ✈ 𝄞.ts')],
    ['latin1', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x73])],
    ['a truncated sequence', Buffer.from([0x61, 0xe2, 0x9c, 0x2f, 0x62])],
    ['an overlong form and a lone continuation', Buffer.from([0xc0, 0xaf, 0x80, 0x41])],
    ['an encoded surrogate', Buffer.from([0xed, 0xb3, 0xa9])],
  ])('%s round-trips', (_name, bytes) => {
    const name = decodePath(bytes);
    expect(pathBytes(name).equals(bytes)).toBe(true);
    expect(hasRawBytes(name)).toBe(bytes.toString('utf8') !== name);
  });

  it('two names that differ in a byte that is not UTF-8 stay different', () => {
    const names = splitPaths(Buffer.from([0x61, 0xe9, 0, 0x61, 0xe8, 0]));
    expect(names).toHaveLength(2);
    expect(names[0]).not.toBe(names[1]);
  });
});
