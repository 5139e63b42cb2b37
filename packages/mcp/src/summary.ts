/**
 * The compact airspace (`airspace://summary`): what a model needs to know who is where, in a few
 * hundred bytes per agent, where `airspace://scan` (the full scan JSON, every channel's evidence,
 * positions and coordinates) runs to tens of kilobytes for a handful of agents. Pure.
 */
import type { ScanResult } from '@airspace/core';

/** At most this many files named per agent, and evidence lines per pair. */
const FILES = 8;
const EVIDENCE = 2;

export interface ScanSummary {
  readonly generatedAt: string;
  readonly counts: ScanResult['counts'];
  readonly agents: readonly {
    readonly id: string;
    /** How many files the agent changes, and the first of them. */
    readonly changed: number;
    readonly files: readonly string[];
    readonly declared?: readonly string[];
    readonly incomplete?: true;
  }[];
  /** Every pair above clear, worst first. */
  readonly pairs: readonly {
    readonly a: string;
    readonly b: string;
    readonly level: string;
    readonly risk: number;
    readonly probability?: number;
    readonly steer?: string;
    readonly hold?: string;
    readonly evidence: readonly string[];
  }[];
  readonly forecasts: readonly { readonly a: string; readonly b: string; readonly probability: number }[];
  readonly problems: readonly string[];
}

const round = (x: number): number => Math.round(x * 100) / 100;

export function scanSummary(result: ScanResult): ScanSummary {
  const advisories = new Map(result.advisories.map((a) => [`${a.a}\0${a.b}`, a]));
  const rank = { resolution: 3, traffic: 2, unknown: 1, clear: 0 } as const;
  return {
    generatedAt: result.generatedAt,
    counts: result.counts,
    agents: result.agents.map((a) => ({
      id: a.id,
      changed: a.files.length,
      files: a.files.slice(0, FILES).map((f) => f.path),
      ...(a.intent?.length ? { declared: a.intent.slice(0, FILES) } : {}),
      ...(a.incomplete?.length ? { incomplete: true as const } : {}),
    })),
    pairs: result.links
      .filter((l) => l.level !== 'clear')
      .sort((x, y) => rank[y.level] - rank[x.level] || y.risk - x.risk)
      .map((l) => {
        const advisory = advisories.get(`${l.a}\0${l.b}`) ?? advisories.get(`${l.b}\0${l.a}`);
        return {
          a: l.a,
          b: l.b,
          level: l.level,
          risk: round(l.risk),
          ...(l.probability !== undefined ? { probability: round(l.probability) } : {}),
          ...(advisory?.steer ? { steer: advisory.steer } : {}),
          ...(advisory?.hold ? { hold: advisory.hold } : {}),
          evidence: l.evidence.slice(0, EVIDENCE).map((e) => e.message),
        };
      }),
    forecasts: result.links.filter((l) => l.forecast).map((l) => ({ a: l.a, b: l.b, probability: round(l.forecast!.probability) })),
    problems: [...new Set(result.problems.map((p) => p.message))].slice(0, 10),
  };
}
