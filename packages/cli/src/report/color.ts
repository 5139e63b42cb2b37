/**
 * Minimal ANSI styling. Colour is on only for a terminal, and off whenever NO_COLOR is set
 * (https://no-color.org) or the output is piped; FORCE_COLOR turns it on for tests and pagers.
 */
import type { Level } from '@airspace/core';

export interface Style {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  level(level: Level, text: string): string;
}

const codes = { bold: [1, 22], dim: [2, 22], red: [31, 39], yellow: [33, 39], green: [32, 39], magenta: [35, 39] } as const;

function wrap(enabled: boolean, code: readonly [number, number], text: string): string {
  return enabled ? `\u001b[${code[0]}m${text}\u001b[${code[1]}m` : text;
}

const LEVEL_COLOR: Record<Level, keyof typeof codes> = { resolution: 'red', traffic: 'yellow', clear: 'green', unknown: 'magenta' };

export function createStyle(enabled: boolean): Style {
  return {
    enabled,
    bold: (t) => wrap(enabled, codes.bold, t),
    dim: (t) => wrap(enabled, codes.dim, t),
    level: (level, t) => wrap(enabled, codes[LEVEL_COLOR[level]], level === 'resolution' ? wrap(enabled, codes.bold, t) : t),
  };
}

/** Whether to colour a stream, by the NO_COLOR / FORCE_COLOR conventions and whether it is a TTY. */
export function colorWanted(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/** Printable width (ANSI codes stripped). */
export function visibleLength(text: string): number {
  return [...text.replace(ANSI, '')].length;
}

export function padEnd(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - visibleLength(text)));
}
