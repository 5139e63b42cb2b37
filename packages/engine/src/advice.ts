/**
 * Answers written for a model (the MCP server's tool results, `airspace check --tool-call` for a
 * harness's pre-edit hook): the verdict first, then who, where and why, the other side's change,
 * and one line saying what to do next. Pure, and light: the check command loads it without the
 * scanner.
 */
import { chanceText, forecastSignalText, percentText } from '@airspace/core';
import type { CheckConflict, CheckForecast, CheckResult } from './check.js';
import type { Advisory, AdvisoriesResult, DeclareIntentResult, NextAction } from './answers.js';

export type { NextAction } from './answers.js';

/** The action for `self` on a conflict, from its level and right of way. */
export function nextAction(conflict: Pick<CheckConflict, 'level' | 'steer' | 'hold'>, self: string): NextAction {
  if (conflict.level === 'resolution') return conflict.hold === self ? 'hold-course' : 'steer-away';
  if (conflict.level === 'traffic') return 'transmit-intent';
  return 'go-on';
}

/**
 * Which tools the model has: the MCP server's (`mcp`: it can call declare_intent and acknowledge)
 * or only a pre-edit hook (`cli`: the advice names what it can do without them).
 */
export type AdviceTools = 'mcp' | 'cli';

export interface AdviceOptions {
  readonly tools?: AdviceTools;
}

/** Each action's line, given the other agent and the file in question (when there is one). */
type NextLines = Record<NextAction, (other: string, path?: string) => string>;

const NEXT_MCP: NextLines = {
  'go-on': () => 'Next: go on with the edit.',
  'transmit-intent': (other) =>
    `Next: go on carefully, but first tell ${other} what you are about to change (call declare_intent with the paths, and say it in your shared channel); read their change below. Call acknowledge with "${other}" once you have.`,
  'steer-away': (other) =>
    `Next: steer away. ${other} has right of way here: do not make this edit now; change something else, or coordinate with ${other} first (then call acknowledge with "${other}").`,
  'hold-course': (other) =>
    `Next: hold course. ${other} has been told to steer away; keep your change as it is and do not widen it into the shared lines.`,
};

const NEXT_CLI: NextLines = {
  ...NEXT_MCP,
  'transmit-intent': (other, path) =>
    `Next: go on carefully, but first tell ${other} what you are about to change: run \`airspace declare ${path ?? 'PATH'} --note "what and why"\` (${other} meets it at their next check), and say it in your shared channel; read their change below.`,
  'steer-away': (other) =>
    `Next: steer away. ${other} has right of way here: this edit is blocked while their change is on these lines; change something else, or coordinate with ${other} first; the hook checks again at your next edit.`,
};

/** After the agent acknowledged the advisory: what to do, never "acknowledge" again (an agent that obeys would loop). */
const NEXT_ACKNOWLEDGED: NextLines = {
  'go-on': () => 'Next: go on as agreed; call check_edit again before you edit lines you share.',
  'transmit-intent': () => 'Next: go on as agreed; call check_edit again before you edit lines you share.',
  'steer-away': (other) =>
    `Next: steer away, as acknowledged: ${other} has right of way on these lines; change something else until their change is merged or moved.`,
  'hold-course': NEXT_MCP['hold-course'],
};

function nextText(action: NextAction, other: string, tools: AdviceTools = 'mcp', acknowledged = false, path?: string): string {
  return (acknowledged ? NEXT_ACKNOWLEDGED : tools === 'cli' ? NEXT_CLI : NEXT_MCP)[action](other, path);
}

/** "alice declared src/a.ts, src/b.ts#parse ("the note"), until …" */
function declaredLine(agent: string, d: NonNullable<CheckConflict['declared']>): string {
  return `- ${agent} declared ${[...d.paths, ...d.symbols].join(', ')}${d.note ? ` ("${d.note}")` : ''}, until ${d.expiresAt}: intent, not an edit yet.`;
}

const WORST: readonly NextAction[] = ['steer-away', 'hold-course', 'transmit-intent', 'go-on'];

function range(r: readonly number[] | undefined): string {
  if (!r) return '';
  return r[0] === r[1] ? `:${r[0]}` : r[1]! < r[0]! ? `:after ${r[1]}` : `:${r[0]}-${r[1]}`;
}

function conflictText(c: CheckConflict | Advisory, action: NextAction, maxHunks = 2, tools: AdviceTools = 'mcp', path?: string): string[] {
  const acknowledged = c.acknowledged === true;
  const lines = [
    `${c.level.toUpperCase()}${acknowledged ? ' (acknowledged by you)' : ''} with ${c.with} (risk ${c.risk.toFixed(2)}${c.probability === undefined ? '' : `, ${chanceText(c.probability)}`}; channels ${
      c.channels
        .filter((ch) => ch.risk > 0)
        .map((ch) => ch.channel)
        .join(', ') || 'none'
    }).`,
  ];
  if (c.steer && c.hold) lines.push(`Right of way: ${c.hold} holds, ${c.steer} steers away.`);
  if (c.declared) lines.push(declaredLine(c.with, c.declared));
  for (const e of c.evidence.slice(0, 3)) lines.push(`- ${e.message}`);
  for (const h of c.hunks.slice(0, maxHunks))
    lines.push(`${c.with}'s change to ${h.path}${range(h.current)}:`, '```diff', h.text.split('\n').slice(0, 30).join('\n'), '```');
  lines.push(nextText(action, c.with, tools, acknowledged, path));
  return lines;
}

/** The action for the whole answer: the most demanding over its conflicts. */
export function overallAction(actions: readonly NextAction[]): NextAction {
  for (const a of WORST) if (actions.includes(a)) return a;
  return 'go-on';
}

/**
 * A forecast changes no action (it is no advisory): it says who this agent is likely to collide
 * with later and why, so that it can say what it is doing before git sees a conflict.
 */
function forecastText(f: CheckForecast): string[] {
  return [
    `FORECAST with ${f.with}: no advisory yet, ${percentText(f.probability)} chance of colliding later (${f.signals.map(forecastSignalText).join(', ') || 'no signal'}).`,
    ...f.evidence.slice(0, 2).map((e) => `- ${e.message}`),
  ];
}

export function checkText(answer: CheckResult, options: AdviceOptions = {}): { text: string; action: NextAction } {
  const lines = answer.ranges && answer.ranges.length > 1 ? answer.ranges.map((r) => range(r).slice(1)).join(', ') : undefined;
  const where = `${answer.path}${lines ? `:${lines}` : range(answer.lines)}${answer.new ? ' (a new file)' : ''}`;
  const actions = answer.conflicts.map((c) => nextAction(c, answer.agent));
  const action = overallAction(actions);
  const forecasts = (answer.forecasts ?? []).flatMap(forecastText);
  // A partial answer (the index still warming up) says so: its CLEAR is not the full answer's.
  const partial = answer.problems.find((p) => p.code === 'WARMING_UP' && p.channel === undefined);
  const note = partial ? ['', partial.message] : [];
  if (answer.conflicts.length === 0) {
    const clear = `CLEAR${partial ? ' (partial)' : ''}: no other agent is working near ${where} (you are ${answer.agent}). ${nextText('go-on', '')}`;
    return { text: [clear, ...(forecasts.length ? ['', ...forecasts] : []), ...note].join('\n'), action };
  }
  const head = `${answer.level.toUpperCase()}: editing ${where} as ${answer.agent} would come close to ${answer.conflicts.map((c) => c.with).join(', ')}.`;
  const body = answer.conflicts.flatMap((c, i) => conflictText(c, actions[i]!, 2, options.tools, answer.path));
  return { text: [head, '', ...body, ...(forecasts.length ? ['', ...forecasts] : []), ...note].join('\n'), action };
}

export function advisoriesText(result: AdvisoriesResult): { text: string; action: NextAction } {
  const action = overallAction(result.advisories.map((a) => a.action));
  const intents = result.intents.map(
    (d) => `- ${d.agent} declared ${[...d.paths, ...d.symbols].join(', ')}${d.note ? ` ("${d.note}")` : ''}, until ${d.expiresAt}`,
  );
  const forecasts = (result.forecasts ?? []).flatMap(forecastText);
  const forecastLines = forecasts.length ? ['', ...forecasts] : [];
  if (result.advisories.length === 0) {
    return {
      text: [
        `No advisories for ${result.agent}: nobody is working close to your changes. ${nextText('go-on', '')}`,
        ...forecastLines,
        ...(intents.length ? ['', 'Declared intent of other agents:', ...intents] : []),
      ].join('\n'),
      action,
    };
  }
  const body = result.advisories.flatMap((a: Advisory) => ['', ...conflictText(a, a.action, 1)]);
  return {
    text: [
      `${result.advisories.length} advisor${result.advisories.length === 1 ? 'y' : 'ies'} for ${result.agent}:`,
      ...body,
      ...forecastLines,
      ...(intents.length ? ['', 'Declared intent of other agents:', ...intents] : []),
    ].join('\n'),
    action,
  };
}

export function declaredText(result: DeclareIntentResult, options: AdviceOptions = {}): { text: string; action: NextAction } {
  const d = result.declared;
  const what = [...d.paths, ...d.symbols].join(', ');
  const action = overallAction(result.advisories.map((a) => a.action));
  const missing = result.problems.filter((p) => p.code === 'INTENT_SYMBOL_NOT_FOUND' && p.agent === d.agent).map((p) => p.message);
  const head = result.withdrawn
    ? `Withdrew the declared intent of ${d.agent}: it no longer counts for anyone.`
    : [`Declared for ${d.agent}: ${what} (counts now, until ${d.expiresAt}).`, ...missing].join(' ');
  if (result.advisories.length === 0)
    return {
      text: `${head} Nobody else is working close to ${result.withdrawn ? 'your changes' : 'it'}. ${nextText('go-on', '')}`,
      action,
    };
  const body = result.advisories.flatMap((a) => ['', ...conflictText(a, a.action, 1, options.tools)]);
  return { text: [head, ...body].join('\n'), action };
}
