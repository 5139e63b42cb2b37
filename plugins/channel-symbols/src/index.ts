/**
 * The symbols channel: read/write hazards between two agents at the level of definitions.
 *
 *   write/write      both agents change one symbol                         (writeWrite)
 *   write → read     one changes a symbol's signature (or deletes it) that  (signatureRead)
 *                    the other's changed lines read; or changes its body     (bodyRead)
 *   write → touched  the read is elsewhere in a file the reader changed      (touchedSignatureRead,
 *                                                                             touchedBodyRead)
 *
 * A read resolved by name only (no import or scope says which definition it is) counts
 * `lowConfidenceFactor` as much and says so in its evidence. Each hazard is scaled by the two
 * files' recency weights; the channel's risk is the strongest hazard in either direction.
 */
import { defineChannel, type Agent, type Evidence, type Range, type SymbolRead, type SymbolService, type SymbolWrite } from '@airspace/core';

export interface SymbolsOptions {
  readonly writeWrite: number;
  readonly signatureRead: number;
  readonly bodyRead: number;
  readonly touchedSignatureRead: number;
  readonly touchedBodyRead: number;
  readonly lowConfidenceFactor: number;
  /** At most this many evidence items per pair (strongest first). */
  readonly maxEvidence: number;
}

export const DEFAULT_SYMBOLS_OPTIONS: SymbolsOptions = {
  writeWrite: 0.8,
  signatureRead: 0.8,
  bodyRead: 0.45,
  touchedSignatureRead: 0.4,
  touchedBodyRead: 0.15,
  lowConfidenceFactor: 0.5,
  maxEvidence: 8,
};

interface AgentSymbols {
  readonly writes: ReadonlyMap<string, SymbolWrite>;
  readonly reads: readonly SymbolRead[];
  readonly weights: ReadonlyMap<string, number>;
}

type Prepared = ReadonlyMap<string, AgentSymbols>;

const NAME = (symbol: string) => symbol.slice(symbol.lastIndexOf('#') + 1);

function where(path: string, range: Range | undefined): string {
  if (!range) return path;
  return range[0] === range[1] ? `${path}:${range[0]}` : `${path}:${range[0]}–${range[1]}`;
}

function describeWrite(w: SymbolWrite): string {
  switch (w.change) {
    case 'signature':
      return `changes the signature of ${w.qualifiedName}`;
    case 'body':
      return `changes the body of ${w.qualifiedName}`;
    case 'added':
      return `adds ${w.qualifiedName}`;
    case 'deleted':
      return `deletes ${w.qualifiedName}`;
  }
}

export function symbolsChannel(options: Partial<SymbolsOptions> = {}) {
  const base: SymbolsOptions = { ...DEFAULT_SYMBOLS_OPTIONS, ...options };
  return defineChannel<Partial<SymbolsOptions>, Prepared>({
    id: 'symbols',
    defaultWeight: 0.9,
    meta: {
      description: 'Read/write hazards: one agent changes a definition (signature, body, export) that the other reads, or both change one symbol.',
      precision: 'symbol',
    },
    defaultOptions: base,
    requires: ['symbols'],
    prepare(agents: readonly Agent[], ctx) {
      const service = ctx.services['symbols'] as SymbolService;
      const prepared = new Map<string, AgentSymbols>();
      for (const agent of agents) {
        try {
          const writes = new Map(service.writes(agent).map((w) => [w.symbol, w]));
          prepared.set(agent.id, { writes, reads: service.reads(agent), weights: new Map(agent.files.map((f) => [f.path, f.weight])) });
        } catch (error) {
          ctx.logger.warn(`symbols: could not analyse ${agent.id}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      return prepared;
    },
    score(a, b, ctx) {
      const o: SymbolsOptions = { ...base, ...(ctx.options as Partial<SymbolsOptions>) };
      const sa = ctx.prepared.get(a.id);
      const sb = ctx.prepared.get(b.id);
      if (!sa || !sb) return { risk: 0, evidence: [] };
      const found: Evidence[] = [];
      const weightOf = (s: AgentSymbols, path: string) => s.weights.get(path) ?? 1;

      // write/write
      for (const [symbol, wa] of sa.writes) {
        const wb = sb.writes.get(symbol);
        if (!wb) continue;
        const risk = o.writeWrite * weightOf(sa, wa.path) * weightOf(sb, wb.path);
        found.push({
          kind: 'write-write',
          risk,
          message: `${a.label} ${describeWrite(wa)} (${where(wa.path, wa.range ?? wa.baseRange)}) and ${b.label} ${describeWrite(wb)} (${where(wb.path, wb.range ?? wb.baseRange)}).`,
          a: side(a, wa),
          b: side(b, wb),
        });
      }
      // write by one, read by the other, both directions
      const hazards = (writer: Agent, sw: AgentSymbols, reader: Agent, sr: AgentSymbols, writerIsA: boolean) => {
        for (const read of sr.reads) {
          const w = sw.writes.get(read.symbol);
          if (!w || w.change === 'added' || sr.writes.has(read.symbol)) continue;
          const structural = w.change === 'signature' || w.change === 'deleted';
          let risk = read.strength === 'changed' ? (structural ? o.signatureRead : o.bodyRead) : structural ? o.touchedSignatureRead : o.touchedBodyRead;
          if (read.confidence === 'low') risk *= o.lowConfidenceFactor;
          risk *= weightOf(sw, w.path) * weightOf(sr, read.path);
          const how = read.strength === 'changed' ? 'in its changed lines' : 'elsewhere in a file it changed';
          const guess = read.confidence === 'low' ? ` (resolved by name only: ${NAME(read.symbol)} may be another definition)` : '';
          const writerSide = side(writer, w);
          const readerSide = { agent: reader.id, path: read.path, range: [read.line, read.line] as Range, symbol: read.qualifiedName, access: 'read' as const };
          found.push({
            kind: read.strength === 'changed' ? 'write-read' : 'write-read-touched',
            risk,
            confidence: read.confidence,
            message: `${writer.label} ${describeWrite(w)} (${where(w.path, w.range ?? w.baseRange)}), which ${reader.label} reads at ${read.path}:${read.line} ${how}${guess}.`,
            ...(writerIsA ? { a: writerSide, b: readerSide } : { a: readerSide, b: writerSide }),
          });
        }
      };
      hazards(a, sa, b, sb, true);
      hazards(b, sb, a, sa, false);

      found.sort((x, y) => (y.risk ?? 0) - (x.risk ?? 0) || x.message.localeCompare(y.message));
      const risk = found[0]?.risk ?? 0;
      return { risk: Math.min(1, risk), evidence: found.slice(0, o.maxEvidence) };
    },
  });
}

function side(agent: Agent, w: SymbolWrite) {
  return {
    agent: agent.id,
    path: w.path,
    symbol: w.qualifiedName,
    access: 'write' as const,
    ...(w.range ? { range: w.range } : {}),
    ...(w.baseRange ? { baseRange: w.baseRange } : {}),
  };
}

export default symbolsChannel;
