/**
 * What a scan takes in, made safe to hand to channels: agents with invalid ranges dropped and
 * weights clamped (each reported), deep-frozen so no channel changes what the next one sees;
 * channel entries resolved, invalid or duplicate ones reported; problems counted per kind.
 */
import type { AnyChannel, Problem } from './channel.js';
import { AirspaceError, invalidRange, invalidRecencyWeight, malformedAgent } from './errors.js';
import type { Agent, FileEdit, Range } from './model.js';
import { isValidRange } from './ranges.js';
import { ChannelRegistry, type ChannelEntry } from './registry.js';

/** Scan-level problems of one kind (code × channel) beyond this are counted, not listed. */
const MAX_PROBLEMS_PER_KIND = 20;

/**
 * Freezes a value and everything in it: agents handed to channels, so no channel can change what
 * the next channel, the result or the front end sees (the model's types already say `readonly`).
 * Frozen objects are skipped: agents kept between scans are frozen once.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || ArrayBuffer.isView(value)) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}

/** A scan's problems: at most MAX_PROBLEMS_PER_KIND of one code and channel listed, the rest counted. */
export class ProblemLog {
  readonly list: Problem[] = [];
  private readonly counts = new Map<string, number>();
  add(problem: Problem): void {
    const key = `${problem.code}\u0000${problem.channel ?? ''}`;
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    if (n <= MAX_PROBLEMS_PER_KIND) this.list.push(problem);
  }
  finish(): Problem[] {
    for (const [key, n] of this.counts) {
      if (n <= MAX_PROBLEMS_PER_KIND) continue;
      const [code, channel] = key.split('\u0000') as [string, string];
      this.list.push({
        code,
        ...(channel ? { channel } : {}),
        message: `…and ${n - MAX_PROBLEMS_PER_KIND} more ${code} problems${channel ? ` from channel "${channel}"` : ''}.`,
      });
    }
    return this.list;
  }
}

/** Drops invalid ranges and clamps weights, reporting each; returns the agent itself when valid. */
export function sanitizeAgent(agent: Agent, problems: ProblemLog): Agent {
  let changed = false;
  let input: readonly FileEdit[] = agent.files;
  if (!Array.isArray(input)) {
    problems.add(malformedAgent(agent.id, '"files" is not an array; it was treated as empty'));
    return { ...agent, files: [] };
  }
  if (!input.every((f) => typeof f === 'object' && f !== null && typeof f.path === 'string' && f.path.length > 0)) {
    input = input.filter((f) => {
      if (typeof f === 'object' && f !== null && typeof f.path === 'string' && f.path.length > 0) return true;
      problems.add(malformedAgent(agent.id, `a file entry without a path (${JSON.stringify(f)?.slice(0, 80)}) was ignored`));
      return false;
    });
    changed = true;
  }
  const files = input.map((f): FileEdit => {
    let edit = f;
    for (const key of ['baseRanges', 'newRanges'] as const) {
      const ranges: unknown = edit[key];
      if (ranges === 'whole') continue;
      if (!Array.isArray(ranges)) {
        // Malformed input: be conservative and treat the file as wholly changed.
        problems.add(invalidRange(ranges, agent.id, f.path));
        edit = { ...edit, [key]: 'whole' };
        continue;
      }
      if (ranges.every((r) => isValidRange(r))) continue;
      const kept = (ranges as unknown[]).filter((r): r is Range => {
        if (isValidRange(r)) return true;
        problems.add(invalidRange(r, agent.id, f.path));
        return false;
      });
      edit = { ...edit, [key]: kept };
    }
    if (!(edit.weight >= 0 && edit.weight <= 1)) {
      const used = Number.isNaN(edit.weight) || typeof edit.weight !== 'number' ? 1 : Math.min(1, Math.max(0, edit.weight));
      problems.add(invalidRecencyWeight(agent.id, f.path, edit.weight, used));
      edit = { ...edit, weight: used };
    }
    if (edit !== f) changed = true;
    return edit;
  });
  return changed ? { ...agent, files } : agent;
}

/** Resolves context channels; invalid or duplicate entries become problems, the first id wins. */
export function resolveChannels(entries: readonly ChannelEntry[] | ChannelRegistry, problems: ProblemLog): AnyChannel[] {
  if (entries instanceof ChannelRegistry) return entries.list();
  const out: AnyChannel[] = [];
  const registry = new ChannelRegistry();
  for (const entry of entries) {
    try {
      const channel = registry.register(entry);
      out.push(channel);
    } catch (error) {
      if (error instanceof AirspaceError)
        problems.add({ code: error.code, message: error.message, ...(error.channel ? { channel: error.channel } : {}) });
      else problems.add({ code: 'INVALID_CHANNEL', message: String(error) });
    }
  }
  return out;
}
