/**
 * How results reach one client: which of its capabilities the server relies on, and which
 * diagnostics actually changed since the last delivery (so nothing identical is sent twice).
 */
import { fileURLToPath } from 'node:url';
import type { ClientCapabilities, Diagnostic, Location } from 'vscode-languageserver';
import { oneBased } from './lines.js';
import { plain } from './text.js';

export interface ClientFeatures {
  /**
   * `pull` where the client asks for diagnostics and can be told to ask again; `push` otherwise.
   * Never both: vscode-languageclient keeps pushed and pulled diagnostics in separate
   * collections and would show each twice.
   */
  readonly diagnostics: 'pull' | 'push';
  /** `window/showDocument`: "open the other side" can open it; without it the location is shown as text. */
  readonly showDocument: boolean;
  readonly codeLensRefresh: boolean;
}

export function clientFeatures(c: ClientCapabilities): ClientFeatures {
  return {
    diagnostics: c.textDocument?.diagnostic && c.workspace?.diagnostics?.refreshSupport ? 'pull' : 'push',
    showDocument: c.window?.showDocument?.support === true,
    codeLensRefresh: c.workspace?.codeLens?.refreshSupport === true,
  };
}

/** The diagnostics last delivered per document; `changes` returns only what differs from them. */
export class DiagnosticsLedger {
  private readonly sent = new Map<string, string>();

  /** Documents whose diagnostics differ from the last delivery (cleared ones with `[]`), and records them as delivered. */
  changes(byUri: ReadonlyMap<string, readonly Diagnostic[]>): { uri: string; diagnostics: Diagnostic[] }[] {
    const out: { uri: string; diagnostics: Diagnostic[] }[] = [];
    for (const [uri, diagnostics] of byUri) {
      const key = JSON.stringify(diagnostics);
      if (this.sent.get(uri) === key) continue;
      this.sent.set(uri, key);
      out.push({ uri, diagnostics: [...diagnostics] });
    }
    for (const uri of [...this.sent.keys()]) {
      if (byUri.has(uri)) continue;
      this.sent.delete(uri);
      out.push({ uri, diagnostics: [] });
    }
    return out;
  }
}

/** "Open the other side" as text, for clients that cannot open a document for the server. */
export function locationText(loc: Location): string {
  let path = loc.uri;
  try {
    path = fileURLToPath(loc.uri);
  } catch {
    /* not a file URI: show it as it is */
  }
  return plain(`Airspace: the other side is ${path}:${oneBased(loc.range.start.line)}`);
}
