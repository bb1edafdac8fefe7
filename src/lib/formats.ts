/**
 * The number formats every report and run shows: dollars, counts, seconds, shares.
 *
 * @module
 */

/** Dollars: `$0.0123`, `$1.23`, `$1,234`. */
export function fmtCost(x: number): string {
  if (x === 0) return "$0";
  if (x < 0.01) return `$${x.toFixed(4)}`;
  if (x < 1000) return `$${x.toFixed(2)}`;
  return `$${Math.round(x).toLocaleString("en")}`;
}

/** A count in k / M: `950`, `12.3k`, `4.56M`. */
export function fmtCount(x: number): string {
  if (x < 1000) return String(Math.round(x));
  if (x < 1e6) return `${(x / 1e3).toFixed(x < 1e4 ? 2 : 1)}k`;
  return `${(x / 1e6).toFixed(x < 1e7 ? 2 : 1)}M`;
}

/** Seconds as `4.2s`, `12m05s`, `3h07m`. */
export function fmtSeconds(x: number): string {
  if (x < 60) return `${x.toFixed(x < 10 ? 1 : 0)}s`;
  const s = Math.round(x);
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** A share as a whole percentage, `-` when there is nothing to share. */
export function fmtShare(part: number, whole: number): string {
  return whole ? `${Math.round((100 * part) / whole)}%` : "-";
}
