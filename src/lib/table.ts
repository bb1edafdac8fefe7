/**
 * Plain-text tables and CSV for the trajectory tools (their number formats: `formats.ts`).
 *
 * @module
 */
import { safeText, textWidth } from "./text.ts";

/** A column: its header and whether it is right-aligned (numbers). */
export interface Column {
  header: string;
  right?: boolean;
}

/**
 * Lay out rows under headers, columns padded to their widest cell, two spaces apart; a rule under
 * the header and before the last row when `totalRow` is set. Cells come from trajectories (ids,
 * statuses): control characters and newlines are shown escaped, and widths are terminal cells.
 */
export function renderTable(
  columns: readonly Column[],
  cells: readonly string[][],
  totalRow = false,
): string {
  const rows = cells.map((r) => r.map(safeText));
  const widths = columns.map((c, i) => Math.max(width(c.header), ...rows.map((r) => width(r[i] ?? ""))));
  const line = (cells: readonly string[]) =>
    cells.map((cell, i) => {
      const pad = " ".repeat(widths[i]! - width(cell));
      return columns[i]!.right ? pad + cell : cell + pad;
    }).join("  ").trimEnd();
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  const body = rows.map(line);
  if (totalRow && body.length > 1) body.splice(body.length - 1, 0, rule);
  return [line(columns.map((c) => c.header)), rule, ...body].join("\n");
}

const width = textWidth;

/** One CSV line (RFC 4180 quoting). */
export function csvLine(values: readonly (string | number | boolean)[]): string {
  return values.map((v) => {
    const s = String(v);
    return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  }).join(",");
}
