/**
 * Canonical JSON, compatible with RFC 8785 (JSON Canonicalization Scheme) for the values a trail
 * holds: object keys sorted by UTF-16 code units, no whitespace, strings escaped as
 * `JSON.stringify` escapes them, numbers in ECMAScript `Number.prototype.toString` form (which is
 * what JCS prescribes), `-0` written as `0`. Values outside JCS's domain — `undefined`, functions,
 * non-finite numbers, strings with lone surrogates — are errors rather than silently dropped.
 *
 * Set semantics (sorted, deduplicated path sets) are not part of JCS; they are the trail's own
 * normalisation, applied before canonicalisation (`sortedSet`) and checked by the verifier.
 */
import { createHash } from 'node:crypto';

export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

export class CanonicalJsonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CanonicalJsonError';
  }
}

// A lone (unpaired) surrogate cannot be encoded as UTF-8; JCS requires well-formed strings.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when `text` has no lone surrogate, so that it has a UTF-8 encoding (and a JCS form). */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** The canonical (JCS) text of a JSON value. */
export function canonicalize(value: unknown): string {
  return write(value, '$');
}

function write(value: unknown, where: string): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalJsonError(`${where}: ${String(value)} has no JSON form.`);
      return Object.is(value, -0) ? '0' : String(value);
    case 'string':
      if (LONE_SURROGATE.test(value)) throw new CanonicalJsonError(`${where}: string holds a lone surrogate.`);
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map((item, i) => write(item, `${where}[${i}]`)).join(',')}]`;
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      const parts: string[] = [];
      for (const key of keys) {
        if (LONE_SURROGATE.test(key)) throw new CanonicalJsonError(`${where}: key holds a lone surrogate.`);
        parts.push(`${JSON.stringify(key)}:${write(record[key], `${where}.${key}`)}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      throw new CanonicalJsonError(`${where}: a ${typeof value} has no JSON form.`);
  }
}

/** SHA-256 of a string's UTF-8 bytes, lowercase hex. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** UTF-16 code-unit order, the order JCS uses for keys and the trail uses for path sets. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A path set as the trail stores it: sorted by code units, duplicates removed. */
export function sortedSet(items: Iterable<string>): string[] {
  return [...new Set(items)].sort(compareCodeUnits);
}

/** True when `items` is strictly increasing in code-unit order (sorted and duplicate-free). */
export function isSortedSet(items: readonly string[]): boolean {
  for (let i = 1; i < items.length; i++) if (compareCodeUnits(items[i - 1]!, items[i]!) >= 0) return false;
  return true;
}

/**
 * The first object (depth first) whose own keys are not in canonical order, as a JSON-path-like
 * string, or `undefined` when every object's keys are sorted. Applied to a value parsed from
 * persisted text, key order is the order the text wrote them in.
 */
export function firstUnsortedObject(value: unknown, where = '$'): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstUnsortedObject(value[i], `${where}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  const keys = Object.keys(value);
  if (!isSortedSet(keys)) return where;
  for (const key of keys) {
    const found = firstUnsortedObject((value as Record<string, unknown>)[key], `${where}.${key}`);
    if (found) return found;
  }
  return undefined;
}

/**
 * The first object member (depth first, as a JSON-path-like string) whose key repeats an earlier
 * key of the same object, or `undefined` when there is none. `text` must be JSON that
 * `JSON.parse` accepted: parsing keeps the last of duplicate keys, a reader that keeps the first
 * sees another value, and JCS (RFC 8785, after I-JSON) does not allow them. Keys are compared
 * decoded (`"\u006cevel"` is `"level"`). Iterative, so no nesting depth overflows the stack.
 */
export function firstDuplicateKey(text: string): string | undefined {
  type Frame = { readonly keys: Set<string> | undefined; readonly path: string; key: string; n: number };
  const stack: Frame[] = [];
  let expectKey = false;
  const valuePath = (): string => {
    const top = stack[stack.length - 1];
    if (!top) return '$';
    return top.keys ? `${top.path}.${top.key}` : `${top.path}[${top.n}]`;
  };
  for (let i = 0; i < text.length;) {
    const ch = text[i]!;
    if (ch === '"') {
      const start = i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      const top = stack[stack.length - 1];
      if (expectKey && top?.keys) {
        const key = JSON.parse(text.slice(start, i)) as string;
        if (top.keys.has(key)) return `${top.path}.${key}`;
        top.keys.add(key);
        top.key = key;
        expectKey = false;
      }
    } else if (ch === '{' || ch === '[') {
      stack.push({ keys: ch === '{' ? new Set() : undefined, path: valuePath(), key: '', n: 0 });
      expectKey = ch === '{';
      i++;
    } else if (ch === '}' || ch === ']') {
      stack.pop();
      expectKey = false;
      i++;
    } else if (ch === ',') {
      const top = stack[stack.length - 1];
      if (top?.keys) expectKey = true;
      else if (top) top.n++;
      i++;
    } else i++;
  }
  return undefined;
}
