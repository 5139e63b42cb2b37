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

export function diagnosticMessage(f: Finding, acknowledged: boolean): string {
  const symbol = f.other.symbol ? ` (${f.other.symbol})` : '';
  return (
    `${f.other.label} ${f.level === 'resolution' ? 'collides' : 'is near'} here: ${levelText(f)}; ` +
    `${f.channel} channel, risk ${pct(f.risk)}; their side: ${whereText(f)}${symbol} in ${f.other.worktree ?? 'their worktree'}. ` +
    f.evidence.message +
    (acknowledged ? ' (acknowledged)' : '')
  );
}

export function severity(f: Finding, acknowledged: boolean): DiagnosticSeverity {
  if (acknowledged || f.role === 'hold' || f.role === 'unknown') return DiagnosticSeverity.Information;
  return DiagnosticSeverity.Warning;
}

export function toDiagnostic(f: Finding, lineCount: number, acknowledged: boolean): Diagnostic {
  const loc = otherLocation(f);
  const data: DiagnosticData = { pair: f.pair, self: f.self, other: f.other.agent, level: f.level, ...(loc ? { otherLocation: loc } : {}) };
  return {
    range: lspRange(f.range, lineCount),
    severity: severity(f, acknowledged),
    source: SOURCE,
    code: `${f.level}/${f.channel}`,
    message: diagnosticMessage(f, acknowledged),
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
    if (diff) lines.push(indent(diff));
  }
  return lines.join('\n');
}

const indent = (text: string): string => text.split('\n').map((l) => `    ${l}`).join('\n');

/** Hover Markdown for the findings on one line. */
export function hoverMarkdown(findings: readonly Finding[], otherDiff: ReadonlyMap<Finding, string>): string {
  const parts: string[] = [];
  for (const f of findings) {
    const loc = otherLocation(f);
    const where = loc ? `[${whereText(f)}](${loc.uri}#L${(f.other.range?.[0] ?? 1)})` : whereText(f);
    parts.push(
      `**Airspace: ${f.other.label}** is here — ${levelText(f)} (risk ${pct(f.risk)}, ${f.channel} ${pct(f.channelRisk)})\n\n` +
        `${f.evidence.message}\n\nTheir side: ${where}${f.other.symbol ? ` \`${f.other.symbol}\`` : ''}` +
        (f.evidence.chain?.length ? `\n\nChain: ${f.evidence.chain.join(' → ')}` : ''),
    );
    const diff = otherDiff.get(f);
    if (diff) parts.push('Their change:\n\n```diff\n' + diff + '\n```');
  }
  return parts.join('\n\n---\n\n');
}
