/**
 * Where the MCP server's answers come from: the repository's resident engine (started on
 * demand), else an engine core in this process (warm too: this server lives as long as the
 * agent's session). Same requests, same answers; a user's mistake comes back as an `InputError`.
 */
import { EngineCore, InputError } from '@airspace/engine';
import {
  EngineAnswerError,
  EngineRequestError,
  engineDisabled,
  ensureEngine,
  findCommonDir,
  newerEngineText,
  type EngineConnection,
} from '@airspace/engine/client';

export type Method = 'check' | 'scan' | 'advisories' | 'declareIntent' | 'acknowledge';

export interface Backend {
  call<T>(method: Method, params: Record<string, unknown>): Promise<T>;
  /** `engine` when the last answer came from the resident engine. */
  readonly via: () => 'engine' | 'in-process';
  dispose(): Promise<void>;
}

/** After the engine failed to start or answer, ask it again only after this long. */
const RETRY_ENGINE_MS = 60_000;
const ANSWER_MS = 180_000;

export function createBackend(options: { cwd: string; engine: boolean; env: NodeJS.ProcessEnv; log: (m: string) => void }): Backend {
  const useEngine = options.engine && !engineDisabled(options.env);
  let connection: EngineConnection | undefined;
  let engineDownUntil = 0;
  let local: EngineCore | undefined;
  let via: 'engine' | 'in-process' = 'in-process';

  const localCore = (): EngineCore => (local ??= new EngineCore({ commonDir: findCommonDir(options.cwd) ?? '', resident: true }));
  const runLocal = <T>(method: Method, params: Record<string, unknown>): Promise<T> => {
    via = 'in-process';
    const core = localCore();
    const p = params as never;
    switch (method) {
      case 'check':
        return core.check(p) as Promise<T>;
      case 'scan':
        return core.scanFor({ cwd: options.cwd }) as Promise<T>;
      case 'advisories':
        return core.advisories(p) as Promise<T>;
      case 'declareIntent':
        return core.declareIntent(p) as Promise<T>;
      case 'acknowledge':
        return core.acknowledge(p) as Promise<T>;
    }
  };

  const engine = async (): Promise<EngineConnection | undefined> => {
    if (!useEngine || Date.now() < engineDownUntil) return undefined;
    if (connection) return connection;
    const found = await ensureEngine({ cwd: options.cwd }).catch((e: Error) => ({ reason: e.message }));
    if ('reason' in found) {
      // A newer Airspace's engine is left alone for good (racing it would replace it at every call).
      if ('newer' in found && found.newer) {
        options.log(newerEngineText(found.newer));
        engineDownUntil = Infinity;
        return undefined;
      }
      options.log(`Answering in-process: ${found.reason}.`);
      engineDownUntil = Date.now() + RETRY_ENGINE_MS;
      return undefined;
    }
    connection = found.connection;
    return connection;
  };

  return {
    async call<T>(method: Method, params: Record<string, unknown>): Promise<T> {
      // Twice: an engine that exited while idle is started again once.
      for (let attempt = 0; attempt < 2; attempt++) {
        const conn = await engine();
        if (!conn) break;
        try {
          const result = await conn.request<T>(method, { cwd: options.cwd, ...params }, ANSWER_MS);
          via = 'engine';
          return result;
        } catch (error) {
          if (error instanceof EngineRequestError && error.body.kind === 'INPUT') throw new InputError(error.message);
          conn.close();
          connection = undefined;
          // An answer of the wrong shape: that engine is not asked again for a while.
          if (error instanceof EngineAnswerError) {
            options.log(`${error.message} Answering in-process.`);
            engineDownUntil = Date.now() + RETRY_ENGINE_MS;
            break;
          }
          if (error instanceof EngineRequestError) {
            options.log(`The engine failed (${error.message}); answering in-process.`);
            break;
          }
        }
      }
      return runLocal<T>(method, { cwd: options.cwd, ...params });
    },
    via: () => via,
    async dispose() {
      connection?.close();
      await local?.dispose();
    },
  };
}
