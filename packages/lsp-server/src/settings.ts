/**
 * The editor's settings (`airspace` section of `workspace/configuration`, or initializationOptions)
 * and the one place they become scanner and watcher options.
 */
import type { LspScannerOptions } from './lsp-scanner.js';

/** Settings under the `airspace` section of `workspace/configuration` (or initializationOptions). */
export interface AirspaceSettings {
  readonly base?: string;
  readonly sources?: readonly string[];
  readonly weights?: Readonly<Record<string, number>>;
  readonly thresholds?: { readonly traffic?: number; readonly resolution?: number };
  /** Path of an airspace.config.json (default: the one at the repository root). */
  readonly config?: string;
  /** Delay between the last keystroke and a re-scan. */
  readonly debounceMs?: number;
  /** Poll instead of watching the file system, and how often. */
  readonly poll?: boolean;
  readonly pollMs?: number;
  /** Where acknowledgements' shadow trails are kept (default: `airspace/trails` in the git directory). */
  readonly trailDir?: string;
}

/** Default delay between an edit and the scan it asks for. */
const DEBOUNCE_MS = 150;

/** Settings from the client laid over the ones held; anything but an object changes nothing. */
export function mergeSettings(held: AirspaceSettings, got: unknown): AirspaceSettings {
  return isObject(got) ? { ...held, ...(got as AirspaceSettings) } : held;
}

const isObject = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);

/** The names of settings, to tell Airspace's own settings from a payload of every section. */
const SETTING_NAMES: ReadonlySet<string> = new Set([
  'base',
  'sources',
  'weights',
  'thresholds',
  'config',
  'debounceMs',
  'poll',
  'pollMs',
  'trailDir',
]);

/**
 * Airspace's settings in what a client sends: `{ airspace: {…} }` (a section, as
 * `workspace/didChangeConfiguration` and Neovim's `settings` carry it), `{ settings: {…} }`
 * (initializationOptions), or the settings themselves. Undefined when the payload holds none.
 */
export function settingsIn(payload: unknown): unknown {
  if (!isObject(payload)) return undefined;
  if (isObject(payload.airspace)) return payload.airspace;
  if (isObject(payload.settings)) return settingsIn(payload.settings);
  return Object.keys(payload).some((k) => SETTING_NAMES.has(k)) ? payload : undefined;
}

/** What a repository's scanner is started with (a changed result restarts it). */
export function scannerOptionsOf(settings: AirspaceSettings, worktree: string): LspScannerOptions {
  return {
    repo: worktree,
    ...(settings.base ? { base: settings.base } : {}),
    ...(settings.sources ? { sources: settings.sources } : {}),
    ...(settings.weights ? { weights: settings.weights } : {}),
    ...(settings.thresholds ? { thresholds: settings.thresholds } : {}),
    ...(settings.config ? { config: settings.config } : {}),
  };
}

/** How a repository's worktrees are watched (`@airspace/git`'s change tracker). */
export function watchOptionsOf(settings: AirspaceSettings): { readonly pollMs: number; readonly forcePoll?: boolean } {
  return { pollMs: settings.pollMs ?? 2000, ...(settings.poll !== undefined ? { forcePoll: settings.poll } : {}) };
}

export const debounceOf = (settings: AirspaceSettings): number => settings.debounceMs ?? DEBOUNCE_MS;
