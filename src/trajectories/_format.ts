/**
 * Figures as people read them, shared by the report and the inspector.
 *
 * @module
 */

/** `n` rounded, with thousands separators: `12,345`. */
export function fmtInt(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** A count in a few characters: `950`, `12.3k`, `1.2M`. */
export function fmtCompact(n: number): string {
  if (Math.abs(n) < 1000) return String(Math.round(n));
  if (Math.abs(n) < 1e6) return `${(n / 1e3).toFixed(n < 1e4 ? 1 : 0)}k`;
  return `${(n / 1e6).toFixed(n < 1e7 ? 1 : 0)}M`;
}

/** Dollars: two significant digits below $1 (`$0.0012`), else cents (`$12.30`). */
export function fmtCost(x: number): string {
  if (x === 0) return "$0";
  if (Math.abs(x) >= 1) return `$${x.toFixed(2)}`;
  return `$${x.toPrecision(2)}`;
}

/** A share as a percentage with one decimal: `12.5%`. */
export function fmtPct(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

/** Seconds as `1.2 s`, `3m04s` or `2h05m`. */
export function fmtSeconds(s: number): string {
  if (s < 60) return `${s.toFixed(1)} s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(Math.floor(s % 60)).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}
