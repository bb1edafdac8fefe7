/**
 * The inspector's state and keys, with no terminal in it: keys go in, screens (rows of safe spans)
 * and effects (quit, open a pager) come out; files are read through injected functions. The index
 * (`_index.ts`) and the open trajectory (`_step_view.ts`) are its two views; the runner
 * (`run_inspector.ts`) connects it to a terminal.
 *
 * @module
 */
import { readFailure } from "../trajectories/map_trajectories.ts";
import type { StepLabels } from "../trajectories/action_types.ts";
import type { Trajectory } from "../trajectories/types.ts";
import { fillEntry, IndexView } from "./_index.ts";
import { pageMessages, statusText } from "./_pages.ts";
import { bar } from "./_render.ts";
import { SCROLL, StepView, type ViewSettings } from "./_step_view.ts";
import { type Line, safeText, type Style } from "../../lib/text.ts";

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

const HINTS = {
  index: "j/k move · enter open · s/S sort · f filter · R rescan · ? help · q quit",
  step: "h/l step · j/k scroll · H/L traj · / search · r reasoning · e/E pager · i index · ? help · q quit",
};

/** A line being typed at the bottom: a search in the step, or the index's filter. */
type Prompt = { kind: "search" | "filter"; text: string };

/** The inspector. */
export class Inspector {
  readonly index: IndexView;
  readonly follow: boolean;
  #view: "index" | "step" | "help" = "index";
  #back: "index" | "step" = "index";
  #step: StepView | undefined;
  readonly #settings: ViewSettings;
  #prompt: Prompt | undefined;
  #notice: { text: string; style: Style } | undefined;
  #listRows = 20;
  #polls = 0;
  /** fillIndex has read every entry once. */
  #filled = false;
  /** fillIndex's callback, for reading again after a rescan. */
  #progress: () => void = () => {};
  readonly #deps: InspectorDeps;
  readonly #roots: readonly string[];

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
    this.index = new IndexView(files);
    this.#deps = deps;
    this.#settings = { reasoning: options.reasoning ?? true, query: "" };
    this.follow = options.follow ?? false;
  }

  /**
   * Open the only trajectory at once (only its beginning when it is large: {@link fillIndex}
   * reads the rest); with several, show the index.
   * @throws when the only file cannot be read
   */
  async start(): Promise<void> {
    const [only, ...more] = this.index.entries;
    if (!only || more.length > 0) return;
    const { path } = only;
    const head = await this.#deps.loadHead?.(path).catch(() => undefined);
    if (head) this.#show(0, head, "").partial = true;
    else this.#show(0, await this.#deps.load(path), await this.#deps.stamp(path));
    this.#view = "step";
  }

  /** Read what is not read yet: the rest of a trajectory opened partially, then the index entries. */
  async fillIndex(progress: () => void): Promise<void> {
    this.#progress = progress;
    this.#filled = false;
    if (this.#step?.partial) {
      await this.#reload(false);
      progress();
    }
    for (const e of this.index.entries) {
      if (e.info || e.error) continue;
      await this.#fill(e.path);
      progress();
    }
    this.#filled = true;
  }

  /**
   * Read an entry's file; on failure the entry keeps the error and undefined is returned (also when
   * no entry has that path any more).
   */
  async #fill(path: string): Promise<{ t: Trajectory; stamp: string } | undefined> {
    const e = this.index.entries.find((x) => x.path === path);
    if (!e) return undefined;
    let stamp: string | undefined;
    try {
      stamp = await this.#deps.stamp(path);
      const t = await this.#deps.load(path);
      fillEntry(e, t, stamp);
      return { t, stamp };
    } catch (err) {
      // The reason alone: the index and the status line put the path before it.
      const { message } = readFailure(path, err);
      const at = message.indexOf(`${path}: `);
      e.error = at >= 0 ? message.slice(at + path.length + 2) : message;
      if (stamp !== undefined) e.stamp = stamp; // read again when the file changes
      return undefined;
    }
  }

  #show(entry: number, t: Trajectory, stamp: string, page = 0): StepView {
    this.#step = new StepView(entry, t, stamp, this.#settings, page);
    this.index.select(entry);
    return this.#step;
  }

  async #openEntry(entry: number): Promise<void> {
    const e = this.index.entries[entry];
    if (!e) return;
    const read = await this.#fill(e.path);
    if (!read) return this.#say(`cannot read ${e.path}: ${e.error}`, "error");
    this.#show(entry, read.t, read.stamp);
    this.#view = "step";
  }

  /**
   * Read the open trajectory again, keeping the step and scroll; in follow mode, from the last
   * step, move on to the new last step.
   */
  async #reload(announce: boolean): Promise<void> {
    const old = this.#step;
    const e = old && this.index.entries[old.entry];
    if (!old || !e) return;
    const read = await this.#fill(e.path);
    if (!read) return this.#say(`cannot read ${e.path}: ${e.error}`, "error");
    const { t, stamp } = read;
    const toEnd = this.follow && old.page === old.last && !old.partial;
    const view = this.#show(old.entry, t, stamp, toEnd ? Infinity : old.page);
    if (view.page === old.page) view.scroll = old.scroll;
    const added = t.steps.length - old.t.steps.length;
    if (announce && added > 0) this.#say(`+${added} step(s)`);
  }

  #say(text: string, style: Style = "plain"): void {
    this.#notice = { text: safeText(text), style };
  }

  /** Show `text` on the status line until the next key (e.g. the pager could not run). */
  notice(text: string, style: Style = "plain"): void {
    this.#say(text, style);
  }

  /** Find new files under the roots; with `all`, read every entry again (in the background). */
  async rescan(all: boolean): Promise<void> {
    this.index.add(await this.#deps.find(this.#roots));
    this.index.reorder();
    if (all) {
      for (const e of this.index.entries) {
        delete e.info;
        delete e.error;
        delete e.stamp;
      }
      this.fillIndex(this.#progress).catch(() => {}); // in the background; read errors stay in the entries
    }
  }

  /**
   * Follow mode: reload the open trajectory when its file changed; in the index, pick up new
   * files and re-read changed ones.
   * @returns whether anything changed
   */
  async poll(): Promise<boolean> {
    const step = this.#step;
    if (step && this.#view !== "index") {
      const stamp = await this.#deps.stamp(step.t.path).catch(() => step.stamp);
      if (stamp === step.stamp) return false;
      await this.#reload(true);
      return true;
    }
    // The index is checked every 8th poll (~2 s): a stat per file.
    if (this.#view !== "index" || this.index.entries.length < 2 || this.#polls++ % 8 !== 0) return false;
    const count = this.index.entries.length;
    await this.rescan(false);
    let changed = this.index.entries.length !== count;
    for (const e of this.index.entries) {
      if (e.stamp !== undefined) {
        if ((await this.#deps.stamp(e.path).catch(() => e.stamp)) === e.stamp) continue;
      } else if (!this.#filled) continue; // not read yet: fillIndex will
      await this.#fill(e.path);
      changed = true;
    }
    if (changed) this.index.reorder();
    return changed;
  }

  /**
   * Handle one key.
   * @returns what the runner must do, if anything
   */
  async key(k: string): Promise<Effect> {
    this.#notice = undefined;
    if (k === "ctrl-c") return { quit: 130 };
    if (this.#prompt) return this.#promptKey(k, this.#prompt);
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
    if (this.#view === "index" || !this.#step) return await this.#indexKey(k);
    return await this.#stepKey(k, this.#step);
  }

  #promptKey(k: string, p: Prompt): Effect {
    if (k === "esc") this.#prompt = undefined;
    else if (k === "backspace") p.text = p.text.slice(0, -1);
    else if (k === "ctrl-u") p.text = "";
    else if (k === "enter") {
      this.#prompt = undefined;
      if (p.kind === "filter") {
        this.index.filter = p.text;
        this.index.reorder();
      } else if (this.#step) {
        this.#settings.query = p.text;
        this.#step.match = undefined;
        const notice = this.#step.search(false, true);
        if (notice) this.#say(notice, notice.startsWith("not found") ? "warn" : "plain");
      }
    } else if ([...k].length === 1) p.text += k;
    return undefined;
  }

  async #indexKey(k: string): Promise<Effect> {
    if (this.index.key(k, this.#listRows)) return;
    const selected = this.index.selected();
    if ((k === "enter" || k === "l" || k === "right") && selected !== undefined) {
      await this.#openEntry(selected);
    } else if (k === "f" || k === "/") this.#prompt = { kind: "filter", text: this.index.filter };
    else if (k === "R") {
      await this.rescan(true);
      this.#say("rescanned");
    } else if ((k === "e" || k === "E") && selected !== undefined) {
      const e = this.index.entries[selected];
      if (e) return { pager: { path: e.path } };
    } else if ((k === "esc" || k === "i") && this.#step) this.#view = "step";
  }

  async #stepKey(k: string, step: StepView): Promise<Effect> {
    const handled = step.key(k);
    if (typeof handled === "string" && handled) {
      this.#say(handled, handled.startsWith("not found") ? "warn" : "plain");
    }
    if (handled !== false) return;
    if (k === "L" || k === "H") {
      const at = this.index.order.indexOf(step.entry) + (k === "L" ? 1 : -1);
      const next = this.index.order[at];
      if (next !== undefined) await this.#openEntry(next);
    } else if (k === "r") {
      this.#settings.reasoning = !this.#settings.reasoning;
      step.clear();
      this.#say(this.#settings.reasoning ? "reasoning shown" : "reasoning hidden");
    } else if (k === "R") {
      await this.#reload(false);
      this.#say("reloaded");
    } else if (k === "/") this.#prompt = { kind: "search", text: "" };
    else if (k === "e") {
      const text = JSON.stringify(pageMessages(step.t, step.page), null, 2) + "\n";
      return { pager: { text, name: `step-${step.page}.json` } };
    } else if (k === "E") return { pager: { path: step.t.path } };
    else if (k === "i" || k === "esc") this.#view = "index";
  }

  /** The screen: title bar, body, footer and status line, `height` rows of `width` columns. */
  frame(width: number, height: number): Line[] {
    width = Math.max(10, width);
    const bodyHeight = Math.max(1, height - 3);
    this.#listRows = bodyHeight - 1;
    let title: string, body: Line[], footer: Line;
    const step = this.#step;
    if (this.#view === "help") {
      title = "claudius inspect │ help";
      body = HELP.split("\n").map((l): Line => [{ text: l, style: l === l.trim() ? "heading" : "plain" }]);
      footer = [];
    } else if (this.#view === "index" || !step) {
      title = this.index.title(this.follow);
      body = this.index.body(width, bodyHeight);
      footer = [{ text: "s sort · S reverse · f filter · enter open", style: "dim" }];
    } else {
      const t = step.t;
      const at = this.index.order.indexOf(step.entry);
      const where = step.page === 0 ? `task (${step.last} steps)` : `step ${step.page}/${step.last}`;
      const status = step.partial
        ? "reading…"
        : safeText(statusText(t.exit.status)) + (t.repaired ? " (repaired)" : "");
      title =
        `claudius inspect │ ${at + 1}/${this.index.order.length} ${
          safeText(t.instanceId)
        } │ ${where} │ ${status}` +
        (this.follow ? " │ following" : "");
      const shown = step.body(width, bodyHeight);
      body = shown.rows;
      footer = step.footer(this.#deps.classify);
      if (shown.below > 0) footer = [{ text: `▼ ${shown.below} more rows · `, style: "dim" }, ...footer];
    }
    while (body.length < bodyHeight) body.push([]);
    const statusLine: Line = this.#prompt
      ? [{
        text: `${this.#prompt.kind === "search" ? "/" : "filter: "}${safeText(this.#prompt.text)}▏`,
        style: "plain",
      }]
      : this.#notice
      ? [{ text: this.#notice.text, style: this.#notice.style }]
      : [{ text: HINTS[this.#view === "index" || !step ? "index" : "step"], style: "dim" }];
    return [
      bar([{ text: title, style: "title" }], width, "title"),
      ...body.slice(0, bodyHeight),
      footer,
      statusLine,
    ]
      .slice(0, height);
  }
}
