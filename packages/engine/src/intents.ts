/**
 * Declared intent (MCP `declare_intent`): paths (and symbols) an agent is about to touch, which
 * count from the moment they are declared, before any edit. Kept in `<git common dir>/airspace/
 * intents.json` (Airspace's own directory, never a worktree), so that the engine, an in-process
 * fallback and a restarted engine all give the same answer; each declaration expires.
 *
 * The file is shared by every agent, so nothing in it is ever lost silently. A change is a
 * read-modify-write under a lock file (`intents.json.lock`; bounded wait, a stale lock taken
 * over), written to a temporary file and renamed into place. A file that does not parse (cut
 * short, overwritten) is moved aside to `intents.json.damaged-<time>` beside it, the complete
 * declarations at its start are recovered and written back, and every scan names the damaged
 * file in a problem until it is removed.
 */
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parseSymbolId, type Problem } from '@airspace/core';
import { isSafeRepoPath } from '@airspace/git';
import type { IntentEntry, IntentMap, IntentSpec } from '@airspace/scanner';

export interface DeclaredIntent {
  readonly agent: string;
  /** Repository-relative paths, forward slashes. */
  readonly paths: readonly string[];
  /** Symbols as `path#name`: the scanner resolves each to its definition's lines at the merge base (else its whole file). */
  readonly symbols: readonly string[];
  readonly note?: string;
  readonly declaredAt: string;
  readonly expiresAt: string;
}

export const DEFAULT_INTENT_TTL_MS = 60 * 60 * 1000;
/** How long a change waits for another process's lock before it gives up. */
const LOCK_WAIT_MS = 5_000;
/** A lock older than this was left by a process that died while holding it. */
const STALE_LOCK_MS = 30_000;
const DAMAGED = '.damaged-';

export function intentsFile(commonDir: string): string {
  return join(commonDir, 'airspace', 'intents.json');
}

const isDeclaration = (d: unknown): d is DeclaredIntent => {
  const x = d as Partial<DeclaredIntent> | null;
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof x.agent === 'string' &&
    Array.isArray(x.paths) &&
    Array.isArray(x.symbols) &&
    typeof x.expiresAt === 'string'
  );
};

/**
 * The declarations of a text that does not parse whole: the longest start of it that, closed
 * with `]`, is an array (the file is written one declaration after another).
 */
function salvage(text: string): DeclaredIntent[] {
  for (let end = text.lastIndexOf('}'); end > 0; end = text.lastIndexOf('}', end - 1)) {
    try {
      const v = JSON.parse(`${text.slice(0, end + 1)}]`) as unknown;
      if (Array.isArray(v)) return v.filter(isDeclaration);
    } catch {
      // Not a boundary between declarations: try an earlier one.
    }
  }
  return [];
}

/**
 * Every declaration in the file, expired or not, and whether it was damaged. With `repair` (only
 * under the lock, so no writer renames a good file meanwhile) a file that does not parse is moved
 * aside, never deleted; what can be recovered from it is returned. A missing file is none.
 */
function readAll(commonDir: string, repair: boolean): { intents: DeclaredIntent[]; damaged: boolean } {
  const file = intentsFile(commonDir);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { intents: [], damaged: false };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (Array.isArray(parsed)) return { intents: parsed.filter(isDeclaration), damaged: false };
  const intents = salvage(text);
  if (repair) {
    renameSync(file, `${file}${DAMAGED}${new Date().toISOString().replace(/[:.]/g, '-')}`);
    writeAll(file, intents);
  }
  return { intents, damaged: true };
}

/** Writes the declarations to a temporary file renamed into place. */
function writeAll(file: string, intents: readonly DeclaredIntent[]): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(intents, null, 2) + '\n', { mode: 0o600 });
  renameSync(temporary, file);
}

/** The declarations not yet expired at `now` (a missing file: none; a damaged one: see `intentsProblems`). */
export function readIntents(commonDir: string, now = Date.now()): DeclaredIntent[] {
  let read = readAll(commonDir, false);
  if (read.damaged) {
    try {
      read = withLock(commonDir, () => readAll(commonDir, true), 200);
    } catch {
      // Locked or not movable: what was recovered counts now; the next read moves it aside.
    }
  }
  return read.intents.filter((d) => Date.parse(d.expiresAt) > now).map(safePaths);
}

/**
 * A declaration with only the paths inside the repository: the file is outside any worktree but
 * writable by anyone who can write the repository, so the one rule for paths from outside holds
 * on every read, not only when a declaration is made.
 */
function safePaths(d: DeclaredIntent): DeclaredIntent {
  return {
    ...d,
    paths: d.paths.filter((p: unknown) => typeof p === 'string' && isSafeRepoPath(p)),
    symbols: d.symbols.filter((s: unknown) => typeof s === 'string' && isSafeRepoPath(parseSymbolId(s)?.path ?? '')),
  };
}

/** Damaged intents files kept aside, each a problem until it is removed. */
export function intentsProblems(commonDir: string): Problem[] {
  if (!commonDir) return [];
  const file = intentsFile(commonDir);
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(`${basename(file)}${DAMAGED}`))
    .sort()
    .map((n) => ({
      code: 'INTENTS_DAMAGED',
      message: `The declared intents file was damaged and kept as ${join(dirname(file), n)}; the declarations at its start were kept, any after the damage are lost until their agents declare again. Delete that file once it is no longer needed.`,
    }));
}

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Runs `change` holding the intents lock; throws when another process holds it past the wait. */
function withLock<T>(commonDir: string, change: () => T, waitMs = LOCK_WAIT_MS): T {
  const lock = `${intentsFile(commonDir)}.lock`;
  mkdirSync(dirname(lock), { recursive: true, mode: 0o700 });
  const deadline = Date.now() + waitMs;
  let fd: number | undefined;
  while (fd === undefined) {
    try {
      fd = openSync(lock, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      try {
        if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) unlinkSync(lock);
      } catch {
        // Released meanwhile.
      }
      if (Date.now() > deadline)
        throw new Error(
          `The declared intents are locked by another process (${lock}); try again, or delete the lock if no Airspace process runs.`,
        );
      sleep(10);
    }
  }
  try {
    return change();
  } finally {
    closeSync(fd);
    try {
      unlinkSync(lock);
    } catch {
      // Taken over as stale: not ours to remove any more.
    }
  }
}

/** Replaces `agent`'s declaration (an empty one withdraws it): read, changed and written under the lock, atomically. */
export function writeIntent(commonDir: string, declaration: DeclaredIntent, now = Date.now()): DeclaredIntent[] {
  return withLock(commonDir, () => {
    const rest = readAll(commonDir, true)
      .intents.filter((d) => Date.parse(d.expiresAt) > now)
      .filter((d) => d.agent !== declaration.agent);
    const next = declaration.paths.length + declaration.symbols.length > 0 ? [...rest, declaration] : rest;
    writeAll(intentsFile(commonDir), next);
    return next;
  });
}

/** `path#name` → the scanner's symbol intent (split by `parseSymbolId`'s rule). */
export function symbolSpec(declared: string): IntentEntry | undefined {
  const id = parseSymbolId(declared);
  return id ? { path: id.path, symbol: id.name } : undefined;
}

/**
 * Declarations as the scanner's intent: each path a whole-file edit, each symbol its definition
 * (resolved by the scanner at the merge base; its whole file when it is not found there).
 */
export function intentMap(declarations: readonly DeclaredIntent[]): IntentMap | undefined {
  if (declarations.length === 0) return undefined;
  const out: Record<string, IntentSpec[]> = {};
  for (const d of declarations) {
    const symbols = d.symbols
      .map(symbolSpec)
      .filter((s): s is IntentEntry => s !== undefined)
      .sort((x, y) => `${x.path}#${x.symbol}`.localeCompare(`${y.path}#${y.symbol}`));
    // A path and a symbol of one file: the symbol says which part of it, so the path adds nothing.
    const paths = [...new Set(d.paths)].filter((p) => !symbols.some((s) => s.path === p)).sort();
    out[d.agent] = [...(out[d.agent] ?? []), ...paths, ...symbols];
  }
  return out;
}
