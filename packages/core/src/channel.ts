/**
 * The channel API. A channel is a plain object; `defineChannel` exists only for types
 * (as Vitest's `defineConfig`), so a plugin module needs no import of ours to work.
 */
import type { Agent, Range } from './model.js';
import type { ServiceName, ServicesOf } from './services.js';

/** What one side of a piece of evidence points at. */
export interface EvidenceSide {
  readonly agent: string;
  readonly path: string;
  /** Lines in base coordinates. */
  readonly baseRange?: Range;
  /** Lines in the agent's current coordinates (today's lines in its worktree). */
  readonly range?: Range;
  /** Qualified symbol name, e.g. `Parser.parse`. */
  readonly symbol?: string;
  /**
   * Of evidence that groups neighbouring symbols into one line ("deletes v35–v52 (18 symbols)"):
   * the symbols the side covers, in line order (the symbols channel names at most 50); `symbol`
   * is then absent and `range` / `baseRange` span them all.
   */
  readonly symbols?: readonly string[];
  /**
   * What the side's agent does there: `write` (it changes that code) or `read` (it only reads or
   * calls it). Absent means `write`: most evidence is about what both agents change. Editors take
   * their verbs from it ("ben calls `assign`", not "ben writes `assign`").
   */
  readonly access?: 'write' | 'read';
}

export interface Evidence {
  /** Human sentence, complete on its own: who, what, where. */
  readonly message: string;
  /** The first agent of the scored pair (`a`) and the second (`b`). */
  readonly a?: EvidenceSide;
  readonly b?: EvidenceSide;
  /** Short machine tag, e.g. `overlap`, `touching`, `same-insertion-point`, `import-chain`. */
  readonly kind?: string;
  /** The part of the channel's risk this item supports. */
  readonly risk?: number;
  /** Chain of paths or symbols (dependency and call-graph evidence). */
  readonly chain?: readonly string[];
  /** Low-confidence evidence (e.g. a name-only resolution) says so. */
  readonly confidence?: 'high' | 'low';
}

/** A problem met while scoring; the channel still returns a (degraded) result. */
export interface Problem {
  readonly code: string;
  readonly message: string;
  readonly channel?: string;
  readonly agent?: string;
  readonly path?: string;
}

export interface ChannelScore {
  /** Risk r ∈ [0, 1]. Every non-zero risk carries evidence; a risk without evidence counts as 0. */
  readonly risk: number;
  /**
   * The part of `risk` that rests on evidence as precise as the channel's `meta.precision`
   * (default: all of it). A line- or symbol-precise channel whose risk comes from whole-file
   * evidence (no line information: a file over the size limit, a missing merge base) says so
   * here, so that evidence cannot raise a resolution advisory: it counts like a file channel's.
   */
  readonly preciseRisk?: number;
  readonly evidence: readonly Evidence[];
  readonly problems?: readonly Problem[];
  /**
   * Findings of other channels that this result overrules for the pair: a channel that checked
   * exactly what another guesses (the compiler against a heuristic) names it here. A part of
   * `channel` whose evidence is all of `kinds` then raises no resolution on its own (its risk
   * counts like file-level evidence; `pair-scoring.ts`, `classifyPair`).
   */
  readonly overrules?: readonly Overrule[];
  /**
   * The result is not final: work for the pair is still running elsewhere (a check in the
   * engine's background). The pair is scored again by the next scan even when neither agent
   * changed, so the final result replaces this one.
   */
  readonly pending?: true;
}

/** See `ChannelScore.overrules`. */
export interface Overrule {
  readonly channel: string;
  readonly kinds: readonly string[];
  /** Why, for the pair's `levelReason`. */
  readonly reason: string;
}

/** A risk without its evidence: what a channel's optional `risk` hook returns (see `Channel.risk`). */
export type RiskScore = Omit<ChannelScore, 'evidence'>;

/** A pair of agent ids, in either order. */
export type AgentPair = readonly [string, string];

/**
 * How precise a channel's evidence is. By default only `line` and `symbol` channels may raise a
 * resolution advisory; `file` channels alone raise at most a traffic advisory.
 */
export type Precision = 'line' | 'symbol' | 'file';

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
}

/**
 * What a channel receives. `options` are its `defaultOptions` with the config's (or a test's)
 * checked against its `optionsSchema` and merged over them; `services` holds the services it
 * declared in `requires`, typed by core's `Services` (checked present before it runs), and any
 * other service the front end supplied, which it may use when present.
 */
export interface ChannelContext<Options = unknown, Needs extends ServiceName = never> {
  readonly options: Options;
  readonly now: number;
  readonly logger: Logger;
  readonly services: ServicesOf<Needs>;
  /** Repository identity and location, when scanning a real repository. */
  readonly repository?: { readonly id: string; readonly root?: string };
  /**
   * For a channel with a time budget (plugins): aborted when the scan stops the channel (budget
   * spent, a call timed out); long work may stop early. Its `reason` is the problem recorded.
   */
  readonly signal?: AbortSignal;
}

export interface ScoreContext<Options = unknown, Prepared = unknown, Needs extends ServiceName = never> extends ChannelContext<
  Options,
  Needs
> {
  /** What `prepare` returned for this scan. */
  readonly prepared: Prepared;
}

/** What one option may be. */
export type OptionSchema =
  | {
      readonly type: 'number';
      /** Inclusive bounds. */
      readonly min?: number;
      readonly max?: number;
      /** Exclusive bounds. */
      readonly above?: number;
      readonly below?: number;
      readonly integer?: boolean;
    }
  | { readonly type: 'boolean' }
  /** A string; with `values`, one of them. */
  | { readonly type: 'string'; readonly values?: readonly string[] }
  /** An array of strings. */
  | { readonly type: 'strings' }
  /** An object whose values each match `value`; with `keys`, only those keys. Merged key by key over the default. */
  | { readonly type: 'record'; readonly keys?: readonly string[]; readonly value: OptionSchema };

/** One rule per option of `Options`. */
export type OptionsSchema<Options> = { readonly [K in keyof Options]-?: OptionSchema };

export interface Channel<Options = unknown, Prepared = unknown, Needs extends ServiceName = never> {
  /** One kebab-case id everywhere; it shows up in logs, errors, config and evidence. */
  readonly id: string;
  readonly defaultWeight: number;
  readonly meta?: {
    readonly description?: string;
    readonly precision?: Precision;
    readonly docs?: string;
    /**
     * The channel scores each agent's recorded git state (through `services.git`), not
     * `agent.files`: it cannot score an edit not yet made, so probes (`airspace check`) leave it out.
     */
    readonly scoresGitState?: boolean;
  };
  /** The options when the config says nothing; `ctx.options` is these with the config's merged over them. */
  readonly defaultOptions?: Options;
  /**
   * One rule per option (plain data): given options are checked against it, a bad one is an
   * `INVALID_OPTION` problem and keeps its default. Without it options are merged unchecked.
   */
  readonly optionsSchema?: OptionsSchema<Options>;
  /** Services this channel needs in `ctx.services` (names of core's `Services`, e.g. `importGraph`). */
  readonly requires?: readonly Needs[];
  /** Per-scan work over all agents (an index, one BFS per agent) so that scoring a pair is cheap. */
  prepare?(agents: readonly Agent[], ctx: ChannelContext<Options, Needs>): Prepared | Promise<Prepared>;
  score(a: Agent, b: Agent, ctx: ScoreContext<Options, Prepared, Needs>): ChannelScore | Promise<ChannelScore>;
  /**
   * Optional, for scans of many agents: the only pairs this channel may score above 0 (every
   * other pair scores exactly 0, and `score` is not called for it). Found from what `prepare`
   * built, e.g. by an inverted index (path → agents), so pairs sharing nothing cost nothing. With
   * `only`, just the pairs that involve at least one of those agents (a rescan after they changed).
   * A channel without it is *dense*: called for every pair the scan scores.
   */
  candidates?(
    agents: readonly Agent[],
    ctx: ScoreContext<Options, Prepared, Needs>,
    only?: ReadonlySet<string>,
  ): Iterable<AgentPair> | Promise<Iterable<AgentPair>>;
  /**
   * Optional: the risk (and `preciseRisk`, `problems`) that `score` would return for the pair,
   * without building evidence. With an `evidenceMinRisk` above 0 the scan calls it for every
   * candidate pair and calls `score` only for the pairs it reports (an advisory, or a link whose
   * risk reaches `evidenceMinRisk`); a pair below that keeps its risk with its evidence deferred
   * (`Link.deferredEvidence`). `score`'s result is the one that counts where both are called. With
   * none (the default: every link gets its evidence) the scan calls `score` alone.
   */
  risk?(a: Agent, b: Agent, ctx: ScoreContext<Options, Prepared, Needs>): RiskScore | Promise<RiskScore>;
}

/**
 * Identity function that exists for types: `Options` is inferred from `defaultOptions`,
 * `Prepared` from what `prepare` returns, and the services from `requires`, so that
 * `requires: ['importGraph']` gives a typed `ctx.services.importGraph`.
 */
export function defineChannel<Options = unknown, Prepared = unknown, const Needs extends ServiceName = never>(
  channel: Channel<Options, Prepared, Needs>,
): Channel<Options, Prepared, Needs> {
  return channel;
}

export type AnyChannel = Channel<any, any, any>;
