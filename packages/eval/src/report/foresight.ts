/**
 * Foresight in the human report: one line per observed fraction ("of N collisions not yet
 * visible, flagged K …"), then per fraction and label the unseen scorers' table, the visible
 * conflicts that dissolved and the lead-time curve; for a corpus, the same per repository and
 * pooled.
 */
import type { CorpusEvaluation, CorpusForesight } from '../measure/corpus.js';
import {
  LEAD_BUCKETS,
  type ForesightObservation,
  type LabelForesight,
  type ScorerForesight,
  type UnseenFigures,
} from '../measure/foresight.js';
import { alignedTable, fmt, LABEL_NAMES } from './format.js';

const pct = (f: number) => `${Math.round(f * 100)}%`;
const hours = (v: number | null) => (v === null ? '–' : v < 10 ? v.toFixed(1) : v.toFixed(0));
const times = (v: number | null) => (v === null ? '–' : `${v.toFixed(1)}×`);

export function observationTitle(o: { fraction: number; intent: string | null }): string {
  return `${o.fraction === 1 ? 'full diffs' : pct(o.fraction)}${o.intent ? ` + declared ${o.intent}` : ''}`;
}

/** "of N collisions not yet visible, flagged K (recall r, precision p, lift l×) a median of H h ahead". */
export function headline(positives: number, u: UnseenFigures, who = ''): string {
  if (positives === 0) return `no collision that was not yet visible${who ? ` (${who})` : ''}`;
  const lead = u.medianLeadHours === null ? '' : ` a median of ${hours(u.medianLeadHours)} h ahead (mean ${hours(u.meanLeadHours)} h)`;
  return `of ${positives} ${positives === 1 ? 'collision' : 'collisions'} not yet visible, ${who ? `${who} ` : ''}flagged ${u.tp} (recall ${fmt(u.recall, 2)}, precision ${fmt(u.precision, 2)}, lift ${times(u.lift)})${lead}`;
}

function dissolvedText(b: LabelForesight): string {
  const d = b.visible.dissolvedBy;
  return `${b.visible.scenarios} visible (git already conflicts); ${b.visible.dissolved} of them merged cleanly in the end (sync merge ${d['sync-merge']}, revert ${d.revert}, unexplained ${d.unexplained})`;
}

const UNSEEN_HEADERS = ['scorer', 'flagged', 'TP', 'recall', 'precision', 'lift', 'PR-AUC', '×base', 'lead h', 'F1@TA all', 'gain'];

function unseenRow(s: ScorerForesight): string[] {
  const u = s.unseen;
  return [
    s.kind === 'channel' ? `channel ${s.name}` : s.name,
    ...figureCells(u),
    // The forecast raises no traffic advisory: F1 at traffic is the scanner's weighting's.
    s.kind === 'forecast' ? '–' : fmt(s.all.traffic.f1, 2),
    s.foresightGain === null ? '–' : `${s.foresightGain >= 0 ? '+' : ''}${s.foresightGain.toFixed(2)}`,
  ];
}

function leadTable(b: LabelForesight): string {
  const headers = [
    'hours before merge',
    ...LEAD_BUCKETS.map((x) => (x.toHours === null ? `≥${x.fromHours}` : `${x.fromHours}–${x.toHours}`)),
  ];
  const rows = [
    ['collisions', ...b.leadCurve.map(String)],
    ...b.scorers
      .filter((s) => s.kind !== 'channel' || s.name === 'merge')
      .map((s) => [`flagged: ${s.kind === 'channel' ? `channel ${s.name}` : s.name}`, ...s.leadCurve.map(String)]),
  ];
  return alignedTable(headers, rows, 1);
}

/** What the warned table reads of an observation and label: collisions, and each scorer's flags, by lead bucket. */
interface WarnedInput {
  readonly title: string;
  readonly label: LabelForesight['label'];
  readonly leadCurve: readonly number[];
  readonly scorers: readonly { readonly name: string; readonly leadCurve: readonly number[] }[];
}

const WARNED_TITLE = 'collisions warned of (advisories: traffic or above; a forecast is made only below traffic, so they add)';

const total = (curve: readonly number[]) => curve.reduce((n, x) => n + x, 0);

/**
 * Collisions warned of, per observation and label: by the merge channel alone (git's view of the
 * observed states), by the headline weighting's advisories, and by those plus each forecast. A
 * forecast is only made where there is no advisory, so the two counts add. Read a row observed
 * earlier against the merge channel's column of a row observed later: does Airspace warn of more,
 * sooner, than git would later?
 */
export function warnedTable(inputs: readonly WarnedInput[], headlineScorer: string, forecastNames: readonly string[]): string {
  const flagsOf = (i: WarnedInput, name: string) => {
    const s = i.scorers.find((x) => x.name === name);
    return s ? total(s.leadCurve) : undefined;
  };
  const rows = inputs.map((i) => {
    const advisories = flagsOf(i, headlineScorer);
    return [
      i.title,
      LABEL_NAMES[i.label],
      String(total(i.leadCurve)),
      String(flagsOf(i, 'merge') ?? '–'),
      String(advisories ?? '–'),
      ...forecastNames.map((f) => {
        const forecasts = flagsOf(i, f);
        return advisories === undefined || forecasts === undefined ? '–' : String(advisories + forecasts);
      }),
    ];
  });
  return alignedTable(
    ['observed', 'label', 'collisions', 'channel merge', headlineScorer, ...forecastNames.map((f) => `${headlineScorer} + ${f}`)],
    rows,
    2,
  );
}

/**
 * Where a weighting's F1 at traffic falls below the merge channel's alone (the invariant "look-ahead
 * may add flags, never hide visible collisions"), one phrase per observation and label.
 */
export function belowMerge(observations: readonly ForesightObservation[], name?: string): string[] {
  const out: string[] = [];
  for (const o of observations) {
    for (const b of o.byLabel) {
      const s = b.scorers.find((x) => (name ? x.name === name : x.kind === 'weighting'));
      if (s?.foresightGain !== null && s?.foresightGain !== undefined && s.foresightGain < -1e-9)
        out.push(`${observationTitle(o)} (${LABEL_NAMES[b.label]}): ${s.foresightGain.toFixed(3)}`);
    }
  }
  return out;
}

/** The foresight section of a repository's report (the headline scorer is the first weighting). */
export function foresightText(observations: readonly ForesightObservation[]): string[] {
  if (observations.length === 0) return [];
  const out: string[] = [];
  const labels = observations[0]!.byLabel.map((b) => b.label);
  for (const label of labels) {
    const lead = observations[0]!.byLabel[0]!.scorers.find((s) => s.kind === 'weighting')?.name ?? 'the combination';
    out.push(`foresight (${lead}; label: ${LABEL_NAMES[label]}), where git does not see the collision yet:`);
    for (const o of observations) {
      if (o.fraction === 1) continue;
      const b = o.byLabel.find((x) => x.label === label)!;
      const s = b.scorers.find((x) => x.kind === 'weighting');
      out.push(`  ${observationTitle(o)}: ${s ? headline(b.unseen.positives, s.unseen) : '–'}; ${dissolvedText(b)}`);
      const f = b.scorers.find((x) => x.kind === 'forecast');
      if (f && b.unseen.positives > 0) out.push(`    with the forecast: ${headline(b.unseen.positives, f.unseen, 'the forecast')}`);
    }
  }
  const below = belowMerge(observations);
  const first = observations[0]!.byLabel[0]!.scorers.find((s) => s.kind === 'weighting')?.name;
  if (first)
    out.push(
      below.length
        ? `${first}: F1 at traffic below the merge channel's alone at ${below.join('; ')}`
        : `${first}: F1 at traffic never below the merge channel's alone`,
    );
  const kinds = observations[0]!.byLabel[0]!.scorers;
  if (first)
    out.push(
      '',
      WARNED_TITLE,
      warnedTable(
        labels.flatMap((label) =>
          observations.map((o) => ({ title: observationTitle(o), ...o.byLabel.find((b) => b.label === label)!, label })),
        ),
        first,
        kinds.filter((s) => s.kind === 'forecast').map((s) => s.name),
      ),
    );
  for (const o of observations) {
    for (const b of o.byLabel) {
      out.push(
        '',
        `${observationTitle(o)}, label ${LABEL_NAMES[b.label]}: ${b.scenarios} scenarios, ${b.positives} collisions; unseen ${b.unseen.scenarios} with ${b.unseen.positives} collisions (base rate ${b.unseen.baseRate === null ? '–' : pct(b.unseen.baseRate)}${b.unseen.gitConflicts ? `; git's merge of the observed commits conflicts in ${b.unseen.gitConflicts} of them` : ''}); ${dissolvedText(b)}`,
        alignedTable(UNSEEN_HEADERS, b.scorers.map(unseenRow), 1),
        leadTable(b),
      );
    }
  }
  out.push(
    '',
    "Unseen columns: flagged at traffic or above (the forecast: forecast, below traffic) among the scenarios git does not see as conflicting yet; lift = precision ÷ their base rate; ×base = PR-AUC ÷ base rate; lead h = median hours from observation to merge of the collisions flagged. F1@TA all: over all scenarios; gain = minus the merge channel's alone.",
  );
  return out;
}

const CORPUS_HEADERS = [
  'repository',
  'unseen',
  'coll.',
  'flagged',
  'TP',
  'recall',
  'precision',
  'lift',
  'PR-AUC',
  '×base',
  'lead h',
  'F1@TA',
  'merge F1',
  'gain',
  'visible',
  'dissolved',
];

/** The columns every unseen table shares: flags, hits, and how good they are. */
function figureCells(u: UnseenFigures): string[] {
  return [
    String(u.flagged),
    String(u.tp),
    fmt(u.recall, 2),
    fmt(u.precision, 2),
    times(u.lift),
    fmt(u.prAuc),
    times(u.prAucLift),
    hours(u.medianLeadHours),
  ];
}

/** `figureCells` after the pairs and the collisions among them. */
function unseenCells(scenarios: number, positives: number, u: UnseenFigures): string[] {
  return [String(scenarios), String(positives), ...figureCells(u)];
}

function corpusRow(name: string, b: LabelForesight, scorer: string): string[] | undefined {
  const s = b.scorers.find((x) => x.name === scorer);
  const merge = b.scorers.find((x) => x.kind === 'channel' && x.name === 'merge');
  if (!s) return undefined;
  const u = s.unseen;
  return [
    name,
    ...unseenCells(b.unseen.scenarios, b.unseen.positives, u),
    fmt(s.all.traffic.f1, 2),
    fmt(merge?.all.traffic.f1, 2),
    s.foresightGain === null ? '–' : s.foresightGain.toFixed(2),
    String(b.visible.scenarios),
    String(b.visible.dissolved),
  ];
}

function pooledRow(p: CorpusForesight, scorer: string): string[] | undefined {
  const s = p.scorers.find((x) => x.name === scorer);
  if (!s) return undefined;
  return ['corpus (pooled)', ...unseenCells(s.scenarios, s.positives, s), '', '', '', String(p.visible), String(p.dissolved)];
}

/** The corpus's foresight: per observation and label, one line per repository and the pooled line, then tables. */
export function corpusForesightText(corpus: CorpusEvaluation): string[] {
  const out: string[] = [];
  const first = corpus.members[0];
  if (!first) return out;
  const headlineScorer = first.foresight[0]?.byLabel[0]?.scorers.find((s) => s.kind === 'weighting')?.name;
  if (!headlineScorer) return out;
  const scorerNames = first.foresight[0]!.byLabel[0]!.scorers.filter((s) => s.kind !== 'channel').map((s) => s.name);
  const forecastNames = first.foresight[0]!.byLabel[0]!.scorers.filter((s) => s.kind === 'forecast').map((s) => s.name);
  for (const p of corpus.foresight) {
    if (p.fraction === 1) {
      // On the full diffs the states are final: a forecast there is a pair that merged cleanly.
      for (const f of p.scorers.filter((s) => forecastNames.includes(s.name)))
        out.push(
          '',
          `${observationTitle(p)}, label ${LABEL_NAMES[p.label]}: ${f.name} on ${f.flagged} of ${f.scenarios} pairs that merge cleanly (${f.tp} of them collided; per repository ${corpus.members
            .map((m) => {
              const b = m.foresight.find((o) => o.fraction === 1 && o.intent === p.intent)?.byLabel.find((x) => x.label === p.label);
              return `${m.name} ${b?.scorers.find((x) => x.name === f.name)?.unseen.flagged ?? '–'}`;
            })
            .join(', ')})`,
        );
      continue;
    }
    const title = `${observationTitle(p)}, label ${LABEL_NAMES[p.label]}`;
    out.push('', `foresight ${title} (${headlineScorer}):`);
    for (const m of corpus.members) {
      const b = m.foresight.find((o) => o.fraction === p.fraction && o.intent === p.intent)?.byLabel.find((x) => x.label === p.label);
      const s = b?.scorers.find((x) => x.name === headlineScorer);
      if (b && s) out.push(`  ${m.name}: ${headline(b.unseen.positives, s.unseen)}`);
    }
    const pooled = p.scorers.find((s) => s.name === headlineScorer);
    if (pooled) out.push(`  corpus: ${headline(pooled.positives, pooled)}`);
    const forecast = p.scorers.find((s) => s.name === 'forecast');
    if (forecast) out.push(`  corpus, the forecast: ${headline(forecast.positives, forecast, 'the forecast')}`);
    const below = corpus.members.flatMap((m) =>
      belowMerge(
        m.foresight.filter((o) => o.fraction === p.fraction && o.intent === p.intent),
        headlineScorer,
      )
        .filter((x) => x.includes(LABEL_NAMES[p.label]))
        .map((x) => `${m.name} ${x.slice(x.lastIndexOf(':') + 2)}`),
    );
    out.push(
      `  ${headlineScorer}: F1 at traffic ${below.length ? `below the merge channel's alone in ${below.join(', ')}` : "never below the merge channel's alone"}`,
    );
    for (const name of scorerNames) {
      const body = corpus.members.flatMap((m) => {
        const b = m.foresight.find((o) => o.fraction === p.fraction && o.intent === p.intent)?.byLabel.find((x) => x.label === p.label);
        const row = b && corpusRow(m.name, b, name);
        return row ? [row] : [];
      });
      const pooledLine = pooledRow(p, name);
      out.push('', `${name}, ${title}`, alignedTable(CORPUS_HEADERS, pooledLine ? [...body, pooledLine] : body, 1));
    }
    out.push(
      '',
      `collisions flagged by hours before the merge, pooled, ${title}`,
      alignedTable(
        ['hours before merge', ...LEAD_BUCKETS.map((x) => (x.toHours === null ? `≥${x.fromHours}` : `${x.fromHours}–${x.toHours}`))],
        [
          ['collisions', ...p.leadCurve.map(String)],
          ...p.scorers
            .filter((s) => s.name === 'merge' || scorerNames.includes(s.name))
            .map((s) => [`flagged: ${scorerNames.includes(s.name) ? s.name : `channel ${s.name}`}`, ...s.leadCurve.map(String)]),
        ],
        1,
      ),
    );
    const channels = p.scorers.filter((s) => !scorerNames.includes(s.name));
    out.push(
      '',
      `every scorer on the unseen, pooled, ${title}`,
      alignedTable(
        ['scorer', 'unseen', 'coll.', 'flagged', 'TP', 'recall', 'precision', 'lift', 'PR-AUC', '×base', 'lead h'],
        [...channels.map((s) => ({ ...s, name: `channel ${s.name}` })), ...p.scorers.filter((s) => scorerNames.includes(s.name))].map(
          (s) => [s.name, ...unseenCells(s.scenarios, s.positives, s)],
        ),
        1,
      ),
    );
  }
  const labels = [...new Set(corpus.foresight.map((p) => p.label))];
  out.push(
    '',
    `${WARNED_TITLE}, pooled`,
    warnedTable(
      labels.flatMap((label) => corpus.foresight.filter((p) => p.label === label).map((p) => ({ ...p, title: observationTitle(p) }))),
      headlineScorer,
      forecastNames,
    ),
  );
  return out;
}
