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
  const scans = new EngineScansClient(options);
  return {
    scan: (input) => scans.scan(input),
    mode: () => scans.current,
    ready: () => scans.ready(),
    dispose: () => scans.dispose(),
  };
}

/** `createEngineScans`'s state: the engine found (or being found), else this process's scanner. */
class EngineScansClient<I extends EngineScanInput> {
  private readonly ensure: (cwd: string, how: ConnectOptions) => Promise<EngineLookup>;
  private readonly log: (message: string) => void;
  private readonly timeoutMs: number;
  private readonly disabled: boolean;
  private connection: Promise<EngineConnection | undefined> | undefined;
  private fallback: InProcessScans<I> | undefined;
  current: EngineScanMode | undefined;
  private disposed = false;
  // The connection now in use; one that closes while it is (the engine stopped, or was replaced)
  // is told to a subscriber as a change, so that it asks again and the next engine is found.
  private live: EngineConnection | undefined;
  private closed: (() => void) | undefined;
  private readonly how: ConnectOptions;

  constructor(private readonly options: EngineScansOptions<I>) {
    this.ensure = options.ensure ?? ((cwd: string, how: ConnectOptions) => ensureEngine({ cwd, ...how }));
    this.log = options.log ?? (() => undefined);
    this.timeoutMs = options.scanTimeoutMs ?? 15 * 60_000;
    this.disabled = options.disabled ?? engineDisabled();
    this.how = {
      hold: true,
      ...(options.onChange
        ? {
            onChange: options.onChange,
            onClose: () => this.closed?.(),
          }
        : {}),
    };
  }

  private inProcess(reason: string, sentence = `Scanning in this process: ${reason}.`): InProcessScans<I> {
    if (!this.fallback) {
      this.log(sentence);
      this.current = { kind: 'in-process', reason };
      this.fallback = this.options.inProcess();
    }
    return this.fallback;
  }

  private connect(): Promise<EngineConnection | undefined> {
    return (this.connection ??= this.ensure(this.options.cwd, this.how).then(
      (found) => this.adopt(found),
      (error: unknown) => {
        this.inProcess(error instanceof Error ? error.message : String(error));
        return undefined;
      },
    ));
  }

  /** The engine found becomes the one scans go to; none found, this process scans. */
  private adopt(found: EngineLookup): EngineConnection | undefined {
    if (!('connection' in found)) {
      // A newer Airspace's engine (also one that just took this one's place) is left alone:
      // this client stays in its own process for good rather than race it for the lock.
      if (found.newer) this.inProcess(found.reason, newerEngineText(found.newer));
      else this.inProcess(found.reason);
      return undefined;
    }
    if (this.disposed) {
      found.connection.close();
      return undefined;
    }
    this.current = { kind: 'engine', pid: found.connection.hello.pid };
    const mine = found.connection;
    this.live = mine;
    this.closed = () => {
      if (this.disposed || this.live !== mine) return;
      this.live = undefined;
      this.connection = undefined;
      this.log(`The engine (pid ${mine.hello.pid}) went away; the next scan finds the next one.`);
      this.options.onChange?.({ reason: 'the engine went away', all: true });
    };
    if (found.replaced) this.log(replacedEngineText(found.replaced, found.connection.hello.pid));
    this.log(`Scanning through the repository's engine (pid ${found.connection.hello.pid}${found.started ? ', started now' : ''}).`);
    return found.connection;
  }

  private async viaEngine(input: I, attempt: number): Promise<ScanResult> {
    const asked = this.connect();
    const engine = await asked;
    if (!engine) return this.inProcess('no engine').scan(input);
    try {
      return await engine.request<ScanResult>('editorScan', this.editorScanParams(input), this.timeoutMs);
    } catch (error) {
      return this.afterFailure(error, input, attempt, engine, asked);
    }
  }

  private editorScanParams(input: I): EditorScanRequest {
    const { cwd, settings } = this.options;
    return {
      cwd,
      ...(input.overrides && Object.keys(input.overrides).length ? { overrides: input.overrides } : {}),
      ...(input.intent ? { intent: input.intent } : {}),
      ...(settings && Object.keys(settings).length ? { settings } : {}),
    };
  }

  /** A scan the engine did not answer: its error, this process's answer, or the next engine's. */
  private afterFailure(
    error: unknown,
    input: I,
    attempt: number,
    engine: EngineConnection,
    asked: Promise<EngineConnection | undefined>,
  ): Promise<ScanResult> {
    // The engine's answer about the request (a bad config, not a repository): a cold scan gives it too.
    if (error instanceof EngineRequestError) throw error;
    // An answer of the wrong shape: that engine is not to be trusted; this process answers from now on.
    if (error instanceof EngineAnswerError) {
      if (this.live === engine) this.live = undefined;
      engine.close();
      if (this.disposed) throw error;
      return this.inProcess(error.message, `${error.message} Scanning in this process from now on.`).scan(input);
    }
    // The engine went away (stopped, killed, replaced): find or start the next one once.
    if (this.live === engine) this.live = undefined;
    engine.close();
    // Only the lookup that gave this engine: one begun since (the engine's close was told as a
    // change, and a rescan asked again) stays, or this retry would start a second engine.
    if (this.connection === asked) this.connection = undefined;
    if (this.disposed) throw error;
    const why = error instanceof Error ? error.message : String(error);
    if (attempt > 0) return this.inProcess(`the engine failed twice (${why})`).scan(input);
    this.log(`The engine stopped answering (${why}); finding the next one.`);
    return this.viaEngine(input, attempt + 1);
  }

  scan(input: I): Promise<ScanResult> {
    if (this.disposed) return Promise.reject(new Error('the scanner was disposed'));
    if (this.fallback) return this.fallback.scan(input);
    if (this.disabled) return this.inProcess('the engine is turned off (AIRSPACE_ENGINE)').scan(input);
    return this.viaEngine(input, 0);
  }

  async ready(): Promise<EngineScanMode> {
    if (!this.fallback && this.disabled) this.inProcess('the engine is turned off (AIRSPACE_ENGINE)');
    if (!this.fallback) await this.connect();
    return this.current!;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const engine = await this.connection?.catch(() => undefined);
    // Closing the connection lets the engine's idle time start (if nobody else holds it).
    engine?.close();
    await this.fallback?.dispose();
  }
}
