/**
 * `workspace/executeCommand`: open the other side, copy a summary of both changes, acknowledge an
 * advisory (recorded in the pair's shadow trail), declare intent. Arguments as commands.ts types them.
 */
import { MessageType, ShowMessageNotification } from 'vscode-languageserver';
import { parseSymbolId, type Problem } from '@airspace/core';
import { Commands, parseIntentArgs, parseLocation, parsePairArgs } from './commands.js';
import { locationText } from './delivery.js';
import { publishDiagnostics } from './diagnostics.js';
import { pairKey } from './findings.js';
import { otherDiffs } from './hover.js';
import { intentPath } from './intent.js';
import { summary } from './present.js';
import { plainText } from './text.js';
import { trailDirOf } from './repositories.js';
import { CLIENT_ANSWER_MS, message, type Session } from './session.js';
import { acknowledgePair } from '@airspace/trail';
import type { FolderInfo } from './workspace.js';
import type { IntentSpec } from './lsp-scanner.js';

/** An advisory a command is about: the pair, and self's side of it when a workspace folder is one. */
interface PairTarget {
  readonly pair: string;
  readonly ids: readonly [string, string];
  readonly self?: FolderInfo;
  readonly selfId?: string;
  readonly other?: string;
}

/** Resolves `{ folder?, other }` or `{ a, b }` to the self worktree and the pair. */
function pairOf(s: Session, arg: unknown): PairTarget {
  const args = parsePairArgs(arg);
  if ('problem' in args) throw new Error(args.problem);
  const target = (self: FolderInfo, selfId: string, other: string): PairTarget => ({
    pair: pairKey(selfId, other),
    ids: sorted(selfId, other),
    self,
    selfId,
    other,
  });
  if ('a' in args) {
    // Both ids: the folder whose agent is one of them is self (the lens sends self first).
    for (const [selfId, other] of [
      [args.a, args.b],
      [args.b, args.a],
    ] as const) {
      const self = [...s.folders.values()].find((f) => s.selfIdOf(f) === selfId);
      if (self) return target(self, selfId, other);
    }
    return { pair: pairKey(args.a, args.b), ids: sorted(args.a, args.b) };
  }
  const candidates = args.folder ? [s.folderOf(args.folder)].filter((x): x is FolderInfo => !!x) : [...s.folders.values()];
  for (const self of candidates) {
    const selfId = s.selfIdOf(self);
    if (selfId) return target(self, selfId, args.other);
  }
  throw new Error(`no workspace folder is an agent with an advisory involving ${args.other}`);
}

const sorted = (a: string, b: string): readonly [string, string] => (a < b ? [a, b] : [b, a]);

/** Plain text in the client's message area: a notification, never a request that waits for an answer. */
function showText(s: Session, text: string): void {
  void s.connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Info, message: plainText(text) });
}

export function registerCommands(s: Session): void {
  s.connection.onExecuteCommand((params) =>
    s.guard(`workspace/executeCommand ${params.command}`, null as unknown, async () => {
      const arg: unknown = params.arguments?.[0] ?? {};
      switch (params.command) {
        case Commands.openOther: {
          const loc = parseLocation(arg);
          if ('problem' in loc) throw new Error(loc.problem);
          if (s.features.showDocument) {
            const shown = await s.connection.window.showDocument({ uri: loc.uri, selection: loc.range, takeFocus: true });
            if (shown.success) return { shown: true, location: loc };
          }
          // No showDocument (Neovim 0.7, eglot 1.9) or it failed: say where it is instead of doing nothing.
          showText(s, locationText(loc));
          return { shown: false, location: loc };
        }
        case Commands.copySummary: {
          const { self, pair } = pairOf(s, arg);
          const list = [...s.findings.entries()]
            .filter(([wt]) => !self || wt === self.worktree)
            .flatMap(([, l]) => l)
            .filter((f) => f.pair === pair);
          const text = summary(list, await otherDiffs(s, list, self ? s.repoOf(self) : undefined));
          // Editors that can reach the clipboard (our VS Code extension) copy the result; others show it.
          if (!s.clipboardInClient && text) showText(s, text);
          return { summary: text };
        }
        case Commands.acknowledge: {
          const { self, pair, ids, selfId, other } = pairOf(s, arg);
          s.acknowledged.add(pair);
          publishDiagnostics(s);
          const repo = self && s.repoOf(self);
          const agents = repo?.loop.latest?.agents ?? [];
          const selfAgent = agents.find((a) => a.id === selfId);
          const otherAgent = agents.find((a) => a.id === other);
          if (!repo || !selfAgent || !otherAgent)
            return { acknowledged: ids, recordedIn: 'memory', reason: 'the advisory is not in the latest scan' };
          try {
            const { file, receipt, already } = await acknowledgePair(trailDirOf(s, repo), selfAgent, otherAgent, repo.commonDir, {
              note: `acknowledged in the editor (${otherAgent.id})`,
            });
            return { acknowledged: ids, recordedIn: 'trail', trail: file, receipt, ...(already ? { already } : {}) };
          } catch (error) {
            s.log.error(`Recording the acknowledgement in the shadow trail failed: ${message(error)}; kept in memory.`);
            return { acknowledged: ids, recordedIn: 'memory', reason: message(error) };
          }
        }
        case Commands.declareIntent:
          return declareIntent(s, params.arguments);
        default:
          throw new Error(`unknown command ${params.command}`);
      }
    }),
  );
}

async function declareIntent(s: Session, args: readonly unknown[] | undefined) {
  const { files, symbols, folder } = parseIntentArgs(args);
  // Sent right after `initialized`: the folders of initialize are still being added. The command
  // waits for them (bounded, as `airspace/scan` does) rather than find no folder and be lost.
  if (s.initialFolders && (folder ? !s.folderOf(folder) : s.folders.size === 0))
    await s.atMost(2 * CLIENT_ANSWER_MS + 2000, s.initialFolders, undefined, 'the folders of initialize');
  const self = folder ? s.folderOf(folder) : [...s.folders.values()][0];
  if (!self) throw new Error('no workspace folder to declare intent for');
  // Keyed by what was declared: `path`, or `path#name` for a symbol.
  const declared = s.intents.get(self.worktree) ?? new Map<string, IntentSpec>();
  const problems: Problem[] = [];
  const notPath = (item: unknown): { problem: Problem } => ({
    problem: { code: 'INTENT_PATH_REFUSED', message: `declareIntent: ${JSON.stringify(item)} is not a path; not declared.` },
  });
  for (const item of files) {
    const got = typeof item === 'string' ? intentPath(self.worktree, item) : notPath(item);
    if ('path' in got) declared.set(got.path, got.path);
    else problems.push(got.problem);
  }
  for (const item of symbols ?? []) {
    const id = typeof item === 'string' ? parseSymbolId(item) : undefined;
    if (!id) {
      problems.push({
        code: 'INTENT_PATH_REFUSED',
        message: `declareIntent: ${JSON.stringify(item)} is not a symbol written as path#name; not declared.`,
      });
      continue;
    }
    const got = intentPath(self.worktree, id.path);
    const symbol = id.name;
    if ('path' in got) declared.set(`${got.path}#${symbol}`, { path: got.path, symbol });
    else problems.push(got.problem);
  }
  for (const p of problems) {
    s.log.error(p.message);
    // A notification, not showMessageRequest: that one blocks clients without message actions.
    void s.connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Warning, message: p.message });
  }
  s.intents.set(self.worktree, declared);
  const repo = s.repoOf(self);
  if (repo) {
    repo.changes.buffer(self.worktree);
    repo.loop.request(0);
  }
  return { intent: [...declared.keys()].sort(), ...(problems.length ? { problems } : {}) };
}
