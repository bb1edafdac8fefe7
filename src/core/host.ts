/**
 * What the commands need from the process they run in: its environment, terminals, output streams,
 * signals and exit. `main.ts` (the only impure file) builds it from `Deno`; commands receive it, so
 * they never read process-global state themselves.
 *
 * @module
 */
import type { EndingSignal } from "./errors.ts";
import { PROVIDERS } from "./models/providers.ts";

/** The process, as the commands see it. */
export interface Host {
  /** The environment: the process's variables, filled (never overridden) from the `.env` files. */
  env: Record<string, string>;
  /** The current directory. */
  cwd: string;
  /** The command line as typed: the face it ran as (`claudius`, `mini`, ...), then its arguments. */
  commandLine: readonly string[];
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

/** Names that choose the programs claudius runs or where its configs come from. */
const CHOOSES_PROGRAMS =
  /_EXECUTABLE$|^(MSWEA_(GLOBAL_)?CONFIG_DIR|PAGER|EDITOR|VISUAL|SHELL|BASH_ENV|ENV|PATH|IFS|HOME|TMPDIR)$|^(LD_|DYLD_|GIT_|DENO_|NODE_|PYTHON|XDG_|DOCKER_|CONTAINER|CONTAINERS_|PODMAN_|APPTAINER|SINGULARITY)/;

/**
 * Whether a project's own `./.env` may set `name`. A cloned repository brings its `.env`, and it may
 * never widen where your credentials go, what may be spent or what runs on the host: it may hold
 * credentials only, a name ending in `_KEY` or `_TOKEN` (every provider's key variable is one) that
 * chooses no program. Everything else is refused: every provider's `*_BASE_URL` and `*_API_BASE`
 * (your key would go to its server), the spending guards (`MSWEA_COST_TRACKING`,
 * `LITELLM_MODEL_REGISTRY_PATH`, `MSWEA_GLOBAL_COST_LIMIT`), the model, the programs and config
 * directories. The user's own files (`~/.config/claudius/.env`, upstream's global `.env`) and the
 * shell may set anything.
 * @example
 * ```ts
 * projectEnvAllows("OPENAI_API_KEY"); // true
 * projectEnvAllows("OPENAI_BASE_URL"); // false
 * ```
 */
export function projectEnvAllows(name: string): boolean {
  return /_(KEY|TOKEN)$/.test(name) && !CHOOSES_PROGRAMS.test(name);
}

/** Each provider's key variables (the first one set wins), where it has more than one. */
const KEY_GROUPS: readonly (readonly string[])[] = Object.values(PROVIDERS)
  .map((p) => [...p.keyEnv, ...(p.openaiFallback ? ["OPENAI_API_KEY"] : [])])
  .filter((group) => group.length > 1);

/**
 * Why a project's `./.env` may not set the key `name` ({@link projectEnvAllows} allows its name): it
 * would stand in for a credential of yours. A provider reads the first of its key variables that is
 * set, so a project's `ANTHROPIC_API_KEY` would win over your `ANTHROPIC_AUTH_TOKEN` (and
 * `GEMINI_API_KEY` over `GOOGLE_API_KEY`, ...), and its `AWS_BEARER_TOKEN_BEDROCK` over your access
 * keys or `~/.aws` profile (which no variable shows): your run would then work, and send what it reads,
 * on the project's account. Undefined: it may.
 * @param name a variable the project's `./.env` sets
 * @param yours the environment before the project's `./.env` (the shell and your own `.env` files)
 * @returns what of yours it would stand in for, in words
 * @example
 * ```ts
 * projectKeyStandsIn("ANTHROPIC_API_KEY", { ANTHROPIC_AUTH_TOKEN: "t" }); // "ANTHROPIC_AUTH_TOKEN"
 * projectKeyStandsIn("ANTHROPIC_API_KEY", {}); // undefined
 * ```
 */
export function projectKeyStandsIn(
  name: string,
  yours: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (name.startsWith("AWS_")) return "your AWS credentials, variables or a ~/.aws profile";
  for (const group of KEY_GROUPS) {
    if (!group.includes(name)) continue;
    const mine = group.find((other) => other !== name && (yours[other] ?? "") !== "");
    if (mine) return mine;
  }
  return undefined;
}
