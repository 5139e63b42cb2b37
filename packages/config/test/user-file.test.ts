import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readCalibration } from '../src/calibration.js';
import { loadConfig } from '../src/config.js';

const dirs: string[] = [];
const scratch = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'airspace-user-file-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('files a user names to the config', () => {
  it('a FIFO named as the config is unreadable, never waited on', { timeout: 10_000 }, async () => {
    const dir = scratch();
    execFileSync('mkfifo', [join(dir, 'airspace.config.json')]);
    const loaded = await loadConfig({ repoRoot: dir });
    expect(loaded.problems.map((p) => p.code)).toEqual(['CONFIG_UNREADABLE']);
    expect(loaded.problems[0]!.message).toMatch(/FIFO/);
    expect(loaded.config).toEqual({});
  });

  it('a FIFO or a device named as the calibration file is unreadable, never waited on', { timeout: 10_000 }, () => {
    const dir = scratch();
    execFileSync('mkfifo', [join(dir, 'calibration.json')]);
    expect(readCalibration(join(dir, 'calibration.json')).problems.map((p) => p.code)).toEqual(['CALIBRATION_UNREADABLE']);
    expect(readCalibration('/dev/zero').problems.map((p) => p.code)).toEqual(['CALIBRATION_UNREADABLE']);
  });

  it('a link named as the config is followed to its regular file', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'real.json'), JSON.stringify({ thresholds: { traffic: 0.5, resolution: 0.8 } }));
    symlinkSync(join(dir, 'real.json'), join(dir, 'airspace.config.json'));
    const loaded = await loadConfig({ repoRoot: dir });
    expect(loaded.problems).toEqual([]);
    expect(loaded.config.thresholds).toEqual({ traffic: 0.5, resolution: 0.8 });
  });
});
