/**
 * The report as one self-contained HTML page: inline SVG charts, an inline style sheet and script,
 * and a Content-Security-Policy that lets the page load nothing and run only its own script (by
 * hash), so text from trajectories, escaped everywhere, stays inert even if an escape were missed.
 *
 * @module
 */
import { ACTION_TYPES } from "../trajectories/action_types.ts";
import { fmtCost, fmtSeconds } from "../../lib/formats.ts";
import { SCRIPT, STYLE, swatchClass } from "./_assets.ts";
import {
  clip,
  type ColumnSeries,
  esc,
  fmtInt,
  fmtPct,
  histograms,
  type Part,
  shapeColour,
  stackedBars,
  stackedColumns,
  strip,
} from "./_svg.ts";
import type { ReportData, ReportSet } from "./collect_report.ts";
import { rateSection } from "./_rate_charts.ts";
import { median } from "../../lib/median.ts";
import { type ReportTrajectory, SHAPE_CODES } from "../trajectories/report_trajectory.ts";

/** Options of {@link renderReport}. */
export interface RenderOptions {
  /** The page title. Default "claudius report". */
  title?: string;
  /** When the report was made (shown in the header). */
  generatedAt: Date;
  /** claudius's version (shown in the header). */
  version: string;
}

/** Columns of the "over the course of a run" chart. */
const PROGRESS_BINS = 20;

const STATUS_COLOURS: Record<string, string> = {
  Submitted: "#009e73",
  LimitsExceeded: "#e69f00",
  TimeExceeded: "#56b4e9",
  RepeatedFormatError: "#cc79a7",
  Interrupted: "#999999",
  Terminated: "#666666",
};
const OTHER_STATUS_COLOURS = ["#d55e00", "#0072b2", "#f0e442", "#8c564b", "#17becf", "#bcbd22"];

/** How an exit status reads in the report. */
function statusLabel(status: string): string {
  return status === "" ? "(not ended)" : status;
}

/** Shape codes of the action types and format errors, in legend order. */
const SHAPE_KEYS: [string, string][] = [
  ...ACTION_TYPES.map((t): [string, string] => [t, SHAPE_CODES[t]]),
  ["format error", SHAPE_CODES.format_error],
];

/**
 * Render the report page.
 *
 * @example
 * ```ts ignore
 * import { collectReport } from "./collect_report.ts";
 * import { renderReport } from "./render_report.ts";
 * const html = await renderReport(await collectReport(["runs/"]), { generatedAt: new Date(), version: "0.1.0" });
 * ```
 * @param data the sets of trajectories
 * @param options title, time and version for the header
 * @returns the whole HTML document
 */
export async function renderReport(data: ReportData, options: RenderOptions): Promise<string> {
  const title = options.title ?? "claudius report";
  const all = data.sets.flatMap((s) => s.trajectories);
  const several = data.sets.length > 1;
  const failures = data.sets.flatMap((s) => s.failures);
  const csp = await contentPolicy();
  const sections = [
    `<h1>${esc(title)}</h1>`,
    `<p class="note">${fmtInt(all.length)} trajector${all.length === 1 ? "y" : "ies"}` +
    (several ? ` in ${data.sets.length} sets` : "") +
    `${failures.length ? `, ${failures.length} unreadable` : ""}${resumedNote(data.sets)}; made ${
      esc(options.generatedAt.toISOString().replace(/\.\d+Z$/, "Z"))
    } by claudius ${esc(options.version)}. Action types are claudius's own taxonomy (see its README); ` +
    `submitted: the run ended Submitted, as claudius stats and compare count it.</p>`,
    summary(data.sets),
  ];
  if (all.length) sections.push(...charts(data.sets, several));
  if (failures.length) {
    sections.push(
      `<h2 id="unreadable">Files that could not be read</h2><ul class="failures">` +
        failures.map((f) => `<li>${esc(f.message)}</li>`).join("") + "</ul>",
    );
  }
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${sections.join("\n")}
<div id="tip" hidden></div>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

/** The page's Content-Security-Policy: nothing but its own style and script, and data: images. */
async function contentPolicy(): Promise<string> {
  return [
    "default-src 'none'",
    `style-src '${await sha256(STYLE)}'`,
    `script-src '${await sha256(SCRIPT)}'`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

/** The charts and the table of trajectories, each under its heading. */
function charts(sets: readonly ReportSet[], several: boolean): string[] {
  return [
    ...rateSection(sets),
    `<h2 id="exit-statuses">Exit statuses</h2>`,
    exitStatusChart(sets),
    `<h2 id="action-types">Action types</h2>`,
    `<p class="note">Share of the tool calls by primary action type (write &gt; execute &gt; probe &gt; ` +
    `read &gt; other).</p>`,
    actionTypeChart(sets),
    `<h2 id="over-the-run">Action types over the course of a run</h2>`,
    `<p class="note">Each trajectory's steps in ${PROGRESS_BINS} equal parts from its start to its end; ` +
    `each column is the mix of the steps' primary types in that part, format errors included.</p>`,
    progressChart(sets),
    `<h2 id="steps">Steps per trajectory</h2>`,
    `<p class="note">Model turns, format errors included; the dashed line is the median.</p>`,
    histograms(
      sets.map((s) => ({ name: s.label, values: s.trajectories.map((t) => t.steps) })),
      "Steps per trajectory",
      (x) => fmtInt(x),
      true,
    ),
    `<h2 id="cost">Cost per trajectory</h2>`,
    histograms(
      sets.map((s) => ({ name: s.label, values: s.trajectories.map((t) => t.cost) })),
      "Cost per trajectory",
      fmtCost,
      false,
    ),
    `<h2 id="trajectories-heading">Trajectories</h2>`,
    trajectoryTable(sets, several),
  ];
}

/** `'sha256-<base64>'` of a script or style element's text, for the CSP. */
async function sha256(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return `sha256-${btoa(String.fromCharCode(...digest))}`;
}

function summary(sets: readonly ReportSet[]): string {
  const head = ["set", "model", "config", "trajectories", "submitted", "steps (median)", "cost (total)"]
    .concat(["cost (median)", "format errors", "timeouts", "unreadable"]);
  const words = 3; // the columns of words (left-aligned)
  const rows = sets.map((s) => {
    const t = s.trajectories;
    const sum = (f: (x: ReportTrajectory) => number) => t.reduce((n, x) => n + f(x), 0);
    const submitted = t.filter((x) => x.submitted).length;
    // A path breaks after its slashes, not inside a directory's name.
    return `<tr><td class="where">${esc(s.name).replaceAll("/", "/<wbr>")}</td><td>${
      esc(s.model || "-")
    }</td><td class="config">${esc(s.config || "-")}</td><td class="n">${fmtInt(t.length)}</td>` +
      `<td class="n">${fmtInt(submitted)}${t.length ? ` (${fmtPct(submitted / t.length)})` : ""}</td>` +
      `<td class="n">${fmtInt(median(t.map((x) => x.steps)))}</td>` +
      `<td class="n">${fmtCost(sum((x) => x.cost))}</td>` +
      `<td class="n">${fmtCost(median(t.map((x) => x.cost)))}</td>` +
      `<td class="n">${fmtInt(sum((x) => x.formatErrors))}</td>` +
      `<td class="n">${fmtInt(sum((x) => x.timeouts))}</td>` +
      `<td class="n">${fmtInt(s.failures.length)}</td></tr>`;
  });
  return `<table id="summary"><thead><tr>${
    head.map((h, i) => `<th${i >= words ? ' class="n"' : ""}>${h}</th>`).join("")
  }</tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

function exitStatusChart(sets: readonly ReportSet[]): string {
  const bars = sets.map((s) => {
    const counts = new Map<string, number>();
    for (const t of s.trajectories) counts.set(t.exitStatus, (counts.get(t.exitStatus) ?? 0) + 1);
    return { label: s.label, counts };
  });
  const totals = new Map<string, number>();
  for (const { counts } of bars) for (const [k, v] of counts) totals.set(k, (totals.get(k) ?? 0) + v);
  const statuses = [...totals].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k]) => k);
  let other = 0;
  const palette = statuses.map((status) => ({
    status,
    colour: STATUS_COLOURS[status] ?? OTHER_STATUS_COLOURS.at(other++ % OTHER_STATUS_COLOURS.length) ??
      "#888",
  }));
  return stackedBars(
    bars.map(({ label, counts }) => ({
      label,
      parts: palette.map(({ status, colour }) => ({
        key: statusLabel(status),
        colour,
        value: counts.get(status) ?? 0,
      })),
    })),
    "Exit statuses per set",
    (p, share) => `${p.key} ${fmtInt(p.value)} (${fmtPct(share)})`,
  );
}

function actionTypeChart(sets: readonly ReportSet[]): string {
  return stackedBars(
    sets.map((s) => ({
      label: s.label,
      parts: ACTION_TYPES.map((type) => ({
        key: type,
        colour: shapeColour(SHAPE_CODES[type]),
        value: s.trajectories.reduce((n, t) => n + t.actionTypes[type], 0),
      })),
    })),
    "Action-type shares of the tool calls per set",
    (p, share) => `${p.key} ${fmtPct(share)} (${fmtInt(p.value)} calls)`,
  );
}

function progressChart(sets: readonly ReportSet[]): string {
  const series: ColumnSeries[] = sets.map((s) => {
    const bins = Array.from({ length: PROGRESS_BINS }, () => new Map<string, number>());
    for (const t of s.trajectories) {
      const n = t.shape.length;
      for (let i = 0; i < n; i++) {
        const code = t.shape.charAt(i).toLowerCase();
        const bin = bins[Math.min(PROGRESS_BINS - 1, Math.floor((i / n) * PROGRESS_BINS))];
        if (code === SHAPE_CODES.none || bin === undefined) continue;
        bin.set(code, (bin.get(code) ?? 0) + 1);
      }
    }
    return {
      name: s.label,
      columns: bins.map((bin) =>
        SHAPE_KEYS.map(([key, code]): Part => ({
          key,
          colour: shapeColour(code),
          value: bin.get(code) ?? 0,
        }))
      ),
    };
  });
  return stackedColumns(
    series,
    "Primary action type of the steps over the course of a run",
    (i, n) => `${Math.round((i / n) * 100)}–${Math.round(((i + 1) / n) * 100)}% of the run`,
  );
}

function trajectoryTable(sets: readonly ReportSet[], several: boolean): string {
  const all = sets.flatMap((s) => s.trajectories);
  const maxSteps = Math.max(1, ...all.map((t) => t.shape.length));
  const legend =
    SHAPE_KEYS.map(([key, code]) =>
      `<span class="key"><span class="swatch sw-${swatchClass(code)}"></span>${key}</span>`
    ).join(" ") + ` <span class="key"><span class="swatch tmo"></span>timed out</span>`;
  type Col = [name: string, sort: "num" | "text" | "", right: boolean];
  const cols: Col[] = [
    ["#", "num", true],
    ...(several ? [["set", "text", false] as Col] : []),
    ["instance", "text", false],
    ["exit status", "text", false],
    ["shape (one cell per step)", "", false],
    ["steps", "num", true],
    ["format errors", "num", true],
    ["timeouts", "num", true],
    ["cost", "num", true],
    ["tokens in / out", "num", true],
    ["wall time", "num", true],
    ["submitted", "text", false],
  ];
  const head = cols.map(([name, sort, n]) =>
    `<th${n ? ' class="n"' : ""}${sort ? ` data-sort="${sort}"` : ""}>${esc(name)}</th>`
  ).join("");
  const rows = all.map((t, i) => {
    const { label: set, name: where } = sets[t.set]!;
    const id = t.trial ? `${t.trial}/${t.instanceId}` : t.instanceId;
    const text = `${id} ${statusLabel(t.exitStatus)} ${several ? `${set} ${where}` : ""} ${t.path}`
      .toLowerCase();
    const num = (v: number, shown: string) => `<td class="n" data-v="${v}">${shown}</td>`;
    return `<tr data-i="${i}" data-text="${esc(text)}">` + num(i + 1, String(i + 1)) +
      (several ? `<td class="set" title="${esc(where)}">${esc(clip(set, 26))}</td>` : "") +
      `<td class="id" title="${esc(t.path)}">${esc(id)}${
        t.repaired ? ' <span class="badge">(repaired)</span>' : ""
      }</td>` +
      `<td class="status status-${esc(t.exitStatus.replace(/[^\w-]/g, "_"))}" title="${
        esc(statusLabel(t.exitStatus))
      }">` +
      `${esc(statusLabel(t.exitStatus))}</td>` +
      `<td>${strip(t.shape, maxSteps)}</td>` +
      num(t.steps, fmtInt(t.steps)) + num(t.formatErrors, fmtInt(t.formatErrors)) +
      num(t.timeouts, fmtInt(t.timeouts)) + num(t.cost, fmtCost(t.cost)) +
      num(t.promptTokens, `${fmtInt(t.promptTokens)} / ${fmtInt(t.completionTokens)}`) +
      num(t.wallSeconds, fmtSeconds(t.wallSeconds)) +
      `<td title="${fmtInt(t.submissionBytes)} bytes">${t.submitted ? "yes" : "no"}</td></tr>`;
  });
  return `<p class="note">Click a column to sort; type to filter by instance, status, set or path. ` +
    `Shape: ${legend}.</p>` +
    `<div id="controls"><input id="filter" type="search" placeholder="filter" aria-label="filter"> ` +
    `<span id="shown">${all.length}</span> shown</div>` +
    `<div class="scroll"><table id="trajectories"><thead><tr>${head}</tr></thead><tbody>${
      rows.join("")
    }</tbody></table></div>`;
}

/** `, N resumed later (left out: ...)` when a set holds trajectories another one resumed. */
function resumedNote(sets: readonly ReportSet[]): string {
  const n = sets.reduce((sum, s) => sum + (s.superseded ?? 0), 0);
  return n ? `, ${fmtInt(n)} more resumed later (left out: their resume counts them)` : "";
}
