/**
 * The semantic label's own figures: per observed fraction, how many observed merges the checker
 * found broken, clear, conflicting or could not check (and why), and how many scenarios a
 * semantic label leaves out for want of a verdict. Pure: scored scenarios in, numbers out.
 */
import { isSemanticLabel, labelKnown, labelOf, type LabelKind } from '../extract/scenario.js';
import type { ScoredScenario } from '../score/cache.js';

export interface SemanticFigures {
  readonly fraction: number;
  readonly scenarios: number;
  /** Verdicts on the observed states' merge. */
  readonly broken: number;
  readonly clear: number;
  readonly conflict: number;
  readonly notChecked: number;
  /** Not checked, by reason (the reason up to its first colon). */
  readonly notCheckedBy: Readonly<Record<string, number>>;
  /** Broken at the observation or at the final merge (the `semantic` label's positives, of all scenarios). */
  readonly semantic: number;
  /** semantic ÷ scenarios with a `semantic` label (the prevalence). */
  readonly prevalence: number | null;
  /** Scenarios the run's label leaves out: no verdict on the observed or the final merge. */
  readonly unlabelled: number;
}

/** A reason grouped: up to its first colon or parenthesis, so per-file details do not split the counts. */
const reasonGroup = (reason: string): string => reason.split(/[:(]/)[0]!.trim();

export function semanticFigures(fraction: number, scenarios: readonly ScoredScenario[], label: LabelKind): SemanticFigures {
  const count = (status: string) => scenarios.filter((s) => s.semantic?.status === status).length;
  const notCheckedBy: Record<string, number> = {};
  for (const s of scenarios) {
    const c = s.semantic;
    const why = !c ? 'not asked' : c.status === 'not-checked' ? reasonGroup(c.reason) : undefined;
    if (why) notCheckedBy[why] = (notCheckedBy[why] ?? 0) + 1;
  }
  const known = scenarios.filter((s) => labelKnown(s, 'semantic'));
  const semantic = known.filter((s) => labelOf(s, 'semantic')).length;
  return {
    fraction,
    scenarios: scenarios.length,
    broken: count('broken'),
    clear: count('clear'),
    conflict: count('conflict'),
    notChecked: scenarios.length - count('broken') - count('clear') - count('conflict'),
    notCheckedBy,
    semantic,
    prevalence: known.length ? semantic / known.length : null,
    unlabelled: scenarios.filter((s) => !labelKnown(s, label)).length,
  };
}

/** The scenarios that have a label of this kind (all of them, unless the label is semantic). */
export function labelledOnly<K>(byFraction: ReadonlyMap<K, readonly ScoredScenario[]>, label: LabelKind): Map<K, ScoredScenario[]> {
  return new Map(
    [...byFraction].map(([k, scenarios]) => [k, isSemanticLabel(label) ? scenarios.filter((s) => labelKnown(s, label)) : [...scenarios]]),
  );
}
