/**
 * A channel's options, one path in: `channels.<id>.options` from a config (or a test's `options`)
 * is checked against the channel's `optionsSchema`, merged over its `defaultOptions`, and handed
 * to every call as `ctx.options`. A bad value is an `INVALID_OPTION` problem naming it, and its
 * default is used; an unknown key is a problem and ignored. The schema is plain data, so it
 * crosses to a plugin's worker thread with the channel's other fields.
 */
import type { OptionSchema, OptionsSchema, Problem } from './channel.js';
import { invalidOption, unknownOption } from './errors.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What a value of `schema` looks like, for messages: `a number in [0, 1]`, `an integer ≥ 1`. */
export function describeOption(schema: OptionSchema): string {
  switch (schema.type) {
    case 'number': {
      const what = schema.integer ? 'an integer' : 'a number';
      const low = schema.min !== undefined ? `[${schema.min}` : schema.above !== undefined ? `(${schema.above}` : undefined;
      const high = schema.max !== undefined ? `${schema.max}]` : schema.below !== undefined ? `${schema.below})` : undefined;
      if (low && high) return `${what} in ${low}, ${high}`;
      if (schema.min !== undefined) return `${what} ≥ ${schema.min}`;
      if (schema.above !== undefined) return `${what} > ${schema.above}`;
      if (schema.max !== undefined) return `${what} ≤ ${schema.max}`;
      if (schema.below !== undefined) return `${what} < ${schema.below}`;
      return what;
    }
    case 'boolean':
      return 'true or false';
    case 'string':
      return schema.values ? schema.values.map((v) => JSON.stringify(v)).join(' or ') : 'a string';
    case 'strings':
      return 'an array of strings';
    case 'record':
      return `an object of ${schema.keys ? schema.keys.join(', ') : 'names'} → ${describeOption(schema.value)}`;
  }
}

function fits(schema: OptionSchema, v: unknown): boolean {
  switch (schema.type) {
    case 'number':
      return (
        typeof v === 'number' &&
        Number.isFinite(v) &&
        (!schema.integer || Number.isInteger(v)) &&
        (schema.min === undefined || v >= schema.min) &&
        (schema.max === undefined || v <= schema.max) &&
        (schema.above === undefined || v > schema.above) &&
        (schema.below === undefined || v < schema.below)
      );
    case 'boolean':
      return typeof v === 'boolean';
    case 'string':
      return typeof v === 'string' && (!schema.values || schema.values.includes(v));
    case 'strings':
      return Array.isArray(v) && v.every((x) => typeof x === 'string');
    case 'record':
      return isObject(v) && Object.entries(v).every(([k, x]) => (!schema.keys || schema.keys.includes(k)) && fits(schema.value, x));
  }
}

/**
 * A channel's options for a scan: `given` (from a config: anything may come in) over `defaults`.
 * With a schema, each given key is checked (a bad value keeps its default, an unknown key is
 * dropped, each with a problem); without one, a shallow merge of two objects, else `given` when
 * present.
 */
export function resolveOptions<Options>(
  channelId: string,
  defaults: Options | undefined,
  schema: OptionsSchema<Options> | undefined,
  given: unknown,
): { options: Options; problems: Problem[] } {
  const problems: Problem[] = [];
  if (!schema) {
    const merged =
      defaults !== undefined && typeof defaults === 'object' && (given === undefined || typeof given === 'object')
        ? { ...(defaults as object), ...((given as object | undefined) ?? {}) }
        : (given ?? defaults);
    return { options: merged as Options, problems };
  }
  const base = (isObject(defaults) ? defaults : {}) as Record<string, unknown>;
  if (given === undefined || given === null) return { options: base as Options, problems };
  if (!isObject(given)) {
    problems.push(invalidOption(channelId, 'options', given, 'an object'));
    return { options: base as Options, problems };
  }
  const rules = schema as Readonly<Record<string, OptionSchema>>;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(given)) {
    const rule = rules[key];
    if (!rule) {
      problems.push(unknownOption(channelId, key, Object.keys(rules)));
      continue;
    }
    if (value === undefined) continue;
    if (rule.type === 'record' && isObject(value)) {
      // Merged key by key: a record that sets one entry keeps the others' defaults.
      const merged: Record<string, unknown> = { ...(isObject(base[key]) ? base[key] : {}) };
      for (const [k, x] of Object.entries(value)) {
        if (rule.keys && !rule.keys.includes(k))
          problems.push(invalidOption(channelId, `${key}.${k}`, x, `one of ${rule.keys.join(', ')}`));
        else if (!fits(rule.value, x)) problems.push(invalidOption(channelId, `${key}.${k}`, x, describeOption(rule.value)));
        else merged[k] = x;
      }
      out[key] = merged;
      continue;
    }
    if (fits(rule, value)) out[key] = value;
    else problems.push(invalidOption(channelId, key, value, describeOption(rule)));
  }
  return { options: out as Options, problems };
}

/** Why a channel's `defaultOptions` do not fit its own `optionsSchema` (undefined when they do). */
export function schemaDefect(schema: unknown, defaults: unknown): string | undefined {
  if (!isObject(schema)) return '"optionsSchema" must be an object of option → rule';
  for (const [key, rule] of Object.entries(schema)) {
    if (!isObject(rule) || typeof rule.type !== 'string') return `"optionsSchema.${key}" must be a rule such as { type: 'number' }`;
  }
  if (defaults === undefined) return undefined;
  if (!isObject(defaults)) return '"defaultOptions" must be an object when there is an "optionsSchema"';
  for (const [key, value] of Object.entries(defaults)) {
    const rule = (schema as Record<string, OptionSchema>)[key];
    if (!rule) return `"defaultOptions.${key}" has no rule in "optionsSchema"`;
    if (value !== undefined && !fits(rule, value)) return `"defaultOptions.${key}" is not ${describeOption(rule)}`;
  }
  return undefined;
}
