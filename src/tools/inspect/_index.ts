/**
 * The inspector's index of trajectories: one entry per file (filled in as files are read), its
 * sort orders and filter, and its rows on screen.
 *
 * @module
 */
import { fmtCost } from "../../lib/formats.ts";
import type { Trajectory } from "../trajectories/types.ts";
import { isSubmitted } from "../trajectories/outcome.ts";
import { statusText } from "./_pages.ts";
import { type Line, safeText, textWidth } from "../../lib/text.ts";

/** One trajectory file in the index. */
export interface Entry {
  path: string;
  /** From the file name until the file is read. */
  instanceId: string;
  /** Undefined until the file is read. */
  info?: {
    status: string;
    steps: number;
    cost: number;
    submitted: boolean;
    formatErrors: number;
    model: string;
  };
  /** Why the file could not be read. */
  error?: string;
  /** Modification time and size when it was read (to notice changes). */
  stamp?: string;
}

/** The index's sort keys, in the order `s` cycles through them. */
export const SORT_KEYS = ["path", "status", "steps", "cost", "submitted"] as const;
/** One sort key. */
export type SortKey = typeof SORT_KEYS[number];

/** An index entry for a file not read yet. */
export function newEntry(path: string): Entry {
  return { path, instanceId: (path.split("/").pop() ?? path).replace(/(\.traj)?\.json$/, "") };
}

/** Fill an entry from its trajectory. */
export function fillEntry(entry: Entry, t: Trajectory, stamp: string): void {
  entry.instanceId = t.instanceId;
  entry.info = {
    status: t.exit.status,
    steps: t.steps.length,
    cost: t.reportedCost ?? t.totals.cost,
    submitted: isSubmitted(t.exit.status),
    formatErrors: t.totals.formatErrors,
    model: t.modelName,
  };
  entry.stamp = stamp;
  delete entry.error;
}

/**
 * Positions of the entries to show: those whose id, status, model or path contains `filter`
 * (case-insensitive), sorted by `key` (ties in path order), reversed when `descending`.
 */
export function indexOrder(
  entries: readonly Entry[],
  key: SortKey,
  descending: boolean,
  filter: string,
): number[] {
  const f = filter.toLowerCase();
  const keep = entries.map((e, i) => [e, i] as const).filter(([e]) =>
    !f ||
    `${e.instanceId} ${e.info ? statusText(e.info.status) : ""} ${e.info?.model ?? ""} ${e.path}`
      .toLowerCase()
      .includes(f)
  );
  const value = (e: Entry): number | string => {
    switch (key) {
      case "path":
        return "";
      case "status":
        return e.error ? "~error" : e.info ? statusText(e.info.status) : "~";
      case "steps":
        return e.info?.steps ?? -1;
      case "cost":
        return e.info?.cost ?? -1;
      case "submitted":
        return e.info ? (e.info.submitted ? 1 : 0) : -1;
    }
  };
  keep.sort(([a, i], [b, j]) => {
    const x = value(a), y = value(b);
    const c = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
    return (descending ? -c : c) || i - j;
  });
  return keep.map(([, i]) => i);
}

const pad = (text: string, width: number, right = false) => {
  const w = textWidth(text);
  if (w > width) return text.slice(0, Math.max(0, width - 1)) + "…";
  return right ? " ".repeat(width - w) + text : text + " ".repeat(width - w);
};

/** The index's column header. */
export function indexHeader(width: number): Line {
  return [{
    text: indexRow(["#", "instance", "status", "steps", "cost", "sub", "path"], width),
    style: "heading",
  }];
}

function indexRow(cells: string[], width: number): string {
  const idW = Math.max(12, Math.min(36, Math.floor(width * 0.3)));
  const [n, id, status, steps, cost, sub, path] = cells as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const left = `${pad(n, 5, true)} ${pad(id, idW)} ${pad(status, 20)} ${pad(steps, 6, true)} ${
    pad(cost, 9, true)
  } ${pad(sub, 4)}`;
  const room = width - left.length - 1;
  if (room < 10) return left;
  return `${left} ${path.length > room ? "…" + path.slice(path.length - room + 1) : path}`;
}

/**
 * One entry as a row of the index.
 *
 * @param e the entry
 * @param n its number (position in path order, 1-based)
 * @param width columns
 * @param selected draw it selected
 */
export function indexLine(e: Entry, n: number, width: number, selected: boolean): Line {
  const i = e.info;
  const text = indexRow([
    String(n),
    safeText(e.instanceId),
    e.error ? "unreadable" : i ? safeText(statusText(i.status)) : "…",
    i ? String(i.steps) : "",
    i ? fmtCost(i.cost) : "",
    i ? (i.submitted ? "yes" : "no") : "",
    safeText(e.error ? `${e.path}: ${e.error}` : e.path),
  ], width);
  const style = selected
    ? "selected"
    : e.error
    ? "error"
    : i?.status === "Submitted"
    ? "ok"
    : i && !i.status
    ? "warn"
    : "plain";
  return [{ text, style }];
}

/** The index: its entries, the order they show in, the selection, sort and filter. */
export class IndexView {
  readonly entries: Entry[];
  /** Positions in {@link entries}, in the order shown. */
  order: number[] = [];
  /** Position in {@link order} of the selected row. */
  sel = 0;
  sort: SortKey = "path";
  descending = false;
  filter = "";

  /** @param files the trajectory files, in path order */
  constructor(files: readonly string[]) {
    this.entries = files.map(newEntry);
    this.reorder();
  }

  /** Add entries for new files. */
  add(paths: readonly string[]): void {
    const known = new Set(this.entries.map((e) => e.path));
    for (const path of paths) if (!known.has(path)) this.entries.push(newEntry(path));
  }

  /** Apply the sort and filter, keeping the selected entry selected when it still shows. */
  reorder(): void {
    const current = this.order[this.sel];
    this.order = indexOrder(this.entries, this.sort, this.descending, this.filter);
    const at = current === undefined ? -1 : this.order.indexOf(current);
    this.sel = at >= 0 ? at : Math.min(this.sel, Math.max(0, this.order.length - 1));
  }

  /** The selected entry's position in {@link entries}. */
  selected(): number | undefined {
    return this.order[this.sel];
  }

  /** Select an entry (by its position in {@link entries}) when it shows. */
  select(entry: number): void {
    const at = this.order.indexOf(entry);
    if (at >= 0) this.sel = at;
  }

  /**
   * Handle a key of the index (moving, sorting).
   * @param k the key
   * @param rows rows of the list on screen (for page moves)
   * @returns whether the key was the index's
   */
  key(k: string, rows: number): boolean {
    const move = (to: number) => (this.sel = Math.max(0, Math.min(this.order.length - 1, to)));
    if (k === "j" || k === "down") move(this.sel + 1);
    else if (k === "k" || k === "up") move(this.sel - 1);
    else if (k === " " || k === "pagedown") move(this.sel + rows - 1);
    else if (k === "b" || k === "pageup") move(this.sel - rows + 1);
    else if (k === "0" || k === "home") move(0);
    else if (k === "$" || k === "end") move(this.order.length - 1);
    else if (k === "s") {
      this.sort = SORT_KEYS[(SORT_KEYS.indexOf(this.sort) + 1) % SORT_KEYS.length]!;
      this.descending = this.sort !== "path" && this.sort !== "status";
      this.reorder();
    } else if (k === "S") {
      this.descending = !this.descending;
      this.reorder();
    } else return false;
    return true;
  }

  /** The title bar's text. */
  title(follow: boolean): string {
    const read = this.entries.filter((e) => e.info || e.error).length;
    const arrow = this.sort === "path" && !this.descending ? "" : this.descending ? " ↓" : " ↑";
    const n = this.entries.length;
    return `claudius inspect │ ${n} trajector${n === 1 ? "y" : "ies"} │ sort: ${this.sort}${arrow}` +
      (this.filter ? ` │ filter "${safeText(this.filter)}": ${this.order.length} shown` : "") +
      (read < this.entries.length ? ` │ reading ${read}/${this.entries.length}` : "") +
      (follow ? " │ following" : "");
  }

  /** The column header and the rows around the selection, `height` rows in all. */
  body(width: number, height: number): Line[] {
    const rows = height - 1;
    const shown = this.order.length;
    const top = Math.max(0, Math.min(this.sel - Math.floor(rows / 2), shown - rows));
    const out = [indexHeader(width)];
    for (let r = top; r < Math.min(shown, top + rows); r++) {
      const i = this.order[r]!;
      out.push(indexLine(this.entries[i]!, i + 1, width, r === this.sel));
    }
    if (!shown) out.push([{ text: "  (no trajectory matches the filter)", style: "dim" }]);
    return out;
  }
}
