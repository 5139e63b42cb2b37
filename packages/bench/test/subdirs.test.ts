import { describe, expect, it } from 'vitest';
import { inSubdirs, subdirList } from '../src/subdirs.js';

describe('the directories a peer comparison measures', () => {
  it('reads one directory or several, comma-separated, without trailing slashes or empties', () => {
    expect(subdirList('src')).toEqual(['src']);
    expect(subdirList('src, test/,,packages/core')).toEqual(['src', 'test', 'packages/core']);
  });

  it('holds a path under any of them, and not a sibling that shares a prefix', () => {
    expect(inSubdirs('src/a.ts', 'src,test')).toBe(true);
    expect(inSubdirs('test/deep/b.ts', 'src,test')).toBe(true);
    expect(inSubdirs('srcx/a.ts', 'src,test')).toBe(false);
    expect(inSubdirs('docs/a.ts', 'src,test')).toBe(false);
    expect(inSubdirs('packages/core/x.ts', 'packages/core')).toBe(true);
  });
});
