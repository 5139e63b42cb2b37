import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { exitQuietlyOnClosedPipe } from '../src/io.js';

const saved = process.exitCode;
afterEach(() => {
  process.exitCode = saved;
});

describe('exitQuietlyOnClosedPipe', () => {
  it('ends quietly on a closed pipe, with the exit code recorded so far; any other write error is one sentence and exit 1', () => {
    const stdout = new EventEmitter() as unknown as NodeJS.WriteStream;
    const exits: number[] = [];
    exitQuietlyOnClosedPipe([stdout], (code) => exits.push(code));
    process.exitCode = 2; // e.g. scan --fail-on recorded an advisory before printing
    stdout.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(exits).toEqual([2]);

    process.exitCode = undefined;
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((s: string) => (written.push(s), true)) as typeof process.stderr.write;
    try {
      stdout.emit('error', Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
    } finally {
      process.stderr.write = write;
    }
    expect(exits).toEqual([2, 1]);
    expect(written).toEqual(['airspace: Cannot write the output: no space left on device.\n']);
  });
});
