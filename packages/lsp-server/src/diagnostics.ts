/**
 * Diagnostics: one per pair and cluster of lines of each self worktree's findings. Pulled by
 * clients that pull and accept refresh requests, pushed to all others, and only when they changed.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CodeLensRefreshRequest, type Diagnostic } from 'vscode-languageserver';
import { groupFindings, toDiagnostic } from './present.js';
import { message, type Session } from './session.js';

export function diagnosticsByUri(s: Session): Map<string, Diagnostic[]> {
  const byUri = new Map<string, Diagnostic[]>();
  for (const [worktree, list] of s.findings) {
    for (const group of groupFindings(list)) {
      const f = group[0]!;
      const uri = pathToFileURL(join(worktree, f.path)).href;
      const diags = byUri.get(uri) ?? [];
      diags.push(toDiagnostic(group, s.lineCount(uri), s.acknowledged.has(f.pair)));
      byUri.set(uri, diags);
    }
  }
  return byUri;
}

/** Pushes what changed (or asks a pull client to pull again); nothing when nothing changed. */
export function publishDiagnostics(s: Session): void {
  if (s.stopped) return;
  const changes = s.delivered.changes(diagnosticsByUri(s));
  if (changes.length === 0) return;
  if (s.pull) s.connection.languages.diagnostics.refresh().catch((e) => s.log.info(`diagnostic refresh refused: ${message(e)}`));
  else for (const change of changes) void s.connection.sendDiagnostics(change);
  if (s.features.codeLensRefresh) s.connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
}

/** `textDocument/diagnostic` and `workspace/diagnostic` (files that are not open: VS Code's Problems panel). */
export function registerDiagnostics(s: Session): void {
  s.connection.languages.diagnostics.on((params) =>
    s.guard('textDocument/diagnostic', { kind: 'full' as const, items: [] as Diagnostic[] }, () => ({
      kind: 'full' as const,
      items: diagnosticsByUri(s).get(params.textDocument.uri) ?? [],
    })),
  );
  s.connection.languages.diagnostics.onWorkspace(() =>
    s.guard('workspace/diagnostic', { items: [] }, () => ({
      items: [...diagnosticsByUri(s)].map(([uri, items]) => ({ kind: 'full' as const, uri, version: null, items })),
    })),
  );
}
