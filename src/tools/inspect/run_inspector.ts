/**
 * The inspector's event loop: keys from the terminal, redraws on resize and on news (index
 * entries read, a followed file grown), the pager in the foreground, and the terminal restored
 * on every way out: `q`, ctrl-c, end of input, SIGINT / SIGTERM / SIGHUP, and an exception.
 *
 * @module
 */
import { parseKeys } from "./_keys.ts";
import { renderFrame } from "./_render.ts";
import type { Inspector } from "./inspector.ts";
import type { Foreground, InspectSignal, Terminal } from "./terminal.ts";

/** What the loop needs besides the inspector. */
export interface RunDeps {
  terminal: Terminal;
  /** Subscribe to signals; returns the unsubscribe function. */
  signals(handler: (signal: InspectSignal) => void): () => void;
  /** Run the pager on a file. */
  pager(path: string): Foreground;
  /** Write text to a new temporary file named like `name`; returns its path. */
  tempFile(text: string, name: string): Promise<string>;
  removeFile(path: string): Promise<void>;
  /** Follow mode's polling interval in milliseconds (default 250). */
  pollMs?: number;
}

/** Milliseconds between the first screen and reading the rest (files of the index, a large file's tail). */
const FILL_DELAY_MS = 50;

const EXIT: Record<Exclude<InspectSignal, "SIGWINCH">, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/**
 * Run the inspector until it quits.
 *
 * @param inspector the inspector (started)
 * @param deps terminal, signals, pager and files
 * @returns the exit code: 0 for `q` or end of input, 130 for ctrl-c or SIGINT, 143 SIGTERM, 129 SIGHUP
 * @throws whatever the inspector throws, after restoring the terminal
 */
export async function runInspector(inspector: Inspector, deps: RunDeps): Promise<number> {
  return await new InspectorLoop(inspector, deps).run();
}

/** One run of the loop: what it draws, the pager in front, and what it undoes at the end. */
class InspectorLoop {
  readonly #inspector: Inspector;
  readonly #deps: RunDeps;
  readonly #term: Terminal;
  readonly #finished = Promise.withResolvers<number>();
  /** The pager has the terminal: nothing is drawn. */
  #suspended = false;
  #pending: ReturnType<typeof setTimeout> | undefined;
  #pager: Foreground | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #filling: ReturnType<typeof setTimeout> | undefined;
  // Last resort for errors that escape the loop (a rejected promise elsewhere): restore first.
  readonly #restore = () => this.#term.leave();

  constructor(inspector: Inspector, deps: RunDeps) {
    this.#inspector = inspector;
    this.#deps = deps;
    this.#term = deps.terminal;
  }

  async run(): Promise<number> {
    const inspector = this.#inspector;
    const fail = (e: unknown) => this.#finished.reject(e);
    for (const event of ["unload", "unhandledrejection", "error"]) {
      globalThis.addEventListener(event, this.#restore);
    }
    const removeSignals = this.#deps.signals((signal) => {
      if (signal === "SIGWINCH") this.#drawSoon();
      else this.#finished.resolve(EXIT[signal]);
    });
    this.#term.enter();
    try {
      this.#draw();
      // Read the rest a moment after the first screen, so the terminal gets the CPU to paint it first.
      this.#filling = setTimeout(
        () => inspector.fillIndex(() => this.#drawSoon()).catch(fail),
        FILL_DELAY_MS,
      );
      if (inspector.follow) {
        let busy = false;
        this.#timer = setInterval(() => {
          if (busy || this.#suspended) return;
          busy = true;
          inspector.poll().then((changed) => changed && this.#draw(), fail).finally(() => (busy = false));
        }, this.#deps.pollMs ?? 250);
      }
      this.#readKeys().catch(fail);
      return await this.#finished.promise;
    } finally {
      if (this.#timer !== undefined) clearInterval(this.#timer);
      clearTimeout(this.#filling);
      if (this.#pending !== undefined) clearTimeout(this.#pending);
      this.#pager?.kill();
      removeSignals();
      this.#term.leave();
      for (const event of ["unload", "unhandledrejection", "error"]) {
        globalThis.removeEventListener(event, this.#restore);
      }
    }
  }

  #draw(): void {
    if (this.#suspended) return;
    const { columns, rows } = this.#term.size();
    this.#term.write(renderFrame(this.#inspector.frame(columns, rows), columns, rows, this.#term.color));
  }

  #drawSoon(): void {
    this.#pending ??= setTimeout(() => {
      this.#pending = undefined;
      this.#draw();
    }, 40);
  }

  /** Keys until one quits or the input ends; a redraw after each read. */
  async #readKeys(): Promise<void> {
    while (true) {
      const text = await this.#term.read();
      if (text === null) return this.#finished.resolve(0);
      for (const key of parseKeys(text)) {
        const effect = await this.#inspector.key(key);
        if (effect && "quit" in effect) return this.#finished.resolve(effect.quit);
        if (effect && "pager" in effect) await this.#page(effect.pager);
      }
      this.#draw();
    }
  }

  /** Hand the terminal to the pager on a file (or on text in a temporary file), then take it back. */
  async #page(p: { path: string } | { text: string; name: string }): Promise<void> {
    const path = "path" in p ? p.path : await this.#deps.tempFile(p.text, p.name);
    this.#suspended = true;
    this.#term.leave();
    try {
      this.#pager = this.#deps.pager(path);
      const failure = await this.#pager.status;
      if (failure) this.#inspector.notice(failure, "error");
    } finally {
      this.#pager = undefined;
      if (!("path" in p)) await this.#deps.removeFile(path).catch(() => {});
      this.#term.enter();
      this.#suspended = false;
    }
  }
}
