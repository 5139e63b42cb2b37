/**
 * Pure: findings → LSP diagnostics, code lenses, hover text and the message summary.
 * LSP positions are 0-based; findings' lines are 1-based.
 */
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import type { Range } from '@airspace/core';
import type { CodeLens, Diagnostic, Location } from 'vscode-languageserver';
import { DiagnosticSeverity } from 'vscode-languageserver';
import type { Finding } from './findings.js';

export const SOURCE = 'airspace';

export const Commands = {
  acknowledge: 'airspace.acknowledge',
  declareIntent: 'airspace.declareIntent',
  openOther: 'airspace.openOther',
  copySummary: 'airspace.copySummary',
} as const;

/** What travels in `Diagnostic.data` so that code actions and acknowledgement find their advisory. */
export interface DiagnosticData {
  readonly pair: string;
  readonly self: string;
  readonly other: string;
  readonly level: Finding['level'];
  readonly otherLocation?: Location;
}

const pct = (r: number): string => r.toFixed(2);

export function lspRange(range: Range, lineCount: number) {
  const last = Math.max(0, lineCount - 1);
  const [start, end] = range;
  if (end < start) {
    // A zero-width point after line `end`: mark the start of the next line (or the end of the file).
    const line = Math.min(Math.max(0, end), last);
    return { start: { line, character: 0 }, end: { line, character: 0 } };
  }
  const s = Math.min(Math.max(0, start - 1), last);
  const e = Math.min(Math.max(s, end - 1), last);
  return { start: { line: s, character: 0 }, end: { line: e, character: Number.MAX_SAFE_INTEGER >>> 21 } };
}

export function otherLocation(f: Finding): Location | undefined {
  if (!f.other.worktree || !f.other.path) return undefined;
  const uri = pathToFileURL(join(f.other.worktree, f.other.path)).href;
  const r = f.other.range ?? [1, 1];
  return { uri, range: lspRange(r, Number.MAX_SAFE_INTEGER) };
}

export function linesText(r: Range | undefined): string {
  if (!r) return '';
  const [s, e] = r;
  if (e < s) return `after line ${e}`;
  return s === e ? `line ${s}` : `lines ${s}–${e}`;
}

export function whereText(f: Finding): string {
  const path = f.other.path ?? '(no file)';
  const lines = linesText(f.other.range);
  return lines ? `${path} ${lines}` : path;
}

function levelText(f: Finding): string {
  switch (f.role) {
    case 'steer':
      return 'resolution advisory — you steer away';
    case 'hold':
      return 'resolution advisory — you hold course';
    case 'unknown':
      return 'unknown (incomplete or incomparable working sets)';
    default:
      return 'traffic advisory — transmit intent';
  }
}

/** One diagnostic per pair and line range: the channels that agree on it are listed together. */
export function diagnosticMessage(group: readonly Finding[], acknowledged: boolean): string {
  const f = group[0]!;
  const channels = [...new Set(group.map((g) => g.channel))];
  const symbol = f.other.symbol ? ` (${f.other.symbol})` : '';
  const evidence = [...new Set(group.map((g) => g.evidence.message))].join(' ');
  return (
    `${f.other.label} ${f.level === 'resolution' ? 'collides' : 'is near'} here: ${levelText(f)}; ` +
    `${channels.join(' + ')} channel${channels.length > 1 ? 's' : ''}, risk ${pct(f.risk)}; their side: ${whereText(f)}${symbol} in ${f.other.worktree ?? 'their worktree'}. ` +
    evidence +
    (acknowledged ? ' (acknowledged)' : '')
  );
}

export function severity(f: Finding, acknowledged: boolean): DiagnosticSeverity {
  if (acknowledged || f.role === 'hold' || f.role === 'unknown') return DiagnosticSeverity.Information;
  return DiagnosticSeverity.Warning;
}

/** Findings grouped by pair, file and lines (their order kept). */
export function groupFindings(findings: readonly Finding[]): Finding[][] {
  const groups = new Map<string, Finding[]>();
  for (const f of findings) {
    const key = [f.pair, f.path, f.range[0], f.range[1], f.other.path ?? '', f.other.range?.join(':') ?? ''].join('|');
    const g = groups.get(key);
    if (g) g.push(f);
    else groups.set(key, [f]);
  }
  return [...groups.values()];
}

export function toDiagnostic(group: readonly Finding[], lineCount: number, acknowledged: boolean): Diagnostic {
  const f = group[0]!;
  const loc = otherLocation(f);
  const data: DiagnosticData = { pair: f.pair, self: f.self, other: f.other.agent, level: f.level, ...(loc ? { otherLocation: loc } : {}) };
  return {
    range: lspRange(f.range, lineCount),
    severity: severity(f, acknowledged),
    source: SOURCE,
    code: `${f.level}/${[...new Set(group.map((g) => g.channel))].join('+')}`,
    message: diagnosticMessage(group, acknowledged),
    ...(loc ? { relatedInformation: [{ location: loc, message: `${f.other.label}'s side: ${whereText(f)}` }] } : {}),
    data,
  };
}

/** A lens above each symbol another agent writes or reads (symbol-precise evidence only). */
export function toCodeLens(f: Finding, lineCount: number): CodeLens | undefined {
  const symbol = f.selfSymbol ?? f.other.symbol;
  if (!symbol) return undefined;
  const verb = otherVerb(f);
  const range = lspRange(f.range, lineCount);
  const loc = otherLocation(f);
  return {
    range: { start: range.start, end: range.start },
    command: {
      title: `⚠ ${f.other.label} ${verb} ${symbol} (${f.channel}, risk ${pct(f.risk)})`,
      command: loc ? Commands.openOther : Commands.copySummary,
      arguments: loc ? [loc] : [{ pair: f.pair, self: f.self }],
    },
  };
}

/** What the other agent does to the symbol, from the evidence kind (e.g. `write-read`). */
export function otherVerb(f: Finding): string {
  const kind = (f.evidence.kind ?? '').toLowerCase();
  const parts = kind.split(/[-/ ]+/).filter((p) => p === 'write' || p === 'read');
  if (parts.length === 2) {
    const otherIsA = f.evidence.a?.agent === f.other.agent;
    return (otherIsA ? parts[0] : parts[1]) === 'write' ? 'writes' : 'reads';
  }
  if (kind.includes('call')) return 'calls into';
  return 'changes';
}

/** A plain-text summary of both changes, for a message to the other agent. */
export function summary(findings: readonly Finding[], otherDiff: ReadonlyMap<Finding, string>): string {
  if (findings.length === 0) return '';
  const f0 = findings[0]!;
  const lines = [
    `Airspace ${f0.level} advisory between ${f0.self} and ${f0.other.label} (risk ${pct(f0.risk)}).`,
    f0.role === 'steer' ? `I (${f0.self}) will steer away.` : f0.role === 'hold' ? `I (${f0.self}) hold course; please steer away.` : 'Sharing what each of us is changing:',
  ];
  for (const f of findings) {
    lines.push(`- my ${f.path} ${linesText(f.range)} ↔ your ${whereText(f)} [${f.channel}]: ${f.evidence.message}`);
    const diff = otherDiff.get(f);
    if (diff && !lines.includes(indent(diff))) lines.push(indent(diff));
  }
  return lines.join('\n');
}

const indent = (text: string): string => text.split('\n').map((l) => `    ${l}`).join('\n');

/** Hover Markdown for the findings on one line. */
export function hoverMarkdown(findings: readonly Finding[], otherDiff: ReadonlyMap<Finding, string>): string {
  const parts: string[] = [];
  const shown = new Set<string>();
  for (const f of findings) {
    const loc = otherLocation(f);
    const where = loc ? `[${whereText(f)}](${loc.uri}#L${(f.other.range?.[0] ?? 1)})` : whereText(f);
    parts.push(
      `**Airspace: ${f.other.label}** is here — ${levelText(f)} (risk ${pct(f.risk)}, ${f.channel} ${pct(f.channelRisk)})\n\n` +
        `${f.evidence.message}\n\nTheir side: ${where}${f.other.symbol ? ` \`${f.other.symbol}\`` : ''}` +
        (f.evidence.chain?.length ? `\n\nChain: ${f.evidence.chain.join(' → ')}` : ''),
    );
    const diff = otherDiff.get(f);
    if (diff && !shown.has(diff)) {
      shown.add(diff);
      parts.push('Their change:\n\n```diff\n' + diff + '\n```');
    }
  }
  return parts.join('\n\n---\n\n');
}
