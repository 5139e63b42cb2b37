/**
 * Two small SVG plots, no dependencies: ROC curves (several series) and a reliability diagram
 * (observed rate against mean predicted probability per bin, with the diagonal).
 */
import type { ReliabilityBin, RocPoint } from '../measure/metrics.js';

const SIZE = 360;
const MARGIN = 48;
const PLOT = SIZE - 2 * MARGIN;
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

const x = (v: number) => (MARGIN + v * PLOT).toFixed(1);
const y = (v: number) => (MARGIN + (1 - v) * PLOT).toFixed(1);

function frame(title: string, xLabel: string, yLabel: string, body: string[], legend: readonly { name: string; colour: string }[]): string {
  const ticks: string[] = [];
  for (let t = 0; t <= 1.0001; t += 0.25) {
    ticks.push(
      `<line x1="${x(t)}" y1="${y(0)}" x2="${x(t)}" y2="${(MARGIN + PLOT + 4).toFixed(1)}" stroke="#333"/><text x="${x(t)}" y="${MARGIN + PLOT + 16}" text-anchor="middle">${t.toFixed(2)}</text>`,
    );
    ticks.push(
      `<line x1="${(MARGIN - 4).toFixed(1)}" y1="${y(t)}" x2="${x(0)}" y2="${y(t)}" stroke="#333"/><text x="${MARGIN - 6}" y="${(Number(y(t)) + 4).toFixed(1)}" text-anchor="end">${t.toFixed(2)}</text>`,
    );
  }
  const legendHeight = 16 * legend.length;
  const height = SIZE + legendHeight;
  const keys = legend.map((l, i) => {
    const ly = SIZE + 4 + i * 16;
    return `<rect x="${MARGIN}" y="${ly}" width="12" height="4" fill="${l.colour}"/><text x="${MARGIN + 18}" y="${ly + 6}">${escapeXml(l.name)}</text>`;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${height}" viewBox="0 0 ${SIZE} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${SIZE / 2}" y="20" text-anchor="middle" font-size="13">${escapeXml(title)}</text>`,
    `<rect x="${MARGIN}" y="${MARGIN}" width="${PLOT}" height="${PLOT}" fill="none" stroke="#333"/>`,
    ...ticks,
    `<text x="${SIZE / 2}" y="${MARGIN + PLOT + 32}" text-anchor="middle">${escapeXml(xLabel)}</text>`,
    `<text x="14" y="${SIZE / 2}" text-anchor="middle" transform="rotate(-90 14 ${SIZE / 2})">${escapeXml(yLabel)}</text>`,
    `<line x1="${x(0)}" y1="${y(0)}" x2="${x(1)}" y2="${y(1)}" stroke="#bbb" stroke-dasharray="4 3"/>`,
    ...body,
    ...keys,
    '</svg>',
  ].join('\n');
}

export interface RocSeries {
  readonly name: string;
  readonly points: readonly RocPoint[];
  readonly auc?: number | null;
}

export function rocSvg(series: readonly RocSeries[], title = 'ROC curves'): string {
  const body: string[] = [];
  const legend: { name: string; colour: string }[] = [];
  series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length]!;
    const path = s.points.map((p, k) => `${k === 0 ? 'M' : 'L'}${x(p.fpr)},${y(p.tpr)}`).join(' ');
    body.push(`<path d="${path}" fill="none" stroke="${colour}" stroke-width="1.6"/>`);
    legend.push({ name: s.auc === undefined || s.auc === null ? s.name : `${s.name} (AUC ${s.auc.toFixed(3)})`, colour });
  });
  return frame(title, 'false positive rate', 'true positive rate', body, legend);
}

export interface ReliabilitySeries {
  readonly name: string;
  readonly bins: readonly ReliabilityBin[];
  readonly ece?: number | null;
}

export function reliabilitySvg(series: readonly ReliabilitySeries[], title = 'Reliability diagram'): string {
  const body: string[] = [];
  const legend: { name: string; colour: string }[] = [];
  series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length]!;
    const filled = s.bins.filter((b) => b.count > 0);
    const total = s.bins.reduce((n, b) => n + b.count, 0) || 1;
    const path = filled.map((b, k) => `${k === 0 ? 'M' : 'L'}${x(b.meanPredicted!)},${y(b.observedRate!)}`).join(' ');
    if (filled.length > 1) body.push(`<path d="${path}" fill="none" stroke="${colour}" stroke-width="1.4"/>`);
    for (const b of filled) {
      // Marker area grows with the bin's share of scenarios.
      const r = 2 + 6 * Math.sqrt(b.count / total);
      body.push(
        `<circle cx="${x(b.meanPredicted!)}" cy="${y(b.observedRate!)}" r="${r.toFixed(1)}" fill="${colour}" fill-opacity="0.6"><title>${b.count} in [${b.lower.toFixed(2)}, ${b.upper.toFixed(2)})</title></circle>`,
      );
    }
    legend.push({ name: s.ece === undefined || s.ece === null ? s.name : `${s.name} (ECE ${s.ece.toFixed(3)})`, colour });
  });
  return frame(title, 'mean predicted probability', 'observed collision rate', body, legend);
}
