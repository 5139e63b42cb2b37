/**
 * JSON with comments and trailing commas (tsconfig.json, jsconfig.json), parsed without a
 * dependency. Returns undefined on anything it cannot read, never throws.
 */
export function parseJsonc(text: string): unknown {
  let out = '';
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  // Trailing commas before } or ].
  out = out.replace(/,(\s*[}\]])/g, '$1');
  try {
    return JSON.parse(out.charCodeAt(0) === 0xfeff ? out.slice(1) : out);
  } catch {
    return undefined;
  }
}
