/**
 * A benchmark script's command line: `--name VALUE` (or `--name=VALUE`) for the options it names,
 * `--name` alone for its flags, `--help` for its usage. Anything else (an unknown or misspelt
 * option, a missing value, a stray argument) is refused with the usage and exit code 2: a
 * benchmark that ran with a misspelt option would measure something else and say nothing.
 */

export interface OptionSpec {
  /** What `--help` prints, and what follows an error. */
  readonly usage: string;
  /** Options that take a value. */
  readonly values?: readonly string[];
  /** Options without one. */
  readonly flags?: readonly string[];
}

export interface ParsedOptions {
  /** The value given for `--name`, if any (the last one when given twice). */
  opt(name: string): string | undefined;
  /** Whether `--name` was given. */
  flag(name: string): boolean;
}

export type OptionsResult =
  | { readonly ok: true; readonly options: ParsedOptions }
  /** `--help` (exit 0, usage on stdout), or an error (exit 2, message and usage on stderr). */
  | { readonly ok: false; readonly exitCode: 0 | 2; readonly message: string };

export function parseOptions(argv: readonly string[], spec: OptionSpec): OptionsResult {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  const named = (name: string, kind: 'values' | 'flags'): boolean => (spec[kind] ?? []).includes(name);
  const fail = (why: string): OptionsResult => ({ ok: false, exitCode: 2, message: `${why}\n\n${spec.usage}` });
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') return { ok: false, exitCode: 0, message: spec.usage };
    if (!arg.startsWith('--') || arg === '--') return fail(`Unexpected argument ${JSON.stringify(arg)}.`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (named(name, 'flags')) {
      if (eq >= 0) return fail(`--${name} takes no value.`);
      flags.add(name);
    } else if (named(name, 'values')) {
      const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined || (eq < 0 && value.startsWith('--'))) return fail(`--${name} needs a value.`);
      values.set(name, value);
    } else return fail(`Unknown option --${name}.`);
  }
  return { ok: true, options: { opt: (name) => values.get(name), flag: (name) => flags.has(name) } };
}

/** `parseOptions` of this process's arguments; prints the usage and exits on `--help` or an error. */
export function commandLine(spec: OptionSpec, argv: readonly string[] = process.argv.slice(2)): ParsedOptions {
  const parsed = parseOptions(argv, spec);
  if (parsed.ok) return parsed.options;
  if (parsed.exitCode === 0) console.log(parsed.message);
  else console.error(parsed.message);
  process.exit(parsed.exitCode);
}
