/**
 * The engine's wire protocol: newline-delimited JSON over a Unix socket, one request per line,
 * one response per line with the request's id. The first request of a connection is `hello` with
 * the client's protocol version; a mismatch is refused. A client then replaces an engine of an
 * older version, and leaves one of a newer version alone and scans in-process (else two Airspaces
 * would replace each other's engine at every question). A
 * client that says `hold: true` (an editor's language server) keeps the engine from its idle
 * exit while its connection is open; the idle time counts from when the last one closes. A
 * client that says `subscribe: true` is sent a notification line (`{"notification":"changed"}`,
 * no id) whenever the engine saw the repository move (a save, a commit, a worktree added, intent
 * declared), so that it can ask again without following the worktrees itself.
 *
 * Versions: 2 added `hold` and `editorScan`; 3 added `subscribe` and the `changed` notification,
 * and `scan` takes the flags of `airspace scan` (`ScanRequest`).
 */
export const PROTOCOL_VERSION = 3;

export type EngineMethod = 'hello' | 'check' | 'scan' | 'editorScan' | 'advisories' | 'declareIntent' | 'acknowledge' | 'status' | 'stop';

export interface EngineRequest {
  readonly id: number;
  readonly method: EngineMethod;
  readonly params?: unknown;
}

export interface EngineErrorBody {
  /** `INPUT`: the request was wrong (the answer a cold run gives too: exit 1); `ENGINE`: the engine failed (fall back). */
  readonly kind: 'INPUT' | 'ENGINE';
  readonly message: string;
}

/** What a subscriber is told when the repository moved: why, and whether git's state (not only files) changed. */
export interface EngineChange {
  readonly reason: string;
  /** Git's state moved (refs, HEAD, the worktree list) or the engine started following: everything may differ. */
  readonly all: boolean;
}

/** A line the engine sends unasked, to subscribers. */
export interface EngineNotification {
  readonly notification: 'changed';
  readonly params: EngineChange;
}

export interface HelloResult {
  readonly version: number;
  readonly pid: number;
  readonly commonDir: string;
}

export interface EngineStatus {
  readonly pid: number;
  readonly version: number;
  readonly commonDir: string;
  readonly socket: string;
  readonly log: string;
  readonly startedAt: string;
  readonly uptimeMs: number;
  readonly idleTimeoutMs: number;
  readonly agents: readonly string[];
  /** Warm scanners: one per configuration (worktrees without a config of their own share one). */
  readonly scanners: number;
  readonly lastScan?: { readonly at: string; readonly ms: number; readonly kind: 'full' | 'patch' | 'fresh' };
  readonly requests: number;
  /** Open connections that hold the engine (editors' language servers). */
  readonly holders: number;
  /** Open connections told of every change (editors, `watch`, `view`). */
  readonly subscribers: number;
  /** Change notifications sent (to all subscribers, counted once each). */
  readonly notified: number;
  readonly mode: 'watch' | 'poll';
  /** Directories followed by file events (0 while polling). */
  readonly directories: number;
  /** Why the engine gave up file events for polling, when a watch failed. */
  readonly lostTrack?: string;
  /**
   * File events seen; freshness checks answered from git, from file events alone, and changes
   * whose file event had not come (late, or missed: git was asked for them).
   */
  readonly events: number;
  readonly stamps: {
    readonly git: number;
    readonly events: number;
    readonly worktrees: number;
    readonly statuses: number;
    readonly missed: number;
  };
}

/** Splits a byte stream into lines; a partial line waits for the rest. */
export function lineReader(onLine: (line: string) => void): (chunk: Buffer | string) => void {
  let buffer = '';
  return (chunk) => {
    buffer += chunk.toString();
    let at: number;
    while ((at = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 1);
      if (line.trim() !== '') onLine(line);
    }
  };
}
