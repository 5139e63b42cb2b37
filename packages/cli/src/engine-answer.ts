/**
 * One question to the repository's engine from a one-shot command (`check`, `scan`): found or
 * started, its answer, or undefined when this process should answer in-process instead. Said on
 * stderr: always when a newer Airspace's engine is left running or an older one was replaced, or
 * its answer was malformed (the client checks every answer's shape: it is another process's
 * word); in verbose mode why the answer is in-process.
 */
import { EngineAnswerError, EngineRequestError, ensureEngine, newerEngineText, replacedEngineText } from '@airspace/engine/client';
import { CliError } from './errors.js';
import type { Io } from './io.js';

export interface EngineQuestion {
  /** A directory of the repository the engine serves. */
  readonly cwd: string;
  readonly method: 'check' | 'scan' | 'declareIntent';
  readonly request: unknown;
  /** How long to wait for the answer before answering in-process (ms). */
  readonly answerMs: number;
  readonly verbose: boolean;
  /** What this process does instead, for the verbose note: "checking", "scanning". */
  readonly doing: string;
  /** Said when this question started the engine (given its pid); nothing when undefined. */
  readonly startedText?: (pid: number) => string | undefined;
}

export async function answerThroughEngine<T>(io: Io, q: EngineQuestion): Promise<T | undefined> {
  const note = (why: string): undefined => {
    if (q.verbose) io.stderr.write(`airspace: ${q.doing} in-process: ${why}.\n`);
    return undefined;
  };
  const found = await ensureEngine({ cwd: q.cwd }).catch((e: Error) => ({ reason: e.message }));
  if ('reason' in found) {
    // A newer Airspace's engine is left running; said always, once, since this answer is slower for it.
    if ('newer' in found && found.newer) {
      io.stderr.write(`airspace: ${newerEngineText(found.newer)}\n`);
      return undefined;
    }
    return note(found.reason);
  }
  const pid = found.connection.hello.pid;
  if (found.replaced) io.stderr.write(`airspace: ${replacedEngineText(found.replaced, pid)}\n`);
  else if (found.started) {
    const text = q.startedText?.(pid);
    if (text) io.stderr.write(`airspace: ${text}\n`);
  }
  try {
    return await found.connection.request<T>(q.method, q.request, q.answerMs);
  } catch (error) {
    // The user's mistake is the same sentence either way; the engine's own failure is not theirs.
    if (error instanceof EngineRequestError && error.body.kind === 'INPUT') throw new CliError(error.message);
    if (error instanceof EngineAnswerError) {
      io.stderr.write(`airspace: ${error.message} ${q.doing[0]!.toUpperCase()}${q.doing.slice(1)} in-process instead.\n`);
      return undefined;
    }
    return note(`the engine failed: ${(error as Error).message}`);
  } finally {
    found.connection.close();
  }
}
