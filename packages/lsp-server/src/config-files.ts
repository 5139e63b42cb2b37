/**
 * The config files a repository's scanner may read (`airspace.config.*` at each self worktree and
 * at the main worktree, or the `config` setting), and a signature of them that changes when one
 * is created, edited or removed: the server replaces the scanner then. A signature rather than
 * file names from events, so that polling (which names no file) sees config edits too.
 */
import { statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { CONFIG_FILE_NAMES } from '@airspace/config';

/** The main worktree of a repository whose common git directory is `commonDir` (none when bare). */
export function mainWorktreeOf(commonDir: string): string | undefined {
  return basename(commonDir) === '.git' ? dirname(commonDir) : undefined;
}

export function configFiles(worktrees: readonly string[], commonDir: string, configSetting?: string): string[] {
  if (configSetting) return [resolve(worktrees[0] ?? '.', configSetting)];
  const main = mainWorktreeOf(commonDir);
  const roots = [...new Set([...worktrees, ...(main ? [main] : [])])];
  return roots.flatMap((root) => CONFIG_FILE_NAMES.map((name) => join(root, name)));
}

export function configSignature(files: readonly string[]): string {
  return files
    .map((file) => {
      try {
        const s = statSync(file);
        return `${file}:${s.mtimeMs}:${s.size}`;
      } catch {
        return '';
      }
    })
    .join('\n');
}
