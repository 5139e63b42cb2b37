/**
 * The shapes of the engine's answers (advisories, declared intent, acknowledgements), apart from
 * the engine that computes them (questions.ts) and the text written from them for a model (advice.ts).
 */
import type { ScanResult, Thresholds } from '@airspace/core';
import type { IntentMap, Overrides } from '@airspace/scanner';
import type { CheckConflict, CheckForecast } from './check.js';
import type { DeclaredIntent } from './intents.js';

/** What an agent should do about one conflict: go on, tell the other (traffic), or give way. */
export type NextAction = 'go-on' | 'transmit-intent' | 'steer-away' | 'hold-course';

/** Who is asking: a directory inside the agent's worktree, or an agent id. */
export interface AgentRef {
  readonly cwd: string;
  readonly agent?: string;
}

export interface Advisory extends CheckConflict {
  /** What to do now, for this agent: go on, transmit intent, or steer away / hold. */
  readonly action: NextAction;
  /** The TCAS message for this agent. */
  readonly message?: string;
}

export interface AdvisoriesResult {
  readonly agent: string;
  readonly advisories: readonly Advisory[];
  /** Clear pairs of this agent forecast to collide later (`Link.forecast`), most likely first; absent when none. */
  readonly forecasts?: readonly CheckForecast[];
  /** Declared intents of other agents that are still current. */
  readonly intents: readonly DeclaredIntent[];
  readonly problems: ScanResult['problems'];
}

export interface DeclareIntentRequest extends AgentRef {
  readonly paths?: readonly string[];
  readonly symbols?: readonly string[];
  readonly note?: string;
  readonly ttlMs?: number;
}

export interface DeclareIntentResult {
  readonly declared: DeclaredIntent;
  /** `paths: []` and `symbols: []`: the agent's declaration was withdrawn (and no longer counts). */
  readonly withdrawn?: true;
  /** Who is already close to what was declared (from a scan that counts it). */
  readonly advisories: readonly Advisory[];
  readonly problems: ScanResult['problems'];
}

export interface AcknowledgeRequest extends AgentRef {
  readonly with: string;
  readonly note?: string;
}

export interface AcknowledgeResult {
  readonly agent: string;
  readonly with: string;
  readonly trail: string;
  readonly receipt: { readonly eventId: string; readonly hash: string };
  /** The agent had already acknowledged this advisory: nothing new was recorded. */
  readonly already?: true;
}

/** `airspace scan`'s question: its flags as typed, relative paths relative to `cwd`. */
export interface ScanRequest {
  /** The asker's directory (absolute). */
  readonly cwd: string;
  /** Any directory of the repository (default `cwd`). */
  readonly repo?: string;
  readonly base?: string;
  /** Agent sources as the CLI spells them (`json:FILE` relative to `cwd`). */
  readonly sources?: readonly string[];
  readonly config?: string;
  readonly calibration?: string;
}

/** An editor's scan (the language server using the engine): its buffers, intent and settings. */
export interface EditorScanRequest {
  /** A directory of the editor's worktree. */
  readonly cwd: string;
  /** Unsaved buffers: worktree directory → repository-relative path → text. */
  readonly overrides?: Overrides;
  /** Declared intent in the editor: agent id → paths (or `path#symbol`). */
  readonly intent?: IntentMap;
  readonly settings?: {
    readonly base?: string;
    readonly sources?: readonly string[];
    readonly weights?: Readonly<Record<string, number>>;
    readonly thresholds?: Partial<Thresholds>;
    /** An absolute path. */
    readonly config?: string;
  };
}
