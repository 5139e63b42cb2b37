/**
 * Shapes of the services that front ends put into `ctx.services` for the built-in channels, so
 * that a plugin needs only @airspace/core to read them. @airspace/analysis implements them.
 */
import type { Agent, Range } from './model.js';

export interface SymbolWrite {
  readonly symbol: string;
  readonly path: string;
  readonly qualifiedName: string;
  readonly kind: string;
  readonly change: 'signature' | 'body' | 'added' | 'deleted';
  readonly range?: Range;
  readonly baseRange?: Range;
}

export interface SymbolRead {
  readonly symbol: string;
  readonly qualifiedName: string;
  readonly definedIn: string;
  readonly path: string;
  readonly line: number;
  readonly strength: 'changed' | 'touched';
  readonly confidence: 'high' | 'low';
  readonly via: string;
}

export interface CallStep {
  readonly symbol: string;
  readonly direction: 'calls' | 'called-by';
  readonly path: string;
  readonly line: number;
}

/** `ctx.services.symbols`: per agent, the symbols it writes and reads, and its view of the call graph. */
export interface SymbolService {
  writes(agent: Agent): readonly SymbolWrite[];
  reads(agent: Agent): readonly SymbolRead[];
  callNeighbors(agent: Agent, symbol: string): readonly CallStep[];
}

/** `src/a.ts#Parser.parse` → `Parser.parse`. */
export function displayName(symbol: string): string {
  return symbol.slice(symbol.lastIndexOf('#') + 1);
}
