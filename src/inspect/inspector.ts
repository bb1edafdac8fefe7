/**
 * The inspector's state and keys, with no terminal in it: keys go in, screens (rows of safe spans)
 * and effects (quit, open a pager) come out; files are read through injected functions. The
 * runner (`run_inspector.ts`) connects it to a terminal.
 *
 * @module
 */
import type { StepLabels } from "../trajectories/action_types.ts";
import type { Trajectory } from "../trajectories/types.ts";
import {
  type Entry,
  fillEntry,
  indexHeader,
  indexLine,
  indexOrder,
  newEntry,
  SORT_KEYS,
  type SortKey,
} from "./_index.ts";
import { pageCount, pageFooter, pageLines, pageMessages, statusText } from "./_pages.ts";
import { bar } from "./_render.ts";
import { findMatch, highlight, type Match } from "./_search.ts";
import { type Line, safeText, type Style, wrapLine } from "./_text.ts";

/** How the inspector reads files. */
export interface InspectorDeps {
  /** Read and model a trajectory (torn files repaired). */
  load(path: string): Promise<Trajectory>;
  /** A value that changes when the file changes (modification time and size). */
  stamp(path: string): Promise<string>;
  /** The trajectory files under the roots. */
  find(roots: readonly string[]): Promise<string[]>;
  /** The action types of every step. */
  classify(t: Trajectory): StepLabels[];
  /**
   * The beginning of a large file as a trajectory (its whole messages), for a first screen before
   * the whole file is read; undefined when the file is small enough to read at once.
   */
  loadHead?(path: string): Promise<Trajectory | undefined>;
}

/** What the runner must do after a key. */
export type Effect =
  | { quit: number }
  /** Show JSON in the pager: a file as it is, or text written to a temporary file. */
  | { pager: { path: string } | { text: string; name: string } }
  | undefined;

/** Options of the inspector. */
export interface InspectorOptions {
  /** Show reasoning text (the `r` key toggles it). Default true, as upstream. */
  reasoning?: boolean;
  /** Watch the open trajectory and the directories for changes (`poll`). */
  follow?: boolean;
}

/** Rows j/k scroll, as upstream's inspector. */
const SCROLL = 15;

const HELP = `KEYS
  step view
    l / right, h / left   next / previous step (page 0 is the task)
    0 / $                 first / last step
    j / down, k / up      scroll down / up ${SCROLL} rows
    space, b              scroll a screen down / up; home / end: top / bottom of the step
    L / H                 next / previous trajectory (in the index's order)
    /  n / N              search; next / previous match (across steps; smart case)
    r                     show / hide reasoning
    e / E                 open the step / the whole trajectory in $PAGER (default less)
    R                     reload from disk
    i, esc                the index
  index
    j / k, up / down      move;  enter, l: open
    s / S                 next sort key / reverse order
    f, /                  filter (empty to clear)
    R                     rescan the directories
  q, ctrl-c               quit;  ? this help (any key closes it)`;

interface Open {
  entry: number;
  t: Trajectory;
  labels?: StepLabels[];
  stamp: string;
  pages: Map<number, Line[]>;
}

/** The inspector. */
export class Inspector {
  readonly entries: Entry[];
  #order: number[] = [];
  #sel = 0;
  #sort: SortKey = "path";
  #descending = false;
  #filter = "";
  #view: "index" | "step" | "help" = "index";
  #back: "index" | "step" = "index";
  #open: Open | undefined;
  /** The open trajectory is only the beginning of its file. */
  #partial = false;
  #page = 0;
  #scroll = 0;
  #reasoning: boolean;
  #query = "";
  #match: Match | undefined;
  #prompt: { kind: "search" | "filter"; text: string } | undefined;
  #notice: { text: string; style: Style } | undefined;
  #body = 20;
  #width = 80;
  readonly #deps: InspectorDeps;
  readonly #roots: readonly string[];
  readonly follow: boolean;

  /**
   * @param roots the paths the user gave (rescanned by `R` and in follow mode)
   * @param files the trajectory files found under them
   * @param deps file access
   * @param options reasoning and follow
   */
  constructor(
    roots: readonly string[],
    files: readonly string[],
    deps: InspectorDeps,
    options: InspectorOptions = {},
  ) {
    this.#roots = roots;
    this.entries = files.map(newEntry);
    this.#deps = deps;
    this.#reasoning = options.reasoning ?? true;
    this.follow = options.follow ?? false;
    this.#reorder();
  }

  /**
   * Open the only trajectory at once (only its beginning when it is large: {@link fillIndex}
   * reads the rest); with several, show the index.
   * @throws when the only file cannot be read
   */
  async start(): Promise<void> {
    if (this.entries.length !== 1) return;
    const path = this.entries[0]!.path;
    const head = await this.#deps.loadHead?.(path).catch(() => undefined);
    if (head) {
      this.#show(0, head, "");
      this.#partial = true;
      return;
    }
    const t = await this.#deps.load(path);
    this.#show(0, t, await this.#deps.stamp(t.path));
  }

  /** Read what is not read yet: the rest of a trajectory opened partially, then the index entries. */
  async fillIndex(progress: () => void): Promise<void> {
    if (this.#partial && this.#open) {
      this.#partial = false;
      const { entry } = this.#open;
      const t = await this.#fill(this.entries[entry]!);
      if (t) {
        const [page, scroll] = [this.#page, this.#scroll];
        this.#show(entry, t, this.entries[entry]!.stamp!, page);
        this.#scroll = scroll;
      } else this.#say(`cannot read ${this.entries[entry]!.path}: ${this.entries[entry]!.error}`, "error");
      progress();
    }
    for (const e of this.entries) {
      if (e.info || e.error) continue;
      await this.#fill(e);
      progress();
    }
  }

  async #fill(e: Entry): Promise<Trajectory | undefined> {
    try {
      const stamp = await this.#deps.stamp(e.path);
      const t = await this.#deps.load(e.path);
      fillEntry(e, t, stamp);
      return t;
    } catch (err) {
      e.error = err instanceof Error ? err.message.replace(`${e.path}: `, "") : String(err);
      return undefined;
    }
  }

  #reorder(): void {
    const current = this.#order[this.#sel];
    this.#order = indexOrder(this.entries, this.#sort, this.#descending, this.#filter);
    const at = current === undefined ? -1 : this.#order.indexOf(current);
    this.#sel = at >= 0 ? at : Math.min(this.#sel, Math.max(0, this.#order.length - 1));
  }

  #show(entry: number, t: Trajectory, stamp: string, page = 0): void {
    this.#open = { entry, t, stamp, pages: new Map() };
    this.#view = "step";
    this.#page = Math.min(page, pageCount(t) - 1);
    this.#scroll = 0;
    this.#match = undefined;
    const at = this.#order.indexOf(entry);
    if (at >= 0) this.#sel = at;
  }

  async #openEntry(entry: number): Promise<void> {
    const e = this.entries[entry]!;
    const t = await this.#fill(e);
    if (t) this.#show(entry, t, e.stamp!);
    else this.#say(`cannot read ${e.path}: ${e.error}`, "error");
  }

  #say(text: string, style: Style = "plain"): void {
    this.#notice = { text: safeText(text), style };
  }

  #lines(page: number): Line[] {
    const o = this.#open!;
    let lines = o.pages.get(page);
    if (!lines) {
      lines = pageLines(o.t, page, { reasoning: this.#reasoning });
      if (o.pages.size > 64) o.pages.clear();
      o.pages.set(page, lines);
    }
    return lines;
  }

  /** The current page wrapped to the width, highlighted, and the first row of each line. */
  #rows(): { rows: Line[]; firstRow: number[] } {
    const rows: Line[] = [];
    const firstRow: number[] = [];
    this.#lines(this.#page).forEach((line, i) => {
      firstRow.push(rows.length);
      const current = this.#match?.page === this.#page && this.#match.line === i
        ? this.#match.col
        : undefined;
      rows.push(...wrapLine(this.#query ? highlight(line, this.#query, current) : line, this.#width));
    });
    return { rows, firstRow };
  }

  #goPage(page: number): void {
    const n = pageCount(this.#open!.t);
    const p = Math.max(0, Math.min(n - 1, page));
    if (p !== this.#page) this.#scroll = 0;
    this.#page = p;
  }

  #scrollBy(delta: number): void {
    const max = Math.max(0, this.#rows().rows.length - this.#body);
    this.#scroll = Math.max(0, Math.min(max, this.#scroll + delta));
  }

  #search(backwards: boolean, fresh: boolean): void {
    const o = this.#open!;
    if (!this.#query) return;
    const { firstRow } = this.#rows();
    const top = Math.max(0, firstRow.findLastIndex((r) => r <= this.#scroll));
    const from = fresh || !this.#match ? { page: this.#page, line: top, col: -1 } : this.#match;
    const found = findMatch((p) => this.#lines(p), pageCount(o.t), from, this.#query, backwards);
    if (!found) {
      this.#match = undefined;
      this.#say(`not found: ${this.#query}`, "warn");
      return;
    }
    this.#match = found.match;
    this.#goPage(found.match.page);
    const row = this.#rows().firstRow[found.match.line] ?? 0;
    if (row < this.#scroll || row >= this.#scroll + this.#body) this.#scroll = Math.max(0, row - 2);
    this.#say(`/${this.#query}${found.wrapped ? " (wrapped)" : ""}`);
  }

  /**
   * Handle one key.
   * @returns what the runner must do, if anything
   */
  async key(k: string): Promise<Effect> {
    this.#notice = undefined;
    if (k === "ctrl-c") return { quit: 130 };
    if (this.#prompt) return this.#promptKey(k);
    if (this.#view === "help") {
      this.#view = this.#back;
      return;
    }
    if (k === "q") return { quit: 0 };
    if (k === "?") {
      this.#back = this.#view;
      this.#view = "help";
      return;
    }
    return this.#view === "index" ? await this.#indexKey(k) : await this.#stepKey(k);
  }

  #promptKey(k: string): Effect {
    const p = this.#prompt!;
    if (k === "esc") this.#prompt = undefined;
    else if (k === "backspace") p.text = p.text.slice(0, -1);
    else if (k === "ctrl-u") p.text = "";
    else if (k === "enter") {
      this.#prompt = undefined;
      if (p.kind === "filter") {
        this.#filter = p.text;
        this.#reorder();
      } else {
        this.#query = p.text;
        this.#match = undefined;
        this.#search(false, true);
      }
    } else if ([...k].length === 1) p.text += k;
    return undefined;
  }

  async #indexKey(k: string): Promise<Effect> {
    const n = this.#order.length;
    const move = (to: number) => (this.#sel = Math.max(0, Math.min(n - 1, to)));
    switch (k) {
      case "j":
      case "down":
        move(this.#sel + 1);
        break;
      case "k":
      case "up":
        move(this.#sel - 1);
        break;
      case " ":
      case "pagedown":
        move(this.#sel + this.#body - 1);
        break;
      case "b":
      case "pageup":
        move(this.#sel - this.#body + 1);
        break;
      case "0":
      case "home":
        move(0);
        break;
      case "$":
      case "end":
        move(n - 1);
        break;
      case "enter":
      case "l":
      case "right":
        if (n) await this.#openEntry(this.#order[this.#sel]!);
        break;
      case "s":
        this.#sort = SORT_KEYS[(SORT_KEYS.indexOf(this.#sort) + 1) % SORT_KEYS.length]!;
        this.#descending = this.#sort !== "path" && this.#sort !== "status";
        this.#reorder();
        break;
      case "S":
        this.#descending = !this.#descending;
        this.#reorder();
        break;
      case "f":
      case "/":
        this.#prompt = { kind: "filter", text: this.#filter };
        break;
      case "R":
        await this.rescan(true);
        this.#say("rescanned");
        break;
      case "e":
      case "E":
        if (n) return { pager: { path: this.entries[this.#order[this.#sel]!]!.path } };
        break;
      case "esc":
      case "i":
        if (this.#open) this.#view = "step";
        break;
    }
    return undefined;
  }

  async #stepKey(k: string): Promise<Effect> {
    const o = this.#open!;
    switch (k) {
      case "l":
      case "right":
        this.#goPage(this.#page + 1);
        break;
      case "h":
      case "left":
        this.#goPage(this.#page - 1);
        break;
      case "0":
        this.#goPage(0);
        break;
      case "$":
        this.#goPage(pageCount(o.t) - 1);
        break;
      case "j":
      case "down":
        this.#scrollBy(SCROLL);
        break;
      case "k":
      case "up":
        this.#scrollBy(-SCROLL);
        break;
      case " ":
      case "pagedown":
        this.#scrollBy(this.#body - 1);
        break;
      case "b":
      case "pageup":
        this.#scrollBy(1 - this.#body);
        break;
      case "home":
        this.#scroll = 0;
        break;
      case "end":
        this.#scrollBy(Infinity);
        break;
      case "L":
      case "H": {
        const at = this.#order.indexOf(o.entry) + (k === "L" ? 1 : -1);
        if (at >= 0 && at < this.#order.length) await this.#openEntry(this.#order[at]!);
        break;
      }
      case "r":
        this.#reasoning = !this.#reasoning;
        o.pages.clear();
        this.#say(this.#reasoning ? "reasoning shown" : "reasoning hidden");
        break;
      case "R":
        await this.#reload();
        this.#say("reloaded");
        break;
      case "/":
        this.#prompt = { kind: "search", text: "" };
        break;
      case "n":
      case "N":
        if (this.#query) this.#search(k === "N", false);
        break;
      case "e":
        return {
          pager: {
            text: JSON.stringify(pageMessages(o.t, this.#page), null, 2) + "\n",
            name: `step-${this.#page}.json`,
          },
        };
      case "E":
        return { pager: { path: o.t.path } };
      case "i":
      case "esc":
        this.#view = "index";
        break;
    }
    return undefined;
  }

  /** Reload the open trajectory, keeping the step; in follow mode at the last step, go to the new last. */
  async #reload(): Promise<void> {
    const o = this.#open!;
    const wasLast = this.#page === pageCount(o.t) - 1;
    const before = o.t.steps.length;
    const t = await this.#fill(this.entries[o.entry]!);
    if (!t) {
      this.#say(`cannot read ${o.t.path}: ${this.entries[o.entry]!.error}`, "error");
      return;
    }
    const page = this.follow && wasLast ? pageCount(t) - 1 : this.#page;
    const scroll = page === this.#page ? this.#scroll : 0;
    this.#show(o.entry, t, this.entries[o.entry]!.stamp!, page);
    this.#scroll = scroll;
    if (t.steps.length > before && this.follow) this.#say(`+${t.steps.length - before} step(s)`);
  }

  /** Find new files under the roots; with `all`, read every entry again. */
  async rescan(all: boolean): Promise<void> {
    const known = new Set(this.entries.map((e) => e.path));
    for (const path of await this.#deps.find(this.#roots)) {
      if (!known.has(path)) this.entries.push(newEntry(path));
    }
    if (all) {
      for (const e of this.entries) {
        delete e.info;
        delete e.error;
      }
    }
    this.#reorder();
  }

  /**
   * Follow mode: reload the open trajectory when its file changed, re-read changed index
   * entries, pick up new files.
   * @returns whether anything changed
   */
  async poll(): Promise<boolean> {
    let changed = false;
    if (this.#open && this.#view !== "index") {
      const stamp = await this.#deps.stamp(this.#open.t.path).catch(() => this.#open!.stamp);
      if (stamp !== this.#open.stamp) {
        await this.#reload();
        changed = true;
      }
    }
    if (this.#view === "index" && this.entries.length > 1) {
      const count = this.entries.length;
      await this.rescan(false);
      changed ||= this.entries.length !== count;
      for (const e of this.entries) {
        if (!e.stamp) continue;
        const stamp = await this.#deps.stamp(e.path).catch(() => e.stamp);
        if (stamp !== e.stamp) {
          await this.#fill(e);
          changed = true;
        }
      }
      if (changed) this.#reorder();
    }
    return changed;
  }

  /** The screen: title bar, body, footer and status line, `height` rows of `width` columns. */
  frame(width: number, height: number): Line[] {
    this.#width = Math.max(10, width);
    this.#body = Math.max(1, height - 3);
    const o = this.#open;
    const body: Line[] = [];
    let title: string;
    let footer: Line = [];
    if (this.#view === "help") {
      title = "claudius inspect │ help";
      body.push(
        ...HELP.split("\n").map((l): Line => [{ text: l, style: l === l.trim() ? "heading" : "plain" }]),
      );
    } else if (this.#view === "index") {
      const shown = this.#order.length;
      const read = this.entries.filter((e) => e.info || e.error).length;
      title = `claudius inspect │ ${this.entries.length} trajectories │ sort: ${this.#sort}${
        this.#sort === "path" && !this.#descending ? "" : this.#descending ? " ↓" : " ↑"
      }${this.#filter ? ` │ filter "${safeText(this.#filter)}": ${shown} shown` : ""}${
        read < this.entries.length ? ` │ reading ${read}/${this.entries.length}` : ""
      }${this.follow ? " │ following" : ""}`;
      body.push(indexHeader(this.#width));
      const rows = this.#body - 1;
      const top = Math.max(0, Math.min(this.#sel - Math.floor(rows / 2), shown - rows));
      for (let r = top; r < Math.min(shown, top + rows); r++) {
        const i = this.#order[r]!;
        body.push(indexLine(this.entries[i]!, i + 1, this.#width, r === this.#sel));
      }
      if (!shown) body.push([{ text: "  (no trajectory matches the filter)", style: "dim" }]);
      footer = [{ text: "s sort · S reverse · f filter · enter open", style: "dim" }];
    } else {
      const t = o!.t;
      const n = pageCount(t) - 1;
      const at = this.#order.indexOf(o!.entry);
      title = `claudius inspect │ ${at + 1}/${this.#order.length} ${safeText(t.instanceId)} │ ${
        this.#page === 0 ? `task (${n} steps)` : `step ${this.#page}/${n}`
      } │ ${this.#partial ? "reading…" : safeText(statusText(t.exit.status))}${
        t.repaired && !this.#partial ? " (repaired)" : ""
      }${this.follow ? " │ following" : ""}`;
      const { rows } = this.#rows();
      this.#scroll = Math.max(0, Math.min(this.#scroll, rows.length - this.#body));
      body.push(...rows.slice(this.#scroll, this.#scroll + this.#body));
      if (this.#page > 0 && !o!.labels && !this.#partial) o!.labels = this.#deps.classify(t);
      footer = this.#partial
        ? [{ text: "reading the whole file…", style: "dim" }]
        : pageFooter(t, this.#page, o!.labels?.[this.#page - 1]);
      const more = rows.length - this.#scroll - this.#body;
      if (more > 0) footer = [{ text: `▼ ${more} more rows · `, style: "dim" }, ...footer];
    }
    while (body.length < this.#body) body.push([]);
    const status: Line = this.#prompt
      ? [{
        text: `${this.#prompt.kind === "search" ? "/" : "filter: "}${safeText(this.#prompt.text)}▏`,
        style: "plain",
      }]
      : this.#notice
      ? [{ text: this.#notice.text, style: this.#notice.style }]
      : [{
        text: this.#view === "index"
          ? "j/k move · enter open · s/S sort · f filter · R rescan · ? help · q quit"
          : "h/l step · j/k scroll · H/L traj · / search · r reasoning · e/E pager · i index · ? help · q quit",
        style: "dim",
      }];
    return [bar([{ text: title, style: "title" }], this.#width, "title"), ...body, footer, status].slice(
      0,
      height,
    );
  }
}
