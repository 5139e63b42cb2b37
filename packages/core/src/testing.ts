/**
 * `@airspace/core/testing`: a table-driven tester for channels, in the style of ESLint's
 * RuleTester, and the `agent()` / `edit()` builders.
 *
 *   import { channelTester, agent, edit } from '@airspace/core/testing';
 *   channelTester.run('overlap', overlapChannel(), {
 *     low:  [{ name: 'different files', a: agent('a', [edit('x.ts', [[1, 5]])]), b: agent('b', [edit('y.ts', [[1, 5]])]) }],
 *     high: [{ name: 'same lines', a: …, b: …, kind: 'overlap' }],
 *   });
 *
 * Import it from a Vitest (≥ 4) test file: `run` registers one `describe` with one `it` per case
 * through Vitest's own `describe`/`it`/`expect`, imported here statically (vitest is an optional
 * peer dependency of @airspace/core; nothing else in core imports it). Another runner can pass its
 * functions to `createChannelTester({ describe, it, expect })`.
 */
import { describe as vitestDescribe, expect as vitestExpect, it as vitestIt } from 'vitest';
import type { AnyChannel, ChannelContext, ChannelScore, Logger, Problem } from './channel.js';
import type { Agent } from './model.js';
import { serviceProblem } from './errors.js';
import { resolveOptions } from './options.js';
import { deepFreeze } from './scan-input.js';
import { DEFAULT_THRESHOLDS } from './scan-types.js';
import { validateChannel } from './registry.js';
import { type ServiceName, type Services, type ServicesOf } from './services.js';

export { agent, edit, type AgentInit, type EditOptions } from './builders.js';

export interface ChannelCase {
  /** Shown in the test title; default the case's index. */
  readonly name?: string;
  readonly a: Agent;
  readonly b: Agent;
  /** Low cases: risk must be ≤ `max` (default just below τ_TA). */
  readonly max?: number;
  /** High cases: risk must be ≥ `min` (default τ_RA). */
  readonly min?: number;
  /** An evidence item of this `kind` must be present. */
  readonly kind?: string;
  /** Options as a config gives them: checked against the channel's `optionsSchema`, merged over its `defaultOptions`. */
  readonly options?: unknown;
  readonly services?: Readonly<Partial<Services>>;
  /** The scanned repository (e.g. a `createRepoFixture`'s `{ id, root: repo.dir }`), as `ctx.repository`. */
  readonly repository?: { readonly id: string; readonly root?: string };
  /** Other agents in the scan (they reach `prepare`, not `score`). */
  readonly others?: readonly Agent[];
  /** Check that score(b, a) gives the same risk; default the run's `symmetric` (true). */
  readonly symmetric?: boolean;
  /** Extra assertions on the result. */
  readonly check?: (result: ChannelScore) => void;
}

export interface ChannelCases {
  readonly low?: readonly ChannelCase[];
  readonly high?: readonly ChannelCase[];
  /** Default for every case's `symmetric`. */
  readonly symmetric?: boolean;
}

const SILENT: Logger = { debug() {}, info() {}, warn() {} };

/** What one scoring needs besides the pair: the scan's options, services, repository and clock. */
export interface ScoreInit {
  /** Options as a config gives them: checked against the channel's schema, merged over its `defaultOptions`. */
  readonly options?: unknown;
  readonly services?: Readonly<Partial<Services>>;
  /** The scanned repository (a fixture's `{ id, root }`), as `ctx.repository`. */
  readonly repository?: { readonly id: string; readonly root?: string };
  /** Other agents in the scan (they reach `prepare`, not `score`). */
  readonly others?: readonly Agent[];
  readonly now?: number;
}

/**
 * Runs `prepare` (over a, b and `others`) and `score(a, b)` once, as scanAirspace would: options
 * through the same check (their problems come back in the result's `problems`), required services
 * checked against their contracts (a missing one is a `MISSING_SERVICE` problem and risk 0).
 */
export async function scoreOnce(channel: AnyChannel, a: Agent, b: Agent, init: ScoreInit = {}): Promise<ChannelScore> {
  const services: Readonly<Record<string, unknown>> = init.services ?? {};
  for (const name of channel.requires ?? []) {
    const problem = serviceProblem(channel.id, name, services[name]);
    if (problem !== undefined) return { risk: 0, evidence: [], problems: [problem] };
  }
  const resolved = resolveOptions(channel.id, channel.defaultOptions, channel.optionsSchema, init.options);
  const ctx: ChannelContext<unknown, ServiceName> = {
    options: deepFreeze(resolved.options),
    now: init.now ?? 0,
    logger: SILENT,
    services: services as ServicesOf<ServiceName>,
    ...(init.repository ? { repository: init.repository } : {}),
  };
  const prepared = channel.prepare ? await channel.prepare([a, b, ...(init.others ?? [])], ctx) : undefined;
  const result = await channel.score(a, b, { ...ctx, prepared });
  if (resolved.problems.length === 0) return result;
  return { ...result, problems: [...resolved.problems, ...(result.problems ?? [])] };
}

interface Runner {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void> | void): void;
  expect: typeof vitestExpect;
}

function problemsText(problems: readonly Problem[] | undefined): string {
  return (problems ?? []).map((p) => `${p.code}: ${p.message}`).join('\n');
}

export function createChannelTester(runner: Runner) {
  const { describe, it, expect } = runner;
  const check = async (channel: AnyChannel, c: ChannelCase, band: 'low' | 'high', symmetric: boolean): Promise<void> => {
    const result = await scoreOnce(channel, c.a, c.b, c);
    expect(typeof result.risk, 'risk must be a number').toBe('number');
    expect(result.risk, 'risk must be in [0, 1]').toBeGreaterThanOrEqual(0);
    expect(result.risk, 'risk must be in [0, 1]').toBeLessThanOrEqual(1);
    if (result.risk > 0) expect(result.evidence.length, `a non-zero risk (${result.risk}) must carry evidence`).toBeGreaterThan(0);
    for (const e of result.evidence) expect(e.message, 'every evidence item needs a message').toMatch(/\S/);
    if (band === 'low') {
      const max = c.max ?? DEFAULT_THRESHOLDS.traffic - 1e-9;
      expect(result.risk, `expected low risk ≤ ${max}; evidence: ${result.evidence.map((e) => e.message).join(' | ')}`).toBeLessThanOrEqual(
        max,
      );
    } else {
      const min = c.min ?? DEFAULT_THRESHOLDS.resolution;
      expect(result.risk, `expected high risk ≥ ${min}; problems: ${problemsText(result.problems)}`).toBeGreaterThanOrEqual(min);
    }
    if (c.kind !== undefined) {
      expect(
        result.evidence.map((e) => e.kind),
        `expected evidence of kind "${c.kind}"`,
      ).toContain(c.kind);
    }
    if (c.symmetric ?? symmetric) {
      const reverse = await scoreOnce(channel, c.b, c.a, c);
      expect(reverse.risk, 'score(b, a) must equal score(a, b)').toBeCloseTo(result.risk, 9);
    }
    c.check?.(result);
  };

  return {
    /** One `describe(name)` with one `it` per case. */
    run(name: string, channel: AnyChannel, cases: ChannelCases): void {
      describe(name, () => {
        it('is a valid channel', () => {
          expect(problemsText(validateChannel(channel, name))).toBe('');
        });
        const symmetric = cases.symmetric ?? true;
        (cases.low ?? []).forEach((c, i) => it(`low: ${c.name ?? i}`, () => check(channel, c, 'low', symmetric)));
        (cases.high ?? []).forEach((c, i) => it(`high: ${c.name ?? i}`, () => check(channel, c, 'high', symmetric)));
      });
    },
  };
}

/** The tester bound to Vitest. */
export const channelTester = createChannelTester({ describe: vitestDescribe, it: vitestIt, expect: vitestExpect });
