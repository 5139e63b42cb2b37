/**
 * Text from outside (agent ids and labels from observations, worktree folder names, file paths,
 * plugin messages) made safe for a terminal: control characters (escape sequences, newlines,
 * carriage returns, C1), and bidirectional overrides that reorder what is shown, are written as
 * visible escapes (`\n`, `\x1b`, `\u202e`). Human output only; JSON escapes them itself.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

export function printable(text: string): string {
  return text.replace(
    UNSAFE,
    (c) =>
      NAMED[c] ?? (c.charCodeAt(0) <= 0xff ? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}` : `\\u${c.charCodeAt(0).toString(16)}`),
  );
}

/** `value` with every string in it (keys included) made printable; other values as they are. */
export function printableDeep<T>(value: T): T {
  if (typeof value === 'string') return printable(value) as T;
  if (Array.isArray(value)) return value.map(printableDeep) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [printable(k), printableDeep(v)])) as T;
  }
  return value;
}
