/**
 * The report's charts as inline SVG strings: horizontal 100% stacked bars, histograms in small
 * multiples, stacked columns, and the one-line *strip* of a trajectory. Plain SVG written here
 * (see the README's Dependencies table for why no charting library). Every text that may come from
 * a trajectory goes through {@link esc}.
 *
 * @module
 */
import { median } from "../../lib/median.ts";
import { escapeControls } from "../../lib/safe_text.ts";

/** `n` rounded, with thousands separators: `12,345`. */
export function fmtInt(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** A share as a percentage with one decimal: `12.5%`. */
export function fmtPct(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

/**
 * Escape text for HTML and SVG content and attribute values (quotes included); control and bidi
 * characters are shown as escapes (`\x1b`, `\u{202e}`), as in the terminal tools.
 */
export function esc(text: string): string {
  return escapeControls(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A value shown in a stacked bar: its key (legend), colour and amount. */
export interface Part {
  key: string;
  colour: string;
  value: number;
}

/** One bar of a stacked chart. */
export interface StackedRow {
  label: string;
  parts: Part[];
}

/** Width of every chart, and of the label column at its left. */
export const WIDTH = 760;
export const LABEL = 170;
const FONT = 12;

/** Cut `text` to its last `max` characters behind an ellipsis (paths differ at their ends). */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : "…" + text.slice(text.length - max + 1);
}

/** Round to 2 decimals for compact coordinates. */
const r2 = (x: number) => Math.round(x * 100) / 100;

/**
 * Horizontal 100% stacked bars, one per row, with a legend of every key.
 *
 * @param rows the bars (label and parts)
 * @param title the chart's accessible name
 * @param tip formats a part's tooltip from its value and share
 */
export function stackedBars(
  rows: readonly StackedRow[],
  title: string,
  tip: (part: Part, share: number) => string,
): string {
  const barH = 24, gap = 8, top = 4;
  const keys = legendKeys(rows.map((r) => r.parts));
  const legendY = top + rows.length * (barH + gap) + 6;
  const height = legendY + 20;
  const out: string[] = [svgOpen(WIDTH, height, title, "chart stacked")];
  rows.forEach((row, i) => {
    const y = top + i * (barH + gap);
    const total = row.parts.reduce((n, p) => n + p.value, 0);
    out.push(
      `<text x="0" y="${y + barH / 2 + 4}"><title>${esc(row.label)}</title>${
        esc(clip(row.label, 24))
      }</text>`,
    );
    let x = LABEL;
    const span = WIDTH - LABEL;
    if (total === 0) {
      out.push(`<text x="${LABEL}" y="${y + barH / 2 + 4}" class="muted">none</text>`);
      return;
    }
    for (const p of row.parts) {
      if (p.value <= 0) continue;
      const share = p.value / total;
      const w = share * span;
      out.push(
        `<rect x="${r2(x)}" y="${y}" width="${r2(w)}" height="${barH}" fill="${p.colour}">` +
          `<title>${esc(`${row.label}: ${tip(p, share)}`)}</title></rect>`,
      );
      if (w >= 40) {
        out.push(`<text x="${r2(x + w / 2)}" y="${y + barH / 2 + 4}" class="in">${fmtPct(share)}</text>`);
      }
      x += w;
    }
  });
  out.push(legend(keys, LABEL, legendY));
  out.push("</svg>");
  return out.join("");
}

/** The keys with a value somewhere, in the order of the parts lists (all lists share one order). */
function legendKeys(lists: readonly (readonly Part[])[]): [string, string][] {
  const used = new Set(lists.flatMap((parts) => parts.filter((p) => p.value > 0).map((p) => p.key)));
  const keys = new Map<string, string>();
  for (const parts of lists) for (const p of parts) if (used.has(p.key)) keys.set(p.key, p.colour);
  return [...keys];
}

/** A legend row of colour swatches. */
function legend(items: [string, string][], x0: number, y: number): string {
  let x = x0;
  return items.map(([key, colour]) => {
    const s = `<rect x="${x}" y="${y}" width="12" height="12" fill="${colour}"/>` +
      `<text x="${x + 16}" y="${y + 10}">${esc(key)}</text>`;
    x += 28 + key.length * 7;
    return s;
  }).join("");
}

/** The opening tag of a chart's SVG, with its accessible title. */
export function svgOpen(width: number, height: number, title: string, cls: string): string {
  return `<svg class="${cls}" role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ` +
    `xmlns="http://www.w3.org/2000/svg" font-size="${FONT}"><title>${esc(title)}</title>`;
}

/** A round step size near `span / target` (1, 2 or 5 times a power of ten). */
export function niceStep(span: number, target: number, integer: boolean): number {
  if (!(span > 0)) return 1;
  const raw = span / target;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p;
  return integer ? Math.max(1, Math.ceil(step)) : step;
}

/** One panel of a histogram: a set's name and values. */
export interface Series {
  name: string;
  values: readonly number[];
}

/**
 * Histograms of several series on shared bins, one panel per series, with the median marked.
 *
 * @param series the values of each set
 * @param title the chart's accessible name
 * @param format formats a bin edge or a median
 * @param integer the values are whole numbers (bins at least 1 wide)
 */
export function histograms(
  series: readonly Series[],
  title: string,
  format: (x: number) => string,
  integer: boolean,
): string {
  const all = series.flatMap((s) => s.values);
  // reduce, not Math.min(...all): one argument per value overflows the stack past ~125k values.
  const min = all.length ? all.reduce((a, b) => Math.min(a, b)) : 0;
  const max = all.length ? all.reduce((a, b) => Math.max(a, b)) : 1;
  const step = niceStep(max - min, 24, integer);
  const lo = Math.floor(min / step) * step;
  const nBins = Math.max(1, Math.floor((max - lo) / step) + 1);
  const panelH = 84, plotH = 56, axis = 16, gap = 10;
  const plotW = WIDTH - LABEL;
  const binW = plotW / nBins;
  const height = series.length * (panelH + gap);
  const out: string[] = [svgOpen(WIDTH, height, title, "chart histogram")];
  series.forEach((s, i) => {
    const y0 = i * (panelH + gap);
    const counts = new Array<number>(nBins).fill(0);
    for (const v of s.values) counts[Math.min(nBins - 1, Math.floor((v - lo) / step))]!++;
    const peak = Math.max(1, ...counts);
    const med = median(s.values);
    out.push(
      `<text x="0" y="${y0 + 16}"><title>${esc(s.name)}</title>${esc(clip(s.name, 24))}</text>`,
      `<text x="0" y="${y0 + 32}" class="muted">n = ${fmtInt(s.values.length)}</text>`,
      `<text x="0" y="${y0 + 48}" class="muted">median ${s.values.length ? esc(format(med)) : "-"}</text>`,
      `<text x="0" y="${y0 + 64}" class="muted">tallest bar ${peak}</text>`,
      `<line x1="${LABEL}" x2="${WIDTH}" y1="${y0 + plotH}" y2="${y0 + plotH}" class="axis"/>`,
    );
    counts.forEach((c, b) => {
      if (!c) return;
      const h = (c / peak) * (plotH - 8);
      const from = lo + b * step;
      const to = integer && step === 1 ? "" : `–${format(from + step)}`;
      out.push(
        `<rect class="bar" x="${r2(LABEL + b * binW + 0.5)}" y="${r2(y0 + plotH - h)}" width="${
          r2(Math.max(1, binW - 1))
        }" height="${r2(h)}"><title>${esc(`${format(from)}${to}: ${c}`)}</title></rect>`,
      );
    });
    if (s.values.length) {
      const mx = LABEL + ((med - lo) / step) * binW;
      out.push(`<line x1="${r2(mx)}" x2="${r2(mx)}" y1="${y0 + 4}" y2="${y0 + plotH}" class="median"/>`);
    }
    const every = Math.ceil(nBins / 6);
    for (let b = 0; b <= nBins; b += every) {
      const anchor = b === 0 ? "" : b === nBins ? " end" : " mid";
      out.push(
        `<text x="${r2(LABEL + b * binW)}" y="${y0 + plotH + axis - 2}" class="muted${anchor}">${
          esc(format(lo + b * step))
        }</text>`,
      );
    }
  });
  out.push("</svg>");
  return out.join("");
}

/** One column group of {@link stackedColumns}: a set's name and its columns' parts. */
export interface ColumnSeries {
  name: string;
  columns: Part[][];
}

/**
 * Rows of 100% stacked columns (one row per series), e.g. action types over a run's course.
 *
 * @param series each set's columns
 * @param title the chart's accessible name
 * @param columnLabel names column `i` of `n` in tooltips
 */
export function stackedColumns(
  series: readonly ColumnSeries[],
  title: string,
  columnLabel: (i: number, n: number) => string,
): string {
  const rowH = 64, gap = 10, axis = 16;
  const height = series.length * (rowH + gap) + axis + 20;
  const out: string[] = [svgOpen(WIDTH, height, title, "chart columns")];
  series.forEach((s, i) => {
    const y0 = i * (rowH + gap);
    const n = s.columns.length;
    const w = (WIDTH - LABEL) / Math.max(1, n);
    out.push(
      `<text x="0" y="${y0 + rowH / 2 + 4}"><title>${esc(s.name)}</title>${esc(clip(s.name, 24))}</text>`,
    );
    s.columns.forEach((parts, c) => {
      const total = parts.reduce((a, p) => a + p.value, 0);
      let y = y0 + rowH;
      for (const p of parts) {
        if (!total || p.value <= 0) continue;
        const h = (p.value / total) * rowH;
        y -= h;
        out.push(
          `<rect x="${r2(LABEL + c * w)}" y="${r2(y)}" width="${r2(w - 1)}" height="${
            r2(h)
          }" fill="${p.colour}">` +
            `<title>${
              esc(`${s.name}, ${columnLabel(c, n)}: ${p.key} ${fmtPct(p.value / total)}`)
            }</title></rect>`,
        );
      }
    });
  });
  const yAxis = series.length * (rowH + gap);
  out.push(
    `<text x="${LABEL}" y="${yAxis + 10}" class="muted">start of run</text>`,
    `<text x="${WIDTH}" y="${yAxis + 10}" class="muted end">end of run</text>`,
  );
  out.push(legend(legendKeys(series.flatMap((s) => s.columns)), LABEL, yAxis + axis + 2), "</svg>");
  return out.join("");
}

/** Colour of each shape code (lower case); see `SHAPE_CODES`. */
export const SHAPE_COLOURS: Record<string, string> = {
  w: "#d55e00",
  e: "#0072b2",
  p: "#cc79a7",
  r: "#009e73",
  o: "#b8b8b8",
  f: "#111111",
  "-": "#eeeeee",
};

/** The colour of a shape code (lower case): {@link SHAPE_COLOURS}'s, grey for a code it does not know. */
export function shapeColour(code: string): string {
  return SHAPE_COLOURS[code] ?? "#888";
}

/** Colour of the timeout mark under a step. */
export const TIMEOUT_COLOUR = "#e41a1c";

/**
 * A trajectory's strip: one cell per step coloured by its shape code, format errors dark, a red
 * mark under steps that timed out. All strips of a report share `maxSteps`, so lengths compare.
 *
 * @param shape one shape code per step (upper case = timed out)
 * @param maxSteps the longest trajectory's steps
 */
export function strip(shape: string, maxSteps: number): string {
  const paths = new Map<string, string>();
  let marks = "";
  for (let i = 0; i < shape.length;) {
    const lower = shape.charAt(i).toLowerCase();
    let j = i + 1;
    while (j < shape.length && shape.charAt(j).toLowerCase() === lower) j++;
    paths.set(lower, (paths.get(lower) ?? "") + `M${i} 0h${j - i}v7h${i - j}z`);
    for (let k = i; k < j; k++) if (shape[k] !== lower) marks += `M${k} 7.5h1v2.5h-1z`;
    i = j;
  }
  let body = "";
  for (const [code, d] of paths) body += `<path fill="${shapeColour(code)}" d="${d}"/>`;
  if (marks) body += `<path fill="${TIMEOUT_COLOUR}" d="${marks}"/>`;
  return `<svg class="strip" viewBox="0 0 ${Math.max(1, maxSteps)} 10" preserveAspectRatio="none" ` +
    `data-shape="${esc(shape)}" xmlns="http://www.w3.org/2000/svg">${body}</svg>`;
}
