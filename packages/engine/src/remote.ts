/**
 * Whole scans through the repository's resident engine, for long-running front ends (the
 * language server, `watch`, `view`): find or start the engine and hold it (no idle exit while connected),
 * ask it for each scan (`editorScan`: buffers, intent, settings), find the next one once when it
 * goes away, and scan in-process (`inProcess`, created on first need) when there is no engine to
 * be had. The engine works out what changed itself, so callers' change hints are not needed; a
 * caller that gives `onChange` is told by the engine when the repository moved (and when the
 * engine went away), so it needs no change tracker of its own while it scans through the engine —
 * only its in-process fallback (created on first need) follows the worktrees itself.
 */
import type { ScanResult } from '@airspace/core';
import {
  EngineAnswerError,
  EngineRequestError,
  engineDisabled,
  ensureEngine,
  newerEngineText,
  replacedEngineText,
  type ConnectOptions,
  type EngineChange,
  type EngineConnection,
  type EngineLookup,
} from './client.js';
import type { EditorScanRequest } from './answers.js';

/** What one scan sends besides the asking directory. */
export type EngineScanInput = Pick<EditorScanRequest, 'overrides' | 'intent'>;

/** Where the scans run now. */
export type EngineScanMode = { readonly kind: 'engine'; readonly pid: number } | { readonly kind: 'in-process'; readonly reason: string };

/** The scanner of this process; it gets the whole input (a caller's change hints too). */
export interface InProcessScans<I extends EngineScanInput = EngineScanInput> {
  scan(input: I): Promise<ScanResult>;
  dispose(): void | Promise<void>;
}

export interface EngineScansOptions<I extends EngineScanInput = EngineScanInput> {
  /** A directory of the asking worktree. */
  readonly cwd: string;
  readonly settings?: EditorScanRequest['settings'];
  /** The scanner of this process, used when there is no engine. */
  readonly inProcess: () => InProcessScans<I>;
  /** Finds or starts the engine (default: `ensureEngine` holding it; tests pass their own). */
  readonly ensure?: (cwd: string, how: ConnectOptions) => Promise<EngineLookup>;
  /**
   * Subscribes: called when the engine saw the repository move, or went away (then the next
   * scan finds the next engine). Never called while scanning in-process.
   */
  readonly onChange?: (change: EngineChange) => void;
  readonly log?: (message: string) => void;
  /** How long one scan may take in the engine (a first scan indexes the repository). */
  readonly scanTimeoutMs?: number;
  /** Scan in this process only (default: `AIRSPACE_ENGINE=off`). */
  readonly disabled?: boolean;
}

export interface EngineScans<I extends EngineScanInput = EngineScanInput> {
  scan(input: I): Promise<ScanResult>;
  mode(): EngineScanMode | undefined;
  /** Finds (or starts) the engine without scanning, and says where scans will run. */
  ready(): Promise<EngineScanMode>;
  dispose(): Promise<void>;
}

export function createEngineScans<I extends EngineScanInput>(options: EngineScansOptions<I>): EngineScans<I> {
  const ensure = options.ensure ?? ((cwd: string, how: ConnectOptions) => ensureEngine({ cwd, ...how }));
  const log = options.log ?? (() => undefined);
  const timeoutMs = options.scanTimeoutMs ?? 15 * 60_000;
  const disabled = options.disabled ?? engineDisabled();
  let connection: Promise<EngineConnection | undefined> | undefined;
  let fallback: InProcessScans<I> | undefined;
  let current: EngineScanMode | undefined;
  let disposed = false;

  const inProcess = (reason: string, sentence = `Scanning in this process: ${reason}.`): InProcessScans<I> => {
    if (!fallback) {
      log(sentence);
      current = { kind: 'in-process', reason };
      fallback = options.inProcess();
    }
    return fallback;
  };
  // The connection now in use; one that closes while it is (the engine stopped, or was replaced)
  // is told to a subscriber as a change, so that it asks again and the next engine is found.
  let live: EngineConnection | undefined;
  let closed: (() => void) | undefined;
  const how: ConnectOptions = {
    hold: true,
    ...(options.onChange
      ? {
          onChange: options.onChange,
          onClose: () => closed?.(),
        }
      : {}),
  };
  const connect = (): Promise<EngineConnection | undefined> =>
    (connection ??= ensure(options.cwd, how).then(
      (found) => {
        if (!('connection' in found)) {
          // A newer Airspace's engine (also one that just took this one's place) is left alone:
          // this client stays in its own process for good rather than race it for the lock.
          if (found.newer) inProcess(found.reason, newerEngineText(found.newer));
          else inProcess(found.reason);
          return undefined;
        }
        if (disposed) {
          found.connection.close();
          return undefined;
        }
        current = { kind: 'engine', pid: found.connection.hello.pid };
        const mine = found.connection;
        live = mine;
        closed = () => {
          if (disposed || live !== mine) return;
          live = undefined;
          connection = undefined;
          log(`The engine (pid ${mine.hello.pid}) went away; the next scan finds the next one.`);
          options.onChange?.({ reason: 'the engine went away', all: true });
        };
        if (found.replaced) log(replacedEngineText(found.replaced, found.connection.hello.pid));
        log(`Scanning through the repository's engine (pid ${found.connection.hello.pid}${found.started ? ', started now' : ''}).`);
        return found.connection;
      },
      (error: unknown) => {
        inProcess(error instanceof Error ? error.message : String(error));
        return undefined;
      },
    ));

  const viaEngine = async (input: I, attempt: number): Promise<ScanResult> => {
    const asked = connect();
    const engine = await asked;
    if (!engine) return inProcess('no engine').scan(input);
    try {
      return await engine.request<ScanResult>(
        'editorScan',
        {
          cwd: options.cwd,
          ...(input.overrides && Object.keys(input.overrides).length ? { overrides: input.overrides } : {}),
          ...(input.intent ? { intent: input.intent } : {}),
          ...(options.settings && Object.keys(options.settings).length ? { settings: options.settings } : {}),
        },
        timeoutMs,
      );
    } catch (error) {
      // The engine's answer about the request (a bad config, not a repository): a cold scan gives it too.
      if (error instanceof EngineRequestError) throw error;
      // An answer of the wrong shape: that engine is not to be trusted; this process answers from now on.
      if (error instanceof EngineAnswerError) {
        if (live === engine) live = undefined;
        engine.close();
        if (disposed) throw error;
        return inProcess(error.message, `${error.message} Scanning in this process from now on.`).scan(input);
      }
      // The engine went away (stopped, killed, replaced): find or start the next one once.
      if (live === engine) live = undefined;
      engine.close();
      // Only the lookup that gave this engine: one begun since (the engine's close was told as a
      // change, and a rescan asked again) stays, or this retry would start a second engine.
      if (connection === asked) connection = undefined;
      if (disposed) throw error;
      const why = error instanceof Error ? error.message : String(error);
      if (attempt > 0) return inProcess(`the engine failed twice (${why})`).scan(input);
      log(`The engine stopped answering (${why}); finding the next one.`);
      return viaEngine(input, attempt + 1);
    }
  };

  return {
    scan(input) {
      if (disposed) return Promise.reject(new Error('the scanner was disposed'));
      if (fallback) return fallback.scan(input);
      if (disabled) return inProcess('the engine is turned off (AIRSPACE_ENGINE)').scan(input);
      return viaEngine(input, 0);
    },
    mode: () => current,
    async ready() {
      if (!fallback && disabled) inProcess('the engine is turned off (AIRSPACE_ENGINE)');
      if (!fallback) await connect();
      return current!;
    },
    async dispose() {
      disposed = true;
      const engine = await connection?.catch(() => undefined);
      // Closing the connection lets the engine's idle time start (if nobody else holds it).
      engine?.close();
      await fallback?.dispose();
    },
  };
}
