/**
 * Declared intent (MCP `declare_intent`): paths (and symbols) an agent is about to touch, which
 * count from the moment they are declared, before any edit. Kept in `<git common dir>/airspace/
 * intents.json` (Airspace's own directory, never a worktree), so that the engine, an in-process
 * fallback and a restarted engine all give the same answer; each declaration expires.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
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

export function intentsFile(commonDir: string): string {
  return join(commonDir, 'airspace', 'intents.json');
}

/** The declarations not yet expired at `now` (a missing or unreadable file: none). */
export function readIntents(commonDir: string, now = Date.now()): DeclaredIntent[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(intentsFile(commonDir), 'utf8'));
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed
    .filter(
      (d): d is DeclaredIntent =>
        typeof d === 'object' &&
        d !== null &&
        typeof d.agent === 'string' &&
        Array.isArray(d.paths) &&
        Array.isArray(d.symbols) &&
        Date.parse(d.expiresAt) > now,
    )
    .map((d) => ({
      ...d,
      // The file is outside any worktree but writable by anyone who can write the repository: the
      // one rule for paths from outside holds on every read, not only when a declaration is made.
      paths: d.paths.filter((p: unknown) => typeof p === 'string' && isSafeRepoPath(p)),
      symbols: d.symbols.filter((s: unknown) => typeof s === 'string' && isSafeRepoPath(s.split('#')[0] ?? '')),
    }));
}

/** Replaces `agent`'s declaration (an empty one withdraws it); written atomically. */
export function writeIntent(commonDir: string, declaration: DeclaredIntent, now = Date.now()): DeclaredIntent[] {
  const rest = readIntents(commonDir, now).filter((d) => d.agent !== declaration.agent);
  const next = declaration.paths.length + declaration.symbols.length > 0 ? [...rest, declaration] : rest;
  const file = intentsFile(commonDir);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(next, null, 2) + '\n', { mode: 0o600 });
  renameSync(temporary, file);
  return next;
}

/** `path#name` → the scanner's symbol intent (`#` splits at its last occurrence). */
export function symbolSpec(declared: string): IntentEntry | undefined {
  const at = declared.lastIndexOf('#');
  return at > 0 && at < declared.length - 1 ? { path: declared.slice(0, at), symbol: declared.slice(at + 1) } : undefined;
}

/**
 * Declarations as the scanner's intent: each path a whole-file edit, each symbol its definition
 * (resolved by the scanner at the merge base; its whole file when it is not found there).
 */
export function intentMap(declarations: readonly DeclaredIntent[]): IntentMap | undefined {
  if (declarations.length === 0) return undefined;
  const out: Record<string, IntentSpec[]> = {};
  for (const d of declarations) {
    const paths = [...new Set(d.paths)].sort();
    // A symbol of a file declared whole adds nothing.
    const symbols = d.symbols
      .map(symbolSpec)
      .filter((s): s is IntentEntry => s !== undefined && !paths.includes(s.path))
      .sort((x, y) => `${x.path}#${x.symbol}`.localeCompare(`${y.path}#${y.symbol}`));
    out[d.agent] = [...(out[d.agent] ?? []), ...paths, ...symbols];
  }
  return out;
}
