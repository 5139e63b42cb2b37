/** Code lenses above symbol-precise findings, and the code actions of the findings on a range of lines. */
import { pathToFileURL } from 'node:url';
import type { CodeAction } from 'vscode-languageserver';
import { coversLines } from './lines.js';
import { codeActions, codeLenses } from './present.js';
import type { Session } from './session.js';

export function registerLensesAndActions(s: Session): void {
  s.connection.onCodeLens((params) =>
    s.guard('textDocument/codeLens', [], () => {
      const at = s.findingsAt(params.textDocument.uri);
      return at ? codeLenses(at.list, s.lineCount(params.textDocument.uri)) : [];
    }),
  );

  s.connection.onCodeAction((params) =>
    s.guard('textDocument/codeAction', [] as CodeAction[], () => {
      const at = s.findingsAt(params.textDocument.uri);
      if (!at) return [];
      const relevant = at.list.filter((f) => coversLines(f.range, params.range.start.line, params.range.end.line));
      return codeActions(relevant, pathToFileURL(at.self.folder).href, s.acknowledged, params.context.diagnostics);
    }),
  );
}
