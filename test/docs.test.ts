/**
 * The docs state what the code does: docs/channels.md's table of built-in channels gives each
 * channel's package, default weight and precision as the channels themselves declare them.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BUILTIN_CHANNELS } from '@airspace/scanner';
import { describe, expect, it } from 'vitest';

const CHANNELS_DOC = fileURLToPath(new URL('../docs/channels.md', import.meta.url));

interface Row {
  readonly id: string;
  readonly weight: number;
  readonly precision: string;
}

/** The rows of the table whose header starts `| id | package | ω (default) | precision |`. */
export function channelTable(doc: string): Row[] {
  const lines = doc.split('\n');
  const header = lines.findIndex((line) => /^\| id \| package \| ω \(default\) \| precision \|/.test(line));
  if (header < 0) return [];
  const rows: Row[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split('|').map((cell) => cell.trim().replace(/`/g, ''));
    rows.push({ id: cells[1]!, weight: Number(cells[3]), precision: cells[4]! });
  }
  return rows;
}

describe('docs/channels.md', () => {
  it('lists every built-in channel with the weight and precision it declares', () => {
    const declared = BUILTIN_CHANNELS.map((make) => make()).map((channel) => ({
      id: channel.id,
      weight: channel.defaultWeight,
      precision: channel.meta?.precision ?? 'file',
    }));
    const documented = channelTable(readFileSync(CHANNELS_DOC, 'utf8'));
    expect([...documented].sort((a, b) => a.id.localeCompare(b.id))).toEqual([...declared].sort((a, b) => a.id.localeCompare(b.id)));
  });
});
