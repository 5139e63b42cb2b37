/**
 * The human table and the Markdown report: one row per scorer (each channel alone, each
 * weighting, its merge-less variant and ablations, the fitted model), figures side by side.
 */
import type { SemanticFigures } from '../measure/semantic.js';
import type { ForecastModel } from '@airspace/core';
import type { EarlyWarning, Evaluation, Metrics } from '../measure/evaluate.js';
import type { CorpusEvaluation } from '../measure/corpus.js';
import type { ForesightObservation } from '../measure/foresight.js';
import { corpusForesightText, foresightText } from './foresight.js';
import { alignedTable, fmt, fractionTitle, LABEL_NAMES } from './format.js';
import type { SkipReason } from '../extract/scenario.js';

export interface ReportContext {
  readonly repository: string;
  readonly head: string;
  readonly merges: number;
  readonly skippedByReason: Readonly<Partial<Record<SkipReason, number>>>;
  readonly fromCache?: number;
  /** Recency applied to edits by commit time. */
  readonly recency?: { readonly halfLifeHours: number | null; readonly floor: number; readonly graceHours?: number };
  /** Scenarios on which each problem code was met while scoring. */
  readonly problemCounts?: Readonly<Record<string, number>>;
  readonly early?: readonly EarlyWarning[];
  /** Figures at each early fraction (besides the full diffs). */
  readonly earlyEvaluations?: readonly { readonly fraction: number; readonly evaluation: Evaluation }[];
  /** Foresight figures per observation (see measure/foresight.ts). */
  readonly foresight?: readonly ForesightObservation[];
  /** The semantic check's verdicts per fraction (full diffs first), when the replay asked for them. */
  readonly semantic?: readonly SemanticFigures[];
}

export interface Row {
  readonly name: string;
  readonly metrics: Metrics;
}

export function rowsOf(e: Evaluation): Row[] {
  const rows: Row[] = [];
  for (const [id, m] of Object.entries(e.channels)) rows.push({ name: `channel ${id}`, metrics: m });
  for (const w of e.weightings) {
    rows.push({ name: `${w.name}`, metrics: w.combined });
    if (w.withoutMerge) rows.push({ name: `${w.name} without merge`, metrics: w.withoutMerge });
  }
  if (e.fit) {
    rows.push({ name: `fitted, out-of-fold (${e.fit.folds}-fold)`, metrics: e.fit.outOfFold });
    if (e.fit.withoutMerge) rows.push({ name: 'fitted without merge, out-of-fold', metrics: e.fit.withoutMerge.outOfFold });
  }
  return rows;
}

export function ablationRows(e: Evaluation): Row[] {
  const w = e.weightings[0];
  if (!w) return [];
  return Object.entries(w.ablations).map(([id, m]) => ({ name: `${w.name} − ${id}`, metrics: m }));
}

const HEADERS = ['scorer', 'ROC-AUC', 'PR-AUC', 'Brier', 'ECE', 'P@TA', 'R@TA', 'F1@TA', 'P@RA', 'R@RA', 'F1@RA'];

function cells(r: Row): string[] {
  const m = r.metrics;
  return [
    r.name,
    fmt(m.rocAuc),
    fmt(m.prAuc),
    fmt(m.brier),
    fmt(m.ece),
    fmt(m.traffic.precision, 2),
    fmt(m.traffic.recall, 2),
    fmt(m.traffic.f1, 2),
    fmt(m.resolution.precision, 2),
    fmt(m.resolution.recall, 2),
    fmt(m.resolution.f1, 2),
  ];
}

function textTable(rows: readonly Row[]): string {
  const body = rows.map(cells);
  const widths = HEADERS.map((h, i) => Math.max(h.length, ...body.map((c) => c[i]!.length)));
  const line = (c: readonly string[]) => c.map((x, i) => (i === 0 ? x.padEnd(widths[i]!) : x.padStart(widths[i]!))).join('  ');
  return [line(HEADERS), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

function markdownTable(rows: readonly Row[]): string {
  return [
    `| ${HEADERS.join(' | ')} |`,
    `|${HEADERS.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
    ...rows.map((r) => `| ${cells(r).join(' | ')} |`),
  ].join('\n');
}

function summaryLines(e: Evaluation, ctx: ReportContext): string[] {
  const skipped = Object.entries(ctx.skippedByReason)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);
  return [
    `repository ${ctx.repository} at ${ctx.head.slice(0, 12)}`,
    `merges examined ${ctx.merges} · scenarios ${e.scenarios}${ctx.fromCache ? ` (${ctx.fromCache} from cache)` : ''} · skipped ${skipped || 'none'}`,
    `label: ${LABEL_NAMES[e.label]} · positives ${e.positives} (${pct(e.baseRate)}) · textual ${pct(e.labelRates.textual)} · manual ${pct(e.labelRates.manual)} · collided at any point ${pct(e.labelRates.collided)}${e.labelRates.semantic !== undefined ? ` · semantic ${pct(e.labelRates.semantic)}` : ''}`,
    `thresholds τ_TA ${e.thresholds.traffic} · τ_RA ${e.thresholds.resolution} · ECE over ${e.bins} equal-width bins · recency ${
      ctx.recency
        ? ctx.recency.halfLifeHours === null
          ? 'none'
          : `${ctx.recency.graceHours ? `current for ${ctx.recency.graceHours} h, then ` : ''}half-life ${ctx.recency.halfLifeHours} h, floor ${ctx.recency.floor}`
        : 'default'
    }`,
    ...(ctx.problemCounts && Object.keys(ctx.problemCounts).length
      ? [
          `problems while scoring (scenarios): ${Object.entries(ctx.problemCounts)
            .map(([code, n]) => `${code} ${n}`)
            .join(', ')}`,
        ]
      : []),
  ];
}

function weightLine(name: string, weights: Readonly<Record<string, number>>, leak: number): string {
  const w = Object.entries(weights)
    .map(([id, v]) => `${id} ${v.toFixed(3)}`)
    .join(', ');
  return `${name}: ${w}${leak ? `, leak ${leak.toFixed(3)}` : ''}`;
}

function earlyLines(ctx: ReportContext): string[] {
  return (ctx.early ?? []).map((w) => {
    const h = (v: number | null) => (v === null ? '–' : `${v.toFixed(1)} h`);
    return (
      `early ${w.fraction}: of ${w.positives} collisions in ${w.scenarios} scenarios, ${w.foreseenEarly} foreseen (traffic or above) after ${Math.round(w.fraction * 100)}% of each side's commits, ` +
      `${w.foreseenFull} with the full diffs; median lead ${h(w.medianLeadHoursEarly)} before the merge (full diffs: ${h(w.medianLeadHoursFull)}); ` +
      `median share of commits still to come ${w.medianCommitsAhead === null ? '–' : `${Math.round(w.medianCommitsAhead * 100)}%`}`
    );
  });
}

/** The semantic check's verdicts per fraction: prevalence, and what was not checked and why. */
export function semanticLines(ctx: ReportContext): string[] {
  return (ctx.semantic ?? []).map((f) => {
    const why = Object.entries(f.notCheckedBy)
      .sort((a, b) => b[1] - a[1])
      .map(([reason, n]) => `${reason} ${n}`)
      .join(', ');
    const prevalence = f.prevalence === null ? '–' : `${(f.prevalence * 100).toFixed(1)}%`;
    return (
      `semantic, ${fractionTitle(f.fraction)}: ${f.semantic} broken (observed or final) of ${f.scenarios} scenarios, prevalence ${prevalence}; ` +
      `observed merges ${f.broken} broken, ${f.clear} clear, ${f.conflict} conflicting, ${f.notChecked} not checked${why ? ` (${why})` : ''}; ` +
      `${f.unlabelled} left out of the figures for want of a verdict`
    );
  });
}

/** "weight 0" lines of the fits (full diffs and each early fraction). */
function zeroWeightLines(e: Evaluation, ctx: ReportContext): string[] {
  const fits = [
    { title: 'full diffs', fit: e.fit },
    ...(ctx.earlyEvaluations ?? []).map((x) => ({ title: fractionTitle(x.fraction), fit: x.evaluation.fit })),
  ];
  return fits.flatMap(({ title, fit }) =>
    fit?.zeroWeights.length ? [`fitted weight 0 on the ${title} (the fit found no use for them): ${fit.zeroWeights.join(', ')}`] : [],
  );
}

export function formatTable(e: Evaluation, ctx: ReportContext): string {
  const out = [...summaryLines(e, ctx), '', textTable(rowsOf(e))];
  const semantic = semanticLines(ctx);
  if (semantic.length) out.push('', ...semantic);
  const ablations = ablationRows(e);
  if (ablations.length) out.push('', 'leave-one-channel-out', textTable(ablations));
  for (const { fraction, evaluation } of ctx.earlyEvaluations ?? [])
    out.push('', `observed after the first ${Math.round(fraction * 100)}% of each side's commits`, textTable(rowsOf(evaluation)));
  const early = earlyLines(ctx);
  if (early.length) out.push('', ...early);
  const foresight = foresightText(ctx.foresight ?? []);
  if (foresight.length) out.push('', ...foresight);
  out.push('', ...e.weightings.map((w) => weightLine(w.name, w.weights, w.leak)));
  if (e.fit) {
    out.push(weightLine('fitted', e.fit.weights, e.fit.leak));
    out.push(...zeroWeightLines(e, ctx));
    if (e.fit.withoutMerge) out.push(weightLine('fitted without merge', e.fit.withoutMerge.weights, e.fit.withoutMerge.leak));
    out.push(
      `suggested thresholds for the fitted probabilities: τ_TA ${e.fit.suggestedThresholds.traffic} · τ_RA ${e.fit.suggestedThresholds.resolution}`,
    );
  }
  return out.join('\n');
}

export function formatMarkdown(e: Evaluation, ctx: ReportContext, plots: readonly { title: string; file: string }[]): string {
  const out = ['# Airspace evaluation', '', ...summaryLines(e, ctx).map((l) => `- ${l}`), '', '## Scorers', '', markdownTable(rowsOf(e))];
  const ablations = ablationRows(e);
  if (ablations.length) out.push('', '## Leave-one-channel-out', '', markdownTable(ablations));
  for (const { fraction, evaluation } of ctx.earlyEvaluations ?? [])
    out.push(
      '',
      `## Observed after the first ${Math.round(fraction * 100)}% of each side's commits`,
      '',
      markdownTable(rowsOf(evaluation)),
    );
  const early = earlyLines(ctx);
  if (early.length) out.push('', '## Early warning', '', ...early.map((l) => `- ${l}`));
  const foresight = foresightText(ctx.foresight ?? []);
  if (foresight.length) out.push('', '## Foresight', '', '```text', ...foresight, '```');
  const semantic = semanticLines(ctx);
  if (semantic.length) out.push('', '## Semantic label', '', ...semantic.map((l) => `- ${l}`));
  out.push('', '## Weights', '', ...e.weightings.map((w) => `- ${weightLine(w.name, w.weights, w.leak)}`));
  if (e.fit) {
    out.push(`- ${weightLine('fitted', e.fit.weights, e.fit.leak)}`);
    out.push(...zeroWeightLines(e, ctx).map((l) => `- ${l}`));
    if (e.fit.withoutMerge) out.push(`- ${weightLine('fitted without merge', e.fit.withoutMerge.weights, e.fit.withoutMerge.leak)}`);
    out.push(`- suggested thresholds: τ_TA ${e.fit.suggestedThresholds.traffic}, τ_RA ${e.fit.suggestedThresholds.resolution}`);
  }
  if (plots.length) out.push('', '## Plots', '', ...plots.map((p) => `![${p.title}](${p.file})`));
  out.push(
    '',
    'P/R/F1@TA: predicted positive when risk ≥ τ_TA. @RA: when the scanner would raise a resolution advisory (risk ≥ τ_RA after the escalation discipline; for a channel alone, r ≥ τ_RA; for the fitted model, probability ≥ τ_RA). ' +
      'PR-AUC is average precision. ECE: Σ_b (n_b/N)·|observed − predicted| over equal-width bins.',
  );
  return out.join('\n') + '\n';
}

const CORPUS_HEADERS = ['repository', 'head', 'n', 'pos', 'P@TA', 'R@TA', 'F1@TA', 'F1@RA', 'PR-AUC', 'ECE'];

function corpusCells(name: string, head: string, m: Metrics): string[] {
  return [
    name,
    head.slice(0, 12),
    String(m.n),
    String(m.positives),
    fmt(m.traffic.precision, 2),
    fmt(m.traffic.recall, 2),
    fmt(m.traffic.f1, 2),
    fmt(m.resolution.f1, 2),
    fmt(m.prAuc),
    fmt(m.ece),
  ];
}

/** The corpus report: per fraction, each repository with the given weighting and, with a fit, the weighting fitted on the other repositories. */
export function formatCorpusTable(corpus: CorpusEvaluation): string {
  const out: string[] = [`corpus of ${corpus.members.length} repositories · label: ${LABEL_NAMES[corpus.label]}`];
  for (const fraction of corpus.fractions) {
    const names = corpus.members[0]?.byFraction.find((x) => x.fraction === fraction)?.evaluation.weightings.map((w) => w.name) ?? [];
    for (const weighting of names) {
      const body = corpus.members.map((m) => {
        const w = m.byFraction.find((x) => x.fraction === fraction)!.evaluation.weightings.find((x) => x.name === weighting)!;
        return corpusCells(m.name, m.head, w.combined);
      });
      out.push('', `${weighting}, ${fractionTitle(fraction)}`, alignedTable(CORPUS_HEADERS, body));
    }
    if (corpus.fitted) {
      const body = corpus.members.map((m) =>
        corpusCells(m.name, m.head, m.heldOut!.byFraction.find((x) => x.fraction === fraction)!.metrics),
      );
      out.push('', `fitted on the other repositories (held out), ${fractionTitle(fraction)}`, alignedTable(CORPUS_HEADERS, body));
    }
  }
  out.push(...corpusForesightText(corpus));
  out.push(...probabilityText(corpus));
  out.push(...forecastFitText(corpus));
  if (corpus.fitted) {
    const f = corpus.fitted;
    out.push(
      '',
      `${weightLine(`fitted on all ${f.scenarios} states (${f.fitOn.map(fractionTitle).join(' + ')})`, f.weights, 0)} · τ_TA ${f.thresholds.traffic} · τ_RA ${f.thresholds.resolution} (bands set on the ${fractionTitle(f.bandsOn)})`,
    );
    if (f.zeroWeights.length) out.push(`fitted weight 0 (the fit found no use for them on this corpus): ${f.zeroWeights.join(', ')}`);
    for (const m of corpus.members) {
      const w = m.heldOut!.weighting;
      out.push(`${weightLine(`without ${m.name}`, w.weights, 0)} · τ_TA ${w.thresholds.traffic} · τ_RA ${w.thresholds.resolution}`);
    }
  }
  return out.join('\n');
}

/**
 * `--fit-forecast`: the forecast fitted on every repository (what ships), and on the others for
 * each one; its held-out figures are the `forecast, held out` rows of the foresight tables.
 */
function forecastFitText(corpus: CorpusEvaluation): string[] {
  const fitted = corpus.forecast;
  if (!fitted) return [];
  const model = (m: ForecastModel) =>
    `${Object.entries(m.weights)
      .map(([signal, w]) => `${signal} ${fmt(w, 4)}`)
      .join(' · ')} · leak ${fmt(m.leak, 4)} · threshold ${fmt(m.threshold, 4)}`;
  return [
    '',
    `forecast of "${fitted.model.label}" fitted on ${fitted.scenarios} unseen states (${fitted.positives} collisions; ${fitted.fitOn.map(fractionTitle).join(' + ')}), threshold at recall ${fitted.recall} of them:`,
    `  all: ${model(fitted.model)}`,
    ...corpus.members.flatMap((m) => (m.heldOutForecast ? [`  without ${m.name}: ${model(m.heldOutForecast)}`] : [])),
    `  (scored on each repository by the model fitted without it: the "forecast, held out" rows above)`,
  ];
}

/**
 * `--fit-probability`: per repository and observed fraction, the ECE of the probability the
 * scanner reports (its own map) and of the map fitted on the other repositories, under each label.
 */
function probabilityText(corpus: CorpusEvaluation): string[] {
  const fitted = corpus.probability;
  if (!fitted) return [];
  const labels = corpus.members[0]?.heldOutProbability?.byFraction[0]?.byLabel.map((b) => b.label) ?? [];
  const headers = ['repository', 'observed', ...labels.flatMap((l) => [`ECE ${l}: reported`, 'held out'])];
  const body = corpus.members.flatMap((m) =>
    corpus.fractions.map((fraction) => {
      const held = m.heldOutProbability?.byFraction.find((f) => f.fraction === fraction);
      const observation = m.foresight.find((o) => o.fraction === fraction && o.intent === null);
      return [
        m.name,
        fractionTitle(fraction),
        ...labels.flatMap((label) => {
          const reported = observation?.byLabel.find((b) => b.label === label)?.scorers.find((x) => x.kind === 'weighting')?.all.ece;
          return [fmt(reported), fmt(held?.byLabel.find((b) => b.label === label)?.ece)];
        }),
      ];
    }),
  );
  const knotsText = (knots: readonly (readonly [number, number])[]) => knots.map(([r, p]) => `${fmt(r, 4)}→${fmt(p, 4)}`).join(' ');
  const clean = fitted.map.clean;
  return [
    '',
    `probability of "${fitted.map.label}" fitted on ${fitted.scenarios} states (${fitted.fitOn.map(fractionTitle).join(' + ')}); each repository held out:`,
    alignedTable(headers, body),
    `map (risk→probability): ${knotsText(fitted.map.knots)}`,
    ...(clean
      ? [
          `clean part, for pairs git merges cleanly (1 − (1 − R)(1 − c), c: the share of the newest ${clean.recentMerges} past merges that conflicted): ${knotsText(clean.knots)}`,
        ]
      : ['no clean part: no scored state knows its recent conflict rate (the past-conflicts channel is off)']),
  ];
}
