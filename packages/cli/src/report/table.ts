/**
 * The human report of a scan: pairs by risk, with level, channel breakdown and the strongest
 * evidence naming both sides' file:lines. Pure: ScanResult in, text out.
 */
import {
  forecastSignalText,
  levelRank,
  pairKey,
  percentText,
  type Evidence,
  type EvidenceSide,
  type Link,
  type Range,
  type ScanResult,
} from '@airspace/core';
import { createStyle, padEnd, type Style } from './color.js';
import { printableDeep } from './printable.js';

export interface TableOptions {
  readonly style?: Style;
  /** Also list clear pairs with a non-zero risk (default: only advisories and unknown pairs, plus a count). */
  readonly all?: boolean;
  /** Evidence items printed per pair (default 2). */
  readonly evidence?: number;
}

/** `12-18`, `12`, or `after 11` for a zero-width insertion point `[12, 11]`. */
export function formatRange(range: Range): string {
  const [start, end] = range;
  if (end < start) return `after ${end}`;
  return start === end ? `${start}` : `${start}-${end}`;
}

/** `path:12-18` in the agent's current lines when known, else in base lines (marked `base`). */
export function formatSide(side: EvidenceSide): string {
  if (side.range) return `${side.path}:${formatRange(side.range)}`;
  if (side.baseRange) return `${side.path}:${formatRange(side.baseRange)} (base)`;
  return side.symbol ? `${side.path} ${side.symbol}` : side.path;
}

export function formatEvidence(evidence: Evidence): string {
  const sides = [evidence.a, evidence.b].filter((s): s is EvidenceSide => s !== undefined);
  const where = sides.map((s) => `${s.agent} ${formatSide(s)}`).join(' ↔ ');
  return where ? `${where}: ${evidence.message}` : evidence.message;
}

export function formatChannels(link: Pick<Link, 'channels'>): string {
  return (
    link.channels
      .filter((c) => c.risk > 0)
      .sort((x, y) => y.weighted - x.weighted)
      // A line or symbol channel's whole-file part cannot escalate: say how much of it is precise.
      .map(
        (c) =>
          `${c.channel} ${c.risk.toFixed(2)}${c.preciseRisk !== undefined ? ` (${c.preciseRisk.toFixed(2)} ${c.precision}-precise)` : ''}`,
      )
      .join(' · ') || '—'
  );
}

export function sortLinks(links: readonly Link[]): Link[] {
  return [...links].sort((x, y) => levelRank(y.level) - levelRank(x.level) || y.risk - x.risk || (x.a + x.b).localeCompare(y.a + y.b));
}

/** The link's calibrated probability of colliding (`Link.probability`) as a whole percentage; "–" when the scan gave none. */
function percent(p: number | undefined): string {
  return p === undefined ? '–' : percentText(p);
}

/** Links with a forecast, most likely first. */
export function sortForecasts(links: readonly Link[]): Link[] {
  return links
    .filter((l) => l.forecast)
    .sort((x, y) => y.forecast!.probability - x.forecast!.probability || (x.a + x.b).localeCompare(y.a + y.b));
}

export function renderTable(unsafe: ScanResult, options: TableOptions = {}): string {
  // Ids, paths and messages may hold escape sequences or newlines: shown escaped, never obeyed.
  const result = printableDeep(unsafe);
  const style = options.style ?? createStyle(false);
  const perPair = options.evidence ?? 2;
  const advisories = new Map(result.advisories.map((a) => [pairKey(a.a, a.b), a]));
  const shown = sortLinks(result.links).filter((l) => l.level !== 'clear' || (options.all && l.risk > 0 && !l.forecast));
  // Forecasts (clear pairs likely to collide later) follow the advisories, most likely first; P is
  // then the forecast's probability and the last column its signals.
  const forecasts = sortForecasts(result.links);
  const lines: string[] = [];

  if (shown.length + forecasts.length > 0) {
    const rows = [
      ...shown.map((l) => ({
        link: l,
        level: l.level.toUpperCase(),
        risk: l.risk.toFixed(2),
        probability: percent(l.probability),
        pair: `${l.a} ↔ ${l.b}`,
        channels: formatChannels(l),
        evidence: l.evidence,
      })),
      ...forecasts.map((l) => ({
        link: l,
        level: 'FORECAST',
        risk: l.risk.toFixed(2),
        probability: percent(l.forecast!.probability),
        pair: `${l.a} ↔ ${l.b}`,
        channels: l.forecast!.signals.map(forecastSignalText).join(' · ') || '—',
        evidence: l.forecast!.evidence,
      })),
    ];
    const w = {
      level: Math.max(5, ...rows.map((r) => r.level.length)),
      risk: 4,
      probability: 4,
      pair: Math.max(4, ...rows.map((r) => [...r.pair].length)),
    };
    lines.push(
      style.bold(
        `${padEnd('LEVEL', w.level)}  ${padEnd('RISK', w.risk)}  ${padEnd('P', w.probability)}  ${padEnd('PAIR', w.pair)}  CHANNELS`,
      ),
    );
    for (const r of rows) {
      const level = r.level === 'FORECAST' ? style.dim(padEnd(r.level, w.level)) : style.level(r.link.level, padEnd(r.level, w.level));
      lines.push(`${level}  ${padEnd(r.risk, w.risk)}  ${padEnd(r.probability, w.probability)}  ${padEnd(r.pair, w.pair)}  ${r.channels}`);
      for (const e of r.evidence.slice(0, perPair)) lines.push(`  ${style.dim('·')} ${formatEvidence(e)}`);
      const advisory = advisories.get(pairKey(r.link.a, r.link.b));
      if (advisory?.steer && advisory.hold) lines.push(`  ${style.dim('→')} ${advisory.steer} steers away, ${advisory.hold} holds course`);
      if (r.link.levelReason) lines.push(`  ${style.dim(`(${r.link.levelReason})`)}`);
    }
    lines.push('');
  }

  const c = result.counts;
  const summary = [
    `${c.agents} agent${c.agents === 1 ? '' : 's'}, ${c.pairs} pair${c.pairs === 1 ? '' : 's'}:`,
    style.level('resolution', `${c.resolution} resolution`),
    style.level('traffic', `${c.traffic} traffic`),
    ...(c.unknown > 0 ? [style.level('unknown', `${c.unknown} unknown`)] : []),
    style.level('clear', `${c.clear} clear`),
  ].join(' ');
  const forecastCount = result.links.filter((l) => l.forecast).length;
  lines.push(forecastCount > 0 ? `${summary} (${forecastCount} forecast to collide later)` : summary);
  if (c.agents < 2)
    lines.push(
      style.dim('Fewer than two agents with work in progress: nothing to compare. Agents are git worktrees (or branches, with --source).'),
    );
  // Which parser ran is a note for `--verbose` and the JSON, not a problem of the scan.
  for (const p of result.problems) if (p.code !== 'PARSER_WASM') lines.push(style.dim(`! ${p.message}`));
  return lines.join('\n') + '\n';
}
