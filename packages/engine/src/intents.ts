/**
 * Declared intent (MCP `declare_intent`): paths (and symbols) an agent is about to touch, which
 * count from the moment they are declared, before any edit. Kept in `<git common dir>/airspace/
 * intents.json` (Airspace's own directory, never a worktree), so that the engine, an in-process
 * fallback and a restarted engine all give the same answer; each declaration expires.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { IntentMap } from '@airspace/scanner';

export interface DeclaredIntent {
  readonly agent: string;
  /** Repository-relative paths, forward slashes. */
  readonly paths: readonly string[];
  /** Symbols as `path#name` (their files count whole). */
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
  return parsed.filter(
    (d): d is DeclaredIntent =>
      typeof d === 'object' &&
      d !== null &&
      typeof d.agent === 'string' &&
      Array.isArray(d.paths) &&
      Array.isArray(d.symbols) &&
      Date.parse(d.expiresAt) > now,
  );
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

/** Declarations as the scanner's intent: each path (and each symbol's file) a whole-file edit. */
export function intentMap(declarations: readonly DeclaredIntent[]): IntentMap | undefined {
  if (declarations.length === 0) return undefined;
  const out: Record<string, string[]> = {};
  for (const d of declarations) {
    const files = [...d.paths, ...d.symbols.map((s) => s.split('#')[0]!).filter((p) => p !== '')];
    out[d.agent] = [...new Set([...(out[d.agent] ?? []), ...files])].sort();
  }
  return out;
}
