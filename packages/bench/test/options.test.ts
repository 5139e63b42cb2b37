/**
 * A benchmark's command line refuses what it does not know (a misspelt option would measure
 * something else without a word), and answers `--help` with its usage.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseOptions } from '../src/options.js';

const spec = { usage: 'Usage: measure [--saves N] [--repo DIR] [--quiet]', values: ['saves', 'repo'], flags: ['quiet'] };

describe('parseOptions', () => {
  it('reads the options it names, as --name VALUE or --name=VALUE, and its flags', () => {
    const parsed = parseOptions(['--saves', '20', '--repo=/r', '--quiet'], spec);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.options.opt('saves')).toBe('20');
    expect(parsed.options.opt('repo')).toBe('/r');
    expect(parsed.options.opt('rounds')).toBeUndefined();
    expect(parsed.options.flag('quiet')).toBe(true);
  });

  it.each([
    [['--sves', '20'], /Unknown option --sves/],
    [['--saves'], /--saves needs a value/],
    [['--saves', '--repo', 'x'], /--saves needs a value/],
    [['--quiet=yes'], /--quiet takes no value/],
    [['stray'], /Unexpected argument "stray"/],
  ])('refuses %j with the usage and exit code 2', (argv, why) => {
    const parsed = parseOptions(argv, spec);
    expect(parsed).toMatchObject({ ok: false, exitCode: 2 });
    if (parsed.ok) return;
    expect(parsed.message).toMatch(why);
    expect(parsed.message).toContain(spec.usage);
  });

  it('answers --help with the usage and exit code 0', () => {
    expect(parseOptions(['--saves', '3', '--help'], spec)).toEqual({ ok: false, exitCode: 0, message: spec.usage });
  });
});

describe('measure-editor', () => {
  const script = fileURLToPath(new URL('../dist/measure-editor.js', import.meta.url));
  it('exits 2 with its usage on a misspelt option, before measuring anything', () => {
    const run = spawnSync(process.execPath, [script, '--sves', '20'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/Unknown option --sves/);
    expect(run.stderr).toMatch(/Usage: node dist\/measure-editor\.js/);
  });

  it('prints its usage on --help and exits 0', () => {
    const run = spawnSync(process.execPath, [script, '--help'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/--before CHECKOUT/);
  });
});
