/**
 * What the commands need from the process they run in: its environment, terminals, output streams,
 * signals and exit. `main.ts` (the only impure file) builds it from `Deno`; commands receive it, so
 * they never read process-global state themselves.
 *
 * @module
 */
import type { EndingSignal } from "./errors.ts";

/** The process, as the commands see it. */
export interface Host {
  /** The environment: the process's variables, filled (never overridden) from the `.env` files. */
  env: Record<string, string>;
  /** The current directory. */
  cwd: string;
  /** Where the built-in configs are (`config/`, embedded in the compiled binary): `programFile("config")`. */
  builtinDir: string;
  /**
   * A file of the program, named by its path in the checkout (`config/default.yaml`, a worker module
   * such as `src/batch/_filter_worker.ts`), where this claudius has it: in the checkout, in the
   * compiled binary, or in the bundle `deno task install` made (whose modules are `.js`).
   */
  programFile(path: string): URL;
  /**
   * Where this claudius runs from, as `--version` says: `checkout DIR, deno X.Y.Z`, `install DIR, deno
   * X.Y.Z` (the bundle of `deno task install`) or `compiled FILE`.
   */
  origin: string;
  /** The standard streams (the terminal layer reads and writes them directly). */
  stdin: typeof Deno.stdin;
  /** The standard output (the terminal layer writes the screen to it). */
  stdout: typeof Deno.stdout;
  /** Whether stdin / stdout / stderr are terminals. */
  terminal: { stdin: boolean; stdout: boolean; stderr: boolean };
  /** Write text to stdout; a vanished stream (a closed terminal) is ignored. */
  out(text: string): void;
  /** Write one line to stderr; a vanished stream is ignored. */
  err(line: string): void;
  /** Write text to stderr as it is (no line end added): a reply as it streams in. */
  errText(text: string): void;
  /** The terminal's size (80x24 when it has none). */
  consoleSize(): { columns: number; rows: number };
  /** CPU count and total memory in bytes (docker's default limits). */
  machine(): { cpus: number; memory: number };
  /** Listen for a signal; returns the function that stops listening. */
  onSignal(name: EndingSignal | "SIGWINCH", listener: () => void): () => void;
  /** End the process now. */
  exit(code: number): never;
}

/** Exit codes of the endings (everything else: 1; usage and config errors: 2). */
export const EXIT_CODES: Record<string, number> = {
  Submitted: 0,
  LimitsExceeded: 3,
  TimeExceeded: 4,
  RepeatedFormatError: 5,
  EnvironmentLost: 6,
  // 128 + the signal's number, as a shell reports a process the signal killed.
  Hangup: 129,
  Interrupted: 130,
  Quit: 131,
  Terminated: 143,
};

/**
 * Variables a project's own `./.env` may not set: those that choose the programs claudius runs
 * (`*_EXECUTABLE`, `PAGER`, the dynamic loader's, git's, the engines' addresses and configs) or
 * where its configs come from (`MSWEA_CONFIG_DIR`, ...). A checked-out repository brings its
 * `.env`; it may hold keys and settings, never run code on the host through claudius. The user's
 * own files (`~/.config/claudius/.env`, upstream's global `.env`) and the shell may set them.
 */
export const PROJECT_ENV_REFUSED: RegExp =
  /_EXECUTABLE$|^(MSWEA_(GLOBAL_)?CONFIG_DIR|PAGER|EDITOR|VISUAL|SHELL|BASH_ENV|ENV|PATH|IFS|HOME|TMPDIR)$|^(LD_|DYLD_|GIT_|DENO_|NODE_|PYTHON|XDG_|DOCKER_|CONTAINER|CONTAINERS_|PODMAN_|APPTAINER|SINGULARITY)/;
