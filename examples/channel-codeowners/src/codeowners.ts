/**
 * CODEOWNERS parsing with GitHub's rules: one `pattern owner…` per line, gitignore-style
 * patterns, and the LAST matching line wins (an owner-less line un-assigns a path).
 */
import ignore, { type Ignore } from 'ignore';

export interface OwnerRule {
  readonly pattern: string;
  readonly owners: readonly string[];
  /** 1-based line in the CODEOWNERS file, for evidence. */
  readonly line: number;
  readonly matcher: Ignore;
}

/** Where GitHub looks for the file, in its order of precedence. */
export const CODEOWNERS_LOCATIONS = ['.github/CODEOWNERS', 'CODEOWNERS', 'docs/CODEOWNERS'] as const;

export function parseCodeowners(text: string): { rules: OwnerRule[]; errors: string[] } {
  const rules: OwnerRule[] = [];
  const errors: string[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (!line) return;
    const [pattern, ...owners] = line.split(/\s+/);
    if (!pattern) return;
    if (pattern.startsWith('!') || pattern.includes('[')) {
      errors.push(`line ${index + 1}: "${pattern}" uses syntax CODEOWNERS does not support; ignored`);
      return;
    }
    try {
      rules.push({ pattern, owners, line: index + 1, matcher: ignore().add(pattern) });
    } catch (error) {
      errors.push(`line ${index + 1}: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  return { rules, errors };
}

/** The rule that owns `path` (repository-relative), or undefined. */
export function ownerRule(rules: readonly OwnerRule[], path: string): OwnerRule | undefined {
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i]!;
    if (rule.matcher.ignores(path)) return rule.owners.length > 0 ? rule : undefined;
  }
  return undefined;
}
