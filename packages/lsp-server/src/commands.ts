/**
 * The server's commands and the one shape of their arguments: what code actions and lenses send
 * (built with `commandOf`, typed by `CommandArguments`) is what `workspace/executeCommand` accepts
 * (parsed here).
 */
import type { Command, Location } from 'vscode-languageserver';

export const Commands = {
  acknowledge: 'airspace.acknowledge',
  declareIntent: 'airspace.declareIntent',
  openOther: 'airspace.openOther',
  copySummary: 'airspace.copySummary',
} as const;

export type CommandName = (typeof Commands)[keyof typeof Commands];

/**
 * Which advisory a command is about: the other agent as seen from a workspace folder (`folder`
 * omitted: the first folder whose agent has one with it), or both agents by id.
 */
export type PairArgs = { readonly folder?: string; readonly other: string } | { readonly a: string; readonly b: string };

/** What `declareIntent` takes: paths (repository-relative, absolute or `file:` URIs) of a folder (default: the first). */
export interface IntentArgs {
  readonly folder?: string;
  /** Items as the client sent them; those that are not paths are refused one by one. */
  readonly files: readonly unknown[];
  /** Symbols as `path#name` (a definition of the file), as the client sent them. */
  readonly symbols?: readonly unknown[];
}

/** The arguments of each command, as `Command.arguments`. */
export interface CommandArguments {
  readonly [Commands.openOther]: [Location];
  readonly [Commands.copySummary]: [PairArgs];
  readonly [Commands.acknowledge]: [PairArgs];
  readonly [Commands.declareIntent]: [IntentArgs] | string[];
}

/** A command whose arguments are the ones its handler parses. */
export function commandOf<K extends CommandName>(title: string, command: K, args: CommandArguments[K]): Command {
  return { title, command, arguments: args };
}

/** `{ a, b }` names the pair without a folder: it works whichever worktree (if any) either side has. */
export function pairArgs(self: string, other: string): PairArgs {
  return { a: self, b: other };
}

/** Reads `copySummary`/`acknowledge` arguments, or says in one sentence what was expected. */
export function parsePairArgs(arg: unknown): PairArgs | { problem: string } {
  const o = (typeof arg === 'object' && arg !== null ? arg : {}) as Record<string, unknown>;
  const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
  if (str(o.a) && str(o.b)) return { a: o.a, b: o.b };
  if (str(o.other)) return { other: o.other, ...(str(o.folder) ? { folder: o.folder } : {}) };
  return { problem: `expected { other, folder? } or { a, b }, got ${JSON.stringify(arg)?.slice(0, 80)}` };
}

/** Reads `openOther`'s argument: a location. */
export function parseLocation(arg: unknown): Location | { problem: string } {
  const o = arg as Partial<Location> | undefined;
  if (typeof o?.uri === 'string' && typeof o.range === 'object' && o.range !== null) return { uri: o.uri, range: o.range };
  return { problem: 'expected a location { uri, range }' };
}

/**
 * Reads `declareIntent`'s arguments: `{ files, symbols?, folder? }` (symbols as `path#name`), an
 * array of paths as the first argument, or the paths as the arguments themselves.
 */
export function parseIntentArgs(args: readonly unknown[] | undefined): IntentArgs {
  const first = args?.[0];
  if (Array.isArray(first)) return { files: first };
  const o = (typeof first === 'object' && first !== null ? first : {}) as Record<string, unknown>;
  const symbols = Array.isArray(o.symbols) ? (o.symbols as unknown[]) : [];
  const files = Array.isArray(o.files) ? (o.files as unknown[]) : Array.isArray(o.symbols) ? [] : (args ?? []);
  return { files, ...(symbols.length ? { symbols } : {}), ...(typeof o.folder === 'string' ? { folder: o.folder } : {}) };
}
