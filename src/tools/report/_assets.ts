/**
 * The report page's style sheet and script, inlined into the HTML (the page loads nothing). The
 * script only sorts and filters the table and names the step under the pointer on a strip; the
 * charts are SVG and read the same without it.
 *
 * @module
 */
import { SHAPE_COLOURS, TIMEOUT_COLOUR } from "./_svg.ts";

/** The CSS class suffix of a shape code's legend swatch. */
export function swatchClass(code: string): string {
  return code === "-" ? "none" : code;
}

/** The page's CSS. */
export const STYLE = `
:root { color-scheme: light; --fg: #1d1d1f; --muted: #6e6e73; --line: #d8d8dc; --head: #f4f4f6; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
  margin: 0 auto; max-width: 1480px; padding: 24px; }
.scroll { overflow-x: auto; }
svg.chart { max-width: 100%; height: auto; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 32px 0 4px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
p.note { color: var(--muted); margin: 2px 0 12px; max-width: 80ch; }
svg.chart text { fill: var(--fg); }
svg.chart text.muted { fill: var(--muted); }
svg.chart text.in { fill: #fff; text-anchor: middle; font-weight: 600; }
svg.chart text.end { text-anchor: end; }
svg.chart text.mid { text-anchor: middle; }
svg.chart .bar { fill: #4e79a7; }
svg.chart .axis { stroke: #999; }
svg.chart .median { stroke: #e15759; stroke-width: 2; stroke-dasharray: 4 2; }
svg.chart .grid { stroke: #e4e4e8; }
ul.differences { font-family: ui-monospace, monospace; font-size: 13px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 8px; border-bottom: 1px solid var(--line); text-align: left; white-space: nowrap; }
td.n, th.n { text-align: right; }
thead th { background: var(--head); position: sticky; top: 0; z-index: 1; white-space: normal;
  vertical-align: bottom; }
.key { white-space: nowrap; }
thead th[data-sort] { cursor: pointer; user-select: none; }
thead th[aria-sort="ascending"]::after { content: " \\25B2"; font-size: 10px; }
thead th[aria-sort="descending"]::after { content: " \\25BC"; font-size: 10px; }
td.id, td.status { max-width: 200px; overflow: hidden; text-overflow: ellipsis; }
#summary td.where { white-space: normal; overflow-wrap: break-word; max-width: 22em; }
#summary td.config { white-space: normal; max-width: 18em; }
svg.strip { display: block; width: 300px; height: 12px; shape-rendering: crispEdges; }
.swatch { display: inline-block; width: 12px; height: 12px; vertical-align: -1px; margin: 0 4px 0 12px; }
.swatch.tmo { height: 4px; vertical-align: 1px; }
.status-Submitted { color: #00794f; }
.badge { color: var(--muted); font-size: 12px; }
#controls { margin: 8px 0; }
#filter { font: inherit; padding: 3px 6px; width: 320px; }
#tip { position: absolute; background: #222; color: #fff; padding: 2px 6px; border-radius: 3px;
  font-size: 12px; pointer-events: none; }
ul.failures { color: #a00; }
.swatch.tmo { background: ${TIMEOUT_COLOUR}; }
${
  Object.entries(SHAPE_COLOURS).map(([code, colour]) => `.sw-${swatchClass(code)} { background: ${colour}; }`)
    .join("\n")
}
`;

/** The page's script (plain ES2020, no globals left behind). */
export const SCRIPT = `
(() => {
  const table = document.getElementById("trajectories");
  if (!table) return;
  const body = table.tBodies[0];
  const heads = Array.from(table.tHead.rows[0].cells);
  const collator = new Intl.Collator("en", { numeric: true });
  let sorted = -1, dir = 1;
  heads.forEach((th, col) => {
    if (!th.dataset.sort) return;
    th.tabIndex = 0;
    const sort = () => {
      const num = th.dataset.sort === "num";
      dir = sorted === col ? -dir : num ? -1 : 1;
      sorted = col;
      const rows = Array.from(body.rows);
      rows.sort((a, b) => {
        const x = a.cells[col], y = b.cells[col];
        const c = num ? Number(x.dataset.v) - Number(y.dataset.v) : collator.compare(x.textContent, y.textContent);
        return c * dir || Number(a.dataset.i) - Number(b.dataset.i);
      });
      body.append(...rows);
      heads.forEach((h) => h.removeAttribute("aria-sort"));
      th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
    };
    th.addEventListener("click", sort);
    th.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); } });
  });
  const filter = document.getElementById("filter");
  const shown = document.getElementById("shown");
  filter.addEventListener("input", () => {
    const q = filter.value.trim().toLowerCase();
    let n = 0;
    for (const r of body.rows) {
      const show = !q || r.dataset.text.includes(q);
      r.hidden = !show;
      if (show) n++;
    }
    shown.textContent = String(n);
  });
  const tip = document.getElementById("tip");
  const names = { w: "write", e: "execute", p: "probe", r: "read", o: "other", f: "format error", "-": "no command" };
  body.addEventListener("mousemove", (e) => {
    const svg = e.target instanceof Element ? e.target.closest("svg.strip") : null;
    const box = svg && svg.getBoundingClientRect();
    const i = svg ? Math.floor(((e.clientX - box.left) / box.width) * svg.viewBox.baseVal.width) : -1;
    const c = svg ? svg.dataset.shape[i] : undefined;
    if (c === undefined) { tip.hidden = true; return; }
    const lower = c.toLowerCase();
    tip.textContent = "step " + (i + 1) + ": " + names[lower] + (c !== lower ? ", timed out" : "");
    tip.style.left = e.pageX + 12 + "px";
    tip.style.top = e.pageY + 14 + "px";
    tip.hidden = false;
  });
  body.addEventListener("mouseleave", () => { tip.hidden = true; });
  document.body.dataset.ready = "1";
})();
`;
