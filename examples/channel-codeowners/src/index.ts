/**
 * An example channel plugin: two agents editing files owned by the same team (CODEOWNERS) are
 * likely to need the same reviewers and to step on each other's assumptions. File-level evidence,
 * so on its own it raises at most a traffic advisory.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineChannel, type Agent, type Evidence, type OptionsSchema } from '@airspace/core';
import { CODEOWNERS_LOCATIONS, ownerRule, parseCodeowners, type OwnerRule } from './codeowners.js';

export { parseCodeowners, ownerRule, CODEOWNERS_LOCATIONS } from './codeowners.js';

export interface CodeownersOptions {
  /** Risk when two agents touch files with a common owner (before recency weights). */
  readonly sharedOwnerRisk: number;
  /** Owners too broad to mean anything (e.g. a catch-all `* @org/everyone`). */
  readonly ignoreOwners: readonly string[];
  /** CODEOWNERS text to use instead of the repository's file (tests, or a generated file). */
  readonly text?: string;
}

interface Prepared {
  readonly source: string;
  /** Per agent: owner → the agent's heaviest file owned by it. */
  readonly owned: ReadonlyMap<string, ReadonlyMap<string, { path: string; weight: number; rule: OwnerRule }>>;
}

const DEFAULTS: CodeownersOptions = { sharedOwnerRisk: 0.5, ignoreOwners: [] };

/** What `channels.codeowners.options` may hold; a bad value is a problem and keeps its default. */
const SCHEMA: OptionsSchema<CodeownersOptions> = {
  sharedOwnerRisk: { type: 'number', min: 0, max: 1 },
  ignoreOwners: { type: 'strings' },
  text: { type: 'string' },
};

function readRules(root: string | undefined, text: string | undefined): { rules: OwnerRule[]; source: string; errors: string[] } {
  if (text !== undefined) return { ...parseCodeowners(text), source: 'options.text' };
  if (root === undefined) return { rules: [], source: 'none', errors: [] };
  for (const location of CODEOWNERS_LOCATIONS) {
    try {
      return { ...parseCodeowners(readFileSync(join(root, location), 'utf8')), source: location };
    } catch {
      // Not at this location; try the next one.
    }
  }
  return { rules: [], source: 'none', errors: [] };
}

/** One call, the way the built-ins are written: options arrive as `ctx.options`, checked against `optionsSchema`. */
export function codeownersChannel() {
  return defineChannel({
    id: 'codeowners',
    defaultWeight: 0.3,
    meta: { description: 'Two agents edit files owned by the same CODEOWNERS team.', precision: 'file' },
    defaultOptions: DEFAULTS,
    optionsSchema: SCHEMA,
    prepare(agents: readonly Agent[], ctx): Prepared {
      const { rules, source, errors } = readRules(ctx.repository?.root, ctx.options.text);
      for (const e of errors) ctx.logger.warn(`codeowners: ${source} ${e}`);
      const ignored = new Set(ctx.options.ignoreOwners);
      const owned = new Map<string, Map<string, { path: string; weight: number; rule: OwnerRule }>>();
      for (const agent of agents) {
        const byOwner = new Map<string, { path: string; weight: number; rule: OwnerRule }>();
        for (const file of agent.files) {
          const rule = ownerRule(rules, file.path);
          if (!rule) continue;
          for (const owner of rule.owners) {
            if (ignored.has(owner)) continue;
            const held = byOwner.get(owner);
            if (!held || file.weight > held.weight) byOwner.set(owner, { path: file.path, weight: file.weight, rule });
          }
        }
        owned.set(agent.id, byOwner);
      }
      return { source, owned };
    },
    score(a, b, ctx) {
      const ownedA = ctx.prepared.owned.get(a.id);
      const ownedB = ctx.prepared.owned.get(b.id);
      if (!ownedA || !ownedB) return { risk: 0, evidence: [] };
      const evidence: Evidence[] = [];
      let risk = 0;
      for (const [owner, fa] of ownedA) {
        const fb = ownedB.get(owner);
        if (!fb) continue;
        const r = ctx.options.sharedOwnerRisk * fa.weight * fb.weight;
        risk = Math.max(risk, r);
        evidence.push({
          kind: 'shared-owner',
          risk: r,
          message: `${a.label} edits ${fa.path} and ${b.label} edits ${fb.path}, both owned by ${owner} (${ctx.prepared.source} lines ${fa.rule.line} and ${fb.rule.line}).`,
          a: { agent: a.id, path: fa.path },
          b: { agent: b.id, path: fb.path },
        });
      }
      evidence.sort((x, y) => (y.risk ?? 0) - (x.risk ?? 0));
      return { risk, evidence };
    },
  });
}

export default codeownersChannel;
