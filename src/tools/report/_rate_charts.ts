/**
 * The report's charts of success: each set's rate with its 95 % interval as an error bar, and pass@k
 * and pass^k over k as curves (see `set_stats.ts`). Plain SVG, as the other charts.
 *
 * @module
 */
import { compareStats, type SetStats } from "../trajectories/set_stats.ts";
import type { ReportSet } from "./collect_report.ts";
import { setNames } from "../trajectories/trial_sets.ts";
import { clip, esc, LABEL, svgOpen, WIDTH } from "./_svg.ts";

/** A set as these charts draw it. */
export interface RateSeries {
  label: string;
  colour: string;
  stats: SetStats;
}

/** One colour per set, in order (Okabe and Ito's palette, told apart by most colour-blind readers). */
export const SET_COLOURS = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000"];

/** The colour of set k. */
export function setColour(k: number): string {
  return SET_COLOURS[k % SET_COLOURS.length] ?? "#000";
}

const r2 = (x: number) => Math.round(x * 100) / 100;
const f2 = (x: number) => x.toFixed(2);

/** Room on the right of the error bars for the figures in words. */
const FIGURES = 190;

/** Vertical grid lines and their labels at 0, 0.25, ..., 1 over [x0, x1], from y0 to y1. */
function grid(x0: number, x1: number, y0: number, y1: number, labelY: number): string {
  return [0, 0.25, 0.5, 0.75, 1].map((v) => {
    const x = r2(x0 + v * (x1 - x0));
    const anchor = v === 0 ? "" : v === 1 ? " end" : " mid";
    return `<line x1="${x}" x2="${x}" y1="${y0}" y2="${y1}" class="grid"/>` +
      `<text x="${x}" y="${labelY}" class="muted${anchor}">${v}</text>`;
  }).join("");
}

/**
 * Each set's mean success rate (a dot) and its 95 % interval (a bar with caps), on one axis from 0 to 1,
 * with the figures in words at the right; a set with nothing to estimate says why.
 */
export function rateChart(series: readonly RateSeries[]): string {
  const rowH = 30, top = 6, axis = 18;
  const x0 = LABEL, x1 = WIDTH - FIGURES;
  const height = top + series.length * rowH + axis;
  const out = [svgOpen(WIDTH, height, "Success rate per set, with its 95 % interval", "chart rates")];
  out.push(grid(x0, x1, top, top + series.length * rowH, height - 4));
  const at = (v: number) => r2(x0 + v * (x1 - x0));
  series.forEach((s, i) => {
    const y = top + i * rowH + rowH / 2;
    const st = s.stats;
    out.push(`<text x="0" y="${y + 4}"><title>${esc(s.label)}</title>${esc(clip(s.label, 24))}</text>`);
    if (st.mean === null) {
      out.push(`<text x="${x0}" y="${y + 4}" class="muted">${esc(st.notes.mean ?? "no rate")}</text>`);
      return;
    }
    const method = st.ci95_method === "wilson" ? "Wilson interval" : "mean +- 1.96 SE, clustered by instance";
    const ci = st.ci95 ? `[${f2(st.ci95[0])}, ${f2(st.ci95[1])}]` : "[-]";
    const words = `${f2(st.mean)} ${ci}, ${st.instances} x ${st.trials}`;
    const tip =
      `${s.label}: ${st.metric} ${f2(st.mean)}, 95 % ${ci} (${method}; ${st.instances} instances x ` +
      `${st.trials} trial${st.trials === 1 ? "" : "s"}, ${st.scored} scored, ${st.excluded.length} excluded)`;
    out.push(
      `<g class="rate" data-mean="${st.mean}" data-lo="${st.ci95?.[0] ?? ""}" data-hi="${
        st.ci95?.[1] ?? ""
      }">` +
        `<title>${esc(tip)}</title>`,
    );
    if (st.ci95) {
      const [lo, hi] = [at(st.ci95[0]), at(st.ci95[1])];
      out.push(
        `<line x1="${lo}" x2="${hi}" y1="${y}" y2="${y}" stroke="${s.colour}" stroke-width="2"/>`,
        `<line x1="${lo}" x2="${lo}" y1="${y - 6}" y2="${y + 6}" stroke="${s.colour}" stroke-width="2"/>`,
        `<line x1="${hi}" x2="${hi}" y1="${y - 6}" y2="${y + 6}" stroke="${s.colour}" stroke-width="2"/>`,
      );
    }
    out.push(`<circle cx="${at(st.mean)}" cy="${y}" r="5" fill="${s.colour}"/>`);
    out.push(`<text x="${x1 + 12}" y="${y + 4}">${esc(words)}</text></g>`);
  });
  out.push("</svg>");
  return out.join("");
}

/**
 * pass@k (solid, dots) and pass^k (dashed, squares) over k = 1 .. the most trials of any set, one colour
 * per set; a k no instance of a set has enough scored trials for is left out of its curve.
 */
export function passCurves(series: readonly RateSeries[]): string {
  const kMax = Math.max(1, ...series.map((s) => s.stats.trials));
  const top = 10, plotH = 220, axis = 34, legendH = 20 * series.length + 8;
  const x0 = LABEL, x1 = WIDTH - 20;
  const height = top + plotH + axis + legendH;
  const xAt = (k: number) => r2(kMax === 1 ? (x0 + x1) / 2 : x0 + ((k - 1) / (kMax - 1)) * (x1 - x0));
  const yAt = (v: number) => r2(top + (1 - v) * plotH);
  const out = [svgOpen(WIDTH, height, "pass@k and pass^k over k per set", "chart curves")];
  for (const v of [0, 0.25, 0.5, 0.75, 1]) {
    out.push(
      `<line x1="${x0}" x2="${x1}" y1="${yAt(v)}" y2="${yAt(v)}" class="grid"/>`,
      `<text x="${x0 - 6}" y="${yAt(v) + 4}" class="muted end">${v}</text>`,
    );
  }
  for (let k = 1; k <= kMax; k++) {
    out.push(`<text x="${xAt(k)}" y="${top + plotH + 16}" class="muted mid">${k}</text>`);
  }
  out.push(`<text x="${(x0 + x1) / 2}" y="${top + plotH + 30}" class="muted mid">k (trials drawn)</text>`);
  series.forEach((s, i) => {
    for (
      const [kind, values, dash] of [
        ["pass@k", s.stats.pass_at_k, ""],
        ["pass^k", s.stats.pass_hat_k, ' stroke-dasharray="6 4"'],
      ] as const
    ) {
      const points = Object.entries(values).flatMap((
        [k, v],
      ) => (v === null ? [] : [[Number(k), v] as const]));
      if (!points.length) continue;
      const path = points.map(([k, v], j) => `${j ? "L" : "M"}${xAt(k)} ${yAt(v)}`).join(" ");
      out.push(
        `<g class="curve" data-set="${i}" data-kind="${kind}"><title>${esc(`${s.label}: ${kind}`)}</title>` +
          `<path d="${path}" fill="none" stroke="${s.colour}" stroke-width="2"${dash}/>`,
      );
      for (const [k, v] of points) {
        const tip = `${s.label}: ${kind.replace("k", String(k))} = ${f2(v)}`;
        out.push(
          kind === "pass@k"
            ? `<circle cx="${xAt(k)}" cy="${yAt(v)}" r="4" fill="${s.colour}"><title>${
              esc(tip)
            }</title></circle>`
            : `<rect x="${xAt(k) - 4}" y="${yAt(v) - 4}" width="8" height="8" fill="${s.colour}"><title>${
              esc(tip)
            }</title></rect>`,
        );
      }
      out.push("</g>");
    }
    const ly = top + plotH + axis + 14 + i * 20;
    out.push(
      `<line x1="${x0}" x2="${x0 + 28}" y1="${ly - 4}" y2="${
        ly - 4
      }" stroke="${s.colour}" stroke-width="2"/>`,
      `<line x1="${x0 + 36}" x2="${x0 + 64}" y1="${ly - 4}" y2="${
        ly - 4
      }" stroke="${s.colour}" stroke-width="2" stroke-dasharray="6 4"/>`,
      `<text x="${x0 + 72}" y="${ly}">${esc(clip(s.label, 40))}: pass@k (solid), pass^k (dashed)</text>`,
    );
  });
  out.push("</svg>");
  return out.join("");
}

/**
 * Each set's success rate with its interval, the difference of every other set from the first with its
 * test (the line `claudius compare` ends with), and pass@k / pass^k over k when a set has trials.
 */
export function rateSection(sets: readonly ReportSet[]): string[] {
  const series = sets.flatMap((
    s,
    k,
  ) => (s.stats ? [{ label: s.label, colour: setColour(k), stats: s.stats }] : []));
  if (!series.length) return [];
  const metrics = [...new Set(series.map((s) => s.stats.metric))];
  const what = metrics.length > 1
    ? "resolved where a set has an evaluator's results, else submitted"
    : metrics[0] === "resolved"
    ? "resolved, by the evaluator's results in each trial's results.json"
    : "submitted (the run ended Submitted; put an evaluator's results in each trial's results.json to count resolved)";
  const out = [
    `<h2 id="success">Success rate</h2>`,
    `<p class="note">Success: ${
      esc(what)
    }. The mean over instances of each instance's success over its trials, ` +
    `with its 95 % interval (Wilson for one trial per instance, else 1.96 standard errors clustered by ` +
    `instance). Runs that ended on the infrastructure count in no rate. Formulas: docs/statistics.md.</p>`,
    rateChart(series),
    ...sets.filter((s) => s.duplicates).map((s) =>
      `<p class="note">${
        esc(s.name)
      }: ${s.duplicates} instances appear more than once in one trial and only ` +
      `the first counts: give each arm (or batch) as a PATH of its own.</p>`
    ),
  ];
  // In a line to paste, sets told apart by their paths go by the part of the path that tells them apart.
  const short = sets.every((s) => s.label === s.name) ? setNames(sets.map((s) => s.name)) : undefined;
  const named = sets.map((s, k) => ({ ...s, label: short?.[k] ?? s.label }));
  const [first, ...others] = named;
  const base = first?.outcomes && first.stats
    ? { label: first.label, outcomes: first.outcomes, metric: first.stats.metric, trials: first.stats.trials }
    : undefined;
  const lines = base
    ? others.flatMap((s) =>
      s.outcomes && s.stats
        ? [
          compareStats(base, {
            label: s.label,
            outcomes: s.outcomes,
            metric: s.stats.metric,
            trials: s.stats.trials,
          }).line,
        ]
        : []
    )
    : [];
  if (lines.length) {
    out.push(`<ul class="differences">${lines.map((l) => `<li>${esc(l)}</li>`).join("")}</ul>`);
  }
  out.push(`<h2 id="pass-at-k">pass@k and pass^k</h2>`);
  if (series.some((s) => s.stats.trials > 1)) {
    out.push(
      `<p class="note">Over k trials drawn from each instance's: pass@k, the chance that at least one succeeds ` +
        `(Chen et al. 2021), and pass^k, the chance that all do (Yao et al. 2024), averaged over instances.</p>`,
      passCurves(series),
    );
  } else {
    out.push(
      `<p class="note">One trial per instance: pass@k and pass^k need repeated trials (claudius batch --trials K).</p>`,
    );
  }
  return out;
}
