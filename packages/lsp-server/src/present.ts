/**
 * Pure: findings → LSP diagnostics, code lenses, code actions, hover text and the message summary.
 * Lines change coordinates only through lines.ts. Every string built here is free of
 * control characters (Emacs's JSON parser rejects a NUL; a newline breaks a one-line message).
 */
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { chanceText, levelRank, percentText, type Range } from '@airspace/core';
import type { CodeAction, CodeLens, Diagnostic, DiagnosticRelatedInformation, Location } from 'vscode-languageserver';
import { CodeActionKind, DiagnosticSeverity } from 'vscode-languageserver';
import type { Finding } from './findings.js';
import { pairKey } from './findings.js';
import { Commands, commandOf, pairArgs, type PairArgs } from './commands.js';
import { firstLine, toLspRange } from './lines.js';
import { plain, plainText } from './text.js';

export { Commands } from './commands.js';

export const SOURCE = 'airspace';

/** Longest diagnostic message: one line in any editor's echo area. */
export const MAX_MESSAGE = 160;

/** What travels in `Diagnostic.data` so that code actions and acknowledgement find their advisory. */
export interface DiagnosticData {
  readonly self: string;
  readonly other: string;
  readonly level: Finding['level'];
  readonly otherLocation?: Location;
}

const pct = (r: number): string => r.toFixed(2);

/** `; 9% chance of colliding`: the pair's calibrated probability, after its risk or level; empty when the scan gave none. */
const chance = (f: Finding): string => (f.pairProbability === undefined ? '' : `; ${chanceText(f.pairProbability)}`);

/** `symbols 0.50`: the channel of a finding's evidence and that evidence's own risk. */
const channelRisk = (f: Finding): string => `${f.channel} ${pct(f.channelRisk)}`;

/**
 * `symbols 0.50; 9% chance of colliding`: a finding's channel and risk, then the pair's chance of
 * colliding — what hovers, code lenses and `relatedInformation` show beside a finding, so that
 * each says the same.
 */
const riskAndChance = (f: Finding): string => `${channelRisk(f)}${chance(f)}`;

export function otherLocation(f: Finding): Location | undefined {
  if (!f.other.worktree || !f.other.path) return undefined;
  const uri = pathToFileURL(join(f.other.worktree, f.other.path)).href;
  return { uri, range: toLspRange(f.other.range ?? [1, 1]) };
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
      return 'resolution advisory, you steer away';
    case 'hold':
      return 'resolution advisory, you hold course';
    case 'unknown':
      return 'unknown (incomplete or incomparable working sets)';
    case 'weak':
      return 'weak evidence, below the traffic threshold';
    case 'forecast':
      return `forecast: ${percentText(f.forecastProbability ?? 0)} chance of colliding later, no advisory yet`;
    default:
      return 'traffic advisory, transmit intent';
  }
}

/** The other side of a finding's evidence. */
function theirSide(f: Finding) {
  const { a, b } = f.evidence;
  return a?.agent === f.other.agent ? a : b?.agent === f.other.agent ? b : undefined;
}

/**
 * What the other agent does at its side of the evidence: it `edits` that code, or only `uses` it
 * (reads or calls it). From the side's own `access`, not from the evidence kind, whose word order
 * does not say which agent of the pair is which.
 */
export function otherVerb(f: Finding): 'edits' | 'uses' {
  return theirSide(f)?.access === 'read' ? 'uses' : 'edits';
}

/** Lines a range covers, for clustering (a zero-width point after line k counts as line k+1). */
function span(r: Range): [number, number] {
  return r[1] < r[0] ? [r[1] + 1, r[1] + 1] : [r[0], r[1]];
}

/** Strongest first: own level, then own weighted risk, then the narrower range. */
function stronger(x: Finding, y: Finding): number {
  const width = (f: Finding) => span(f.range)[1] - span(f.range)[0];
  return levelRank(y.level) - levelRank(x.level) || y.weighted - x.weighted || width(x) - width(y);
}

/**
 * Findings in clusters: one per pair and file for each run of lines their ranges share (ranges
 * that overlap join one cluster). Each cluster is sorted strongest first; its first finding is the
 * one a diagnostic shows.
 */
export function groupFindings(findings: readonly Finding[]): Finding[][] {
  const byFile = new Map<string, Finding[]>();
  for (const f of findings) {
    const key = `${f.pair}|${f.path}`;
    byFile.set(key, [...(byFile.get(key) ?? []), f]);
  }
  const out: Finding[][] = [];
  for (const list of byFile.values()) {
    const sorted = [...list].sort((x, y) => span(x.range)[0] - span(y.range)[0]);
    let cluster: Finding[] = [];
    let end = -Infinity;
    for (const f of sorted) {
      const [s, e] = span(f.range);
      if (cluster.length && s > end) {
        out.push(cluster);
        cluster = [];
      }
      cluster.push(f);
      end = cluster.length === 1 ? e : Math.max(end, e);
    }
    if (cluster.length) out.push(cluster);
  }
  return out.map((c) => c.sort(stronger));
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** `a/b/c/file.ts` → `…/file.ts` when the whole path does not fit. */
function shortPath(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? path : `…${path.slice(slash)}`;
}

/**
 * One line of at most MAX_MESSAGE characters for a cluster, from its strongest finding: who, what
 * they do where (repository-relative), that finding's own channel, risk and level, and the pair's
 * chance of colliding. A message too long is cut in its body, never in its status (level, chance,
 * `(acknowledged)`). The evidence
 * sentences, the other lines and their diff are in hover and `relatedInformation`.
 */
export function diagnosticMessage(group: readonly Finding[], acknowledged: boolean): string {
  const f = group[0]!;
  const also = [...new Set(group.map((g) => g.channel))].filter((c) => c !== f.channel);
  const evidence = ` (${channelRisk(f)}${also.length ? `; also ${also.join(', ')}` : ''})`;
  // The status (level, chance, acknowledged) is never cut: what is too long is the body before it.
  const status = plain(`: ${levelText(f)}${chance(f)}${acknowledged ? ' (acknowledged)' : ''}`);
  const tail = evidence + status;
  const head = (symbol: string | undefined, path: string) =>
    `${f.other.label} ${otherVerb(f)} ${symbol ? `${symbol} in ` : ''}${path}${f.other.range ? ` ${linesText(f.other.range)}` : ''}`;
  const symbol = f.other.symbol;
  const path = f.other.path ?? '(no file)';
  const tries = [head(symbol, path), head(symbol && clip(symbol, 40), shortPath(path)), head(undefined, shortPath(path))];
  const fits = tries.find((h) => plain(h + tail).length <= MAX_MESSAGE) ?? tries[tries.length - 1]!;
  return clip(plain(fits + evidence), MAX_MESSAGE - status.length) + status;
}

export function severity(f: Finding, acknowledged: boolean): DiagnosticSeverity {
  if (acknowledged || f.role === 'hold' || f.role === 'unknown' || f.role === 'weak' || f.role === 'forecast')
    return DiagnosticSeverity.Information;
  return DiagnosticSeverity.Warning;
}

/** The other side of every finding of a cluster, each with its risk, the pair's chance of colliding and its full evidence sentence. */
function related(group: readonly Finding[]): DiagnosticRelatedInformation[] {
  const out: DiagnosticRelatedInformation[] = [];
  const seen = new Set<string>();
  for (const f of group) {
    const location = otherLocation(f);
    if (!location) continue;
    const message = plain(`${f.other.label}'s side, ${whereText(f)} [${riskAndChance(f)}]: ${f.evidence.message}`);
    const key = `${location.uri}|${location.range.start.line}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ location, message });
  }
  return out;
}

export function toDiagnostic(group: readonly Finding[], lineCount: number, acknowledged: boolean): Diagnostic {
  const f = group[0]!;
  const loc = otherLocation(f);
  const data: DiagnosticData = { self: plain(f.self), other: plain(f.other.agent), level: f.level, ...(loc ? { otherLocation: loc } : {}) };
  const relatedInformation = related(group);
  return {
    range: toLspRange(f.range, lineCount),
    severity: severity(f, acknowledged),
    source: SOURCE,
    code: plain(f.role === 'forecast' ? 'forecast' : `${f.level}/${f.channel}`),
    message: diagnosticMessage(group, acknowledged),
    ...(relatedInformation.length ? { relatedInformation } : {}),
    data,
  };
}

/** Whether a diagnostic's data names the pair of a finding. */
export function dataMatches(data: unknown, f: Finding): boolean {
  const d = data as Partial<DiagnosticData> | undefined;
  return (
    typeof d?.self === 'string' && typeof d.other === 'string' && pairKey(d.self, d.other) === pairKey(plain(f.self), plain(f.other.agent))
  );
}

/**
 * A lens above a symbol: what the other agent does there, with the channel, risk and level of
 * `f` (a cluster's strongest finding) and the symbol `named` names (`f` itself when it names one;
 * else the cluster's strongest finding that does, often weaker evidence such as symbols 0.15 on a
 * function whose lines merge 1.00 puts in conflict).
 */
export function toCodeLens(f: Finding, lineCount: number, named: Finding = f): CodeLens | undefined {
  const symbol = f.other.symbol ?? f.selfSymbol ?? named.other.symbol ?? named.selfSymbol;
  if (!symbol) return undefined;
  const range = toLspRange(((f.other.symbol ?? f.selfSymbol) ? f : named).range, lineCount);
  const loc = otherLocation(f) ?? otherLocation(named);
  const title = plain(`⚠ ${f.other.label} ${otherVerb(f)} ${symbol} (${riskAndChance(f)})`);
  return {
    range: { start: range.start, end: range.start },
    command: loc
      ? commandOf(title, Commands.openOther, [loc])
      : commandOf(title, Commands.copySummary, [pairArgs(plain(f.self), plain(f.other.agent))]),
  };
}

/** One lens per cluster that names a symbol: the cluster's strongest finding, on that symbol. */
export function codeLenses(findings: readonly Finding[], lineCount: number): CodeLens[] {
  const out: CodeLens[] = [];
  const seen = new Set<string>();
  for (const group of groupFindings(findings)) {
    const named = group.find((g) => g.other.symbol ?? g.selfSymbol);
    const lens = named && toCodeLens(group[0]!, lineCount, named);
    const key = lens && `${lens.range.start.line}|${lens.command?.title}`;
    if (!lens || seen.has(key!)) continue;
    seen.add(key!);
    out.push(lens);
  }
  return out;
}

/**
 * Code actions for the findings on the requested lines, each once: open the other side (per
 * distinct location), copy a summary and acknowledge (per pair).
 */
export function codeActions(
  findings: readonly Finding[],
  folderUri: string,
  acknowledged: ReadonlySet<string>,
  diagnostics: readonly Diagnostic[],
): CodeAction[] {
  const actions: CodeAction[] = [];
  const titles = new Set<string>();
  const add = (action: CodeAction) => {
    if (titles.has(action.title)) return;
    titles.add(action.title);
    actions.push(action);
  };
  for (const group of groupFindings(findings)) {
    for (const f of group) {
      const diagnostic = diagnostics.find((d) => d.source === SOURCE && dataMatches(d.data, f));
      const loc = otherLocation(f);
      if (loc) {
        add({
          title: plain(`Open ${f.other.label}'s ${f.other.path}${f.other.range ? `:${firstLine(f.other.range)}` : ''}`),
          kind: CodeActionKind.QuickFix,
          ...(diagnostic ? { diagnostics: [diagnostic] } : {}),
          command: commandOf('Open the other side', Commands.openOther, [loc]),
        });
      }
      const pair: PairArgs = { folder: folderUri, other: plain(f.other.agent) };
      add({
        title: plain(`Copy a summary of both changes for ${f.other.label}`),
        kind: CodeActionKind.QuickFix,
        command: commandOf('Copy summary', Commands.copySummary, [pair]),
      });
      if (!acknowledged.has(f.pair) && f.role !== 'forecast') {
        add({
          title: plain(`Acknowledge the advisory with ${f.other.label}`),
          kind: CodeActionKind.QuickFix,
          command: commandOf('Acknowledge', Commands.acknowledge, [pair]),
        });
      }
    }
  }
  return actions;
}

/** A plain-text summary of both changes, for a message to the other agent. */
export function summary(findings: readonly Finding[], otherDiff: ReadonlyMap<Finding, string>): string {
  if (findings.length === 0) return '';
  const f0 = findings[0]!;
  const lines = [
    f0.role === 'forecast'
      ? `Airspace forecast between ${f0.self} and ${f0.other.label}: no advisory yet, ${percentText(f0.forecastProbability ?? 0)} chance of colliding later.`
      : `Airspace ${f0.pairLevel} advisory between ${f0.self} and ${f0.other.label} (risk ${pct(f0.pairRisk)}${chance(f0)}).`,
    f0.pairLevel !== 'resolution'
      ? 'Sharing what each of us is changing:'
      : f0.role === 'hold'
        ? `I (${f0.self}) hold course; please steer away.`
        : `I (${f0.self}) will steer away.`,
  ];
  for (const f of findings) {
    const line = `- my ${f.path} ${linesText(f.range)} ↔ your ${whereText(f)} [${channelRisk(f)}]: ${f.evidence.message}`;
    if (!lines.includes(line)) lines.push(line);
    const diff = otherDiff.get(f);
    if (diff && !lines.includes(indent(diff))) lines.push(indent(diff));
  }
  return plainText(lines.join('\n'));
}

const indent = (text: string): string =>
  text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');

/** Hover Markdown for the findings on one line: per finding its level, evidence, both sides' lines and their diff. */
export function hoverMarkdown(findings: readonly Finding[], otherDiff: ReadonlyMap<Finding, string>): string {
  const parts: string[] = [];
  const shownDiffs = new Set<string>();
  const shownEvidence = new Set<string>();
  for (const f of groupFindings(findings).flat()) {
    const key = `${f.pair}|${f.channel}|${f.evidence.message}`;
    if (shownEvidence.has(key)) continue;
    shownEvidence.add(key);
    const loc = otherLocation(f);
    const where = loc ? `[${whereText(f)}](${loc.uri}#L${firstLine(f.other.range)})` : whereText(f);
    const what = f.other.symbol ? `\`${f.other.symbol}\`` : (f.other.path ?? 'code near here');
    parts.push(
      `**Airspace: ${f.other.label}** ${otherVerb(f)} ${what} — ${levelText(f)} (${riskAndChance(f)})\n\n` +
        `${f.evidence.message}\n\nYour side: ${f.path} ${linesText(f.range)}${f.selfSymbol ? ` \`${f.selfSymbol}\`` : ''} · their side: ${where}` +
        (f.evidence.chain?.length ? `\n\nChain: ${f.evidence.chain.join(' → ')}` : ''),
    );
    const diff = otherDiff.get(f);
    if (diff && !shownDiffs.has(diff)) {
      shownDiffs.add(diff);
      parts.push('Their change:\n\n```diff\n' + diff + '\n```');
    }
  }
  return plainText(parts.join('\n\n---\n\n'));
}
