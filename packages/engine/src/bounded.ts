/**
 * Every wait of the engine is bounded: a config module that never finishes loading must not
 * wedge the engine for every agent (its scanner's setup would wait on it forever, and every later
 * question behind it). The engine loads the config a warm scanner will read before the scanner
 * does, within a limit; past it the question fails with a named problem, and the next question
 * tries again (the config may have been fixed or removed meanwhile).
 */
import { extname, resolve } from 'node:path';
import { findConfig, loadConfig } from '@airspace/config';
import type { ScannerOptions } from '@airspace/scanner';
import { InputError } from './errors.js';

/** The variable that sets how long a config module may take to load (ms), as in-process scans read it. */
export const CONFIG_TIMEOUT_ENV = 'AIRSPACE_CONFIG_TIMEOUT_MS';

/**
 * How long the engine waits for a config module (ms): the config loading limit
 * (`AIRSPACE_CONFIG_TIMEOUT_MS`, default 5 s) and a margin, so that a loader that bounds itself
 * says first, and more precisely, what went wrong.
 */
export function configWaitMs(env: NodeJS.ProcessEnv = process.env): number {
  const limit = Number(env[CONFIG_TIMEOUT_ENV]);
  return (Number.isFinite(limit) && limit > 0 ? limit : 5000) + 2000;
}

/** `promise`, or `onTimeout()` thrown after `ms`. */
export function within<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
    timer.unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * Loads the config module a scanner with these options reads (none, or a JSON file: nothing to
 * wait for) within `ms`; throws an InputError naming the file when it does not finish.
 */
export async function configLoadsWithin(options: ScannerOptions, ms: number): Promise<void> {
  if (typeof options.config === 'object') return;
  const path = options.config !== undefined ? resolve(options.config) : findConfig(resolve(options.repo ?? '.'));
  if (path === undefined || extname(path) === '.json') return;
  await within(
    loadConfig({ repoRoot: resolve(options.repo ?? '.'), configPath: path }).catch(() => undefined),
    ms,
    () =>
      new InputError(
        `Config file ${path} did not finish loading within ${ms} ms (${CONFIG_TIMEOUT_ENV} sets the limit); the engine tries again at the next question.`,
      ),
  );
}
