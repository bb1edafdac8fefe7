/**
 * claudius: the only impure file. It reads argv, the environment and `.env` files, builds the
 * {@link Host} the commands run against (terminals, output, signals, exit), runs the command, maps
 * errors to messages and exit codes, and exits.
 *
 * @module
 */
import { parseDotEnv } from "./src/lib/python/dotenv.ts";
import { NotUtf8Error, readUtf8File } from "./src/lib/text_file.ts";
import { DOTENV_MAX_BYTES } from "./src/lib/python/dotenv.ts";
import { dispatch } from "./src/cli/commands.ts";
import { UsageError } from "./src/lib/flags.ts";
import { ConfigError } from "./src/core/errors.ts";
import { redactText, secretValues } from "./src/core/redact.ts";
import { escapeControls } from "./src/lib/safe_text.ts";
import { type Host, projectEnvAllows, projectKeyStandsIn } from "./src/core/host.ts";
import { claudiusConfigDir } from "./src/core/user_dirs.ts";
import {
  type Face,
  FACE_VARIABLE,
  faceOf,
  isDenoExecutable,
  isUpstreamFace,
  programName,
} from "./src/cli/face_names.ts";

/** Write to stdout or stderr, which may be gone (a closed terminal gives EIO): the run goes on without. */
function quietly(write: () => void): void {
  try {
    write();
  } catch {
    // Nowhere left to write.
  }
}
const err = (line: string) => quietly(() => console.error(line));

/** Characters of an error message shown on stderr; the trajectory keeps it whole. */
const SHOWN_CHARS = 1000;

function clip(message: string): string {
  const more = message.length - SHOWN_CHARS;
  return more > 0 ? `${message.slice(0, SHOWN_CHARS)}... [${more} more characters]` : message;
}

/**
 * The process environment, filled (never overridden) from the user config dir, then upstream's global
 * `.env` (`$MSWEA_GLOBAL_CONFIG_DIR/.env`, else `~/.config/mini-swe-agent/.env`), then the project's
 * ./.env, each read as python-dotenv reads it (`${VAR}` expanded from what is set so far). The
 * project's ./.env comes last and sees nothing of the rest (`${VAR}` from its own lines only): it may
 * hold keys nobody else set ({@link projectEnvAllows}) that stand in for no credential of yours
 * ({@link projectKeyStandsIn}); anything else it sets is refused in one line.
 * Upstream's faces read upstream's global `.env` only, as upstream does.
 */
async function hostEnvironment(face: Face): Promise<Record<string, string>> {
  const env = Deno.env.toObject();
  const configHome = env.XDG_CONFIG_HOME || (env.HOME ? `${env.HOME}/.config` : "");
  const fill = async (file: string, project = false) => {
    let text: string;
    try {
      // A FIFO would block the start, a device (/dev/zero) fill the memory: files only, 1 MiB at most.
      text = await readUtf8File(file, { regularOnly: true, maxBytes: DOTENV_MAX_BYTES });
    } catch (e) {
      // Python's load_dotenv refuses such a file too; read lossily, its values would reach every command.
      if (e instanceof NotUtf8Error) throw new ConfigError(`Cannot read ${file}: ${e.message}`);
      if (!(e instanceof Deno.errors.NotFound)) err(`warning: Cannot read ${file}: ${(e as Error).message}`);
      return;
    }
    const refused: string[] = [];
    const standsIn: string[] = [];
    const yours = { ...env };
    for (const [k, v] of Object.entries(parseDotEnv(text, project ? {} : env))) {
      if (v.includes("\0")) {
        // No process environment holds one: every command would fail to start.
        throw new ConfigError(`Cannot use ${file}: the value of ${k} holds a NUL byte`);
      }
      const mine = project && !(k in env) ? projectKeyStandsIn(k, yours) : undefined;
      if (project && !projectEnvAllows(k)) refused.push(k);
      else if (mine) standsIn.push(`${k} (for ${mine})`);
      else if (!(k in env)) env[k] = v;
    }
    if (standsIn.length) {
      err(
        `warning: ${file} sets ${standsIn.join(", ")}: ignored (a project's key never stands in for a ` +
          "credential of yours: your run would go on the project's account)",
      );
    }
    if (refused.length) {
      err(
        `warning: ${file} sets ${refused.join(", ")}: ignored (a project's .env may only hold keys, ` +
          "names ending in _KEY or _TOKEN, and never replaces yours; set the others in your shell or " +
          "~/.config/claudius/.env)",
      );
    }
  };
  const own = claudiusConfigDir(env);
  if (!isUpstreamFace(face) && own) await fill(`${own}/.env`);
  const upstreamDir = env.MSWEA_GLOBAL_CONFIG_DIR || (configHome ? `${configHome}/mini-swe-agent` : "");
  if (upstreamDir) await fill(`${upstreamDir}/.env`);
  if (!isUpstreamFace(face)) await fill(".env", true);
  return env;
}

/**
 * The directory the user ran claudius from, made the current one. `deno task` runs a task in its
 * deno.json's directory (this checkout) and passes the user's as `INIT_CWD`: claudius moves there, so
 * `.env`, `runs/`, `workspace/` and every relative path on the command line are the user's, as they are
 * for an installed `claudius`. An `INIT_CWD` inherited by a claudius started anywhere else is ignored.
 */
function userDirectory(): string {
  const here = Deno.cwd();
  const from = Deno.env.get("INIT_CWD");
  if (!from || from === here) return here;
  const real = (path: string) => {
    try {
      return Deno.realPathSync(path);
    } catch {
      return path;
    }
  };
  if (real(here) !== real(new URL(".", import.meta.url).pathname)) return here;
  try {
    Deno.chdir(from);
  } catch (e) {
    err(`warning: Cannot work in INIT_CWD '${from}' (${(e as Error).message}): working in ${here}`);
    return here;
  }
  return Deno.cwd();
}

/**
 * A file of the program by its path in the checkout, found from this module, the entry: a checkout
 * and a compiled binary have main.ts with the files beside it as they are in the checkout; the bundle
 * of `deno task install` has main.js with `config/` copied beside it and every other entry module
 * (the workers) bundled to its own path, as `.js`. The one rule for config/ and the workers.
 */
function programFile(path: string): URL {
  const bundled = import.meta.url.endsWith(".js");
  return new URL(bundled ? path.replace(/\.ts$/, ".js") : path, import.meta.url);
}

/** Where this claudius runs from (`--version`): a compiled binary, an install's bundle or a checkout. */
function origin(): string {
  const exec = Deno.execPath();
  if (!isDenoExecutable(exec)) return `compiled ${exec}`;
  const dir = new URL(".", import.meta.url).pathname.replace(/\/$/, "");
  return `${import.meta.url.endsWith(".js") ? "install" : "checkout"} ${dir}, deno ${Deno.version.deno}`;
}

/** The process as the commands see it (see {@link Host}). */
async function processHost(face: Face, argv: string[]): Promise<Host> {
  const cwd = userDirectory();
  const encoder = new TextEncoder();
  const terminal = {
    stdin: Deno.stdin.isTerminal(),
    stdout: Deno.stdout.isTerminal(),
    stderr: Deno.stderr.isTerminal(),
  };
  return {
    env: await hostEnvironment(face),
    cwd,
    commandLine: [face, ...argv],
    builtinDir: programFile("config").pathname,
    programFile,
    origin: origin(),
    stdin: Deno.stdin,
    stdout: Deno.stdout,
    terminal,
    out: (text) => quietly(() => Deno.stdout.writeSync(encoder.encode(text))),
    err,
    errText: (text) => quietly(() => Deno.stderr.writeSync(encoder.encode(text))),
    consoleSize: () => {
      try {
        if (terminal.stdout) return Deno.consoleSize();
      } catch { /* the terminal went away (closed) */ }
      return { columns: 80, rows: 24 };
    },
    machine: () => ({ cpus: navigator.hardwareConcurrency, memory: Deno.systemMemoryInfo().total }),
    onSignal: (name, listener) => {
      Deno.addSignalListener(name, listener);
      return () => Deno.removeSignalListener(name, listener);
    },
    exit: (code) => Deno.exit(code),
  };
}

async function main(argv: string[], face: Face): Promise<number> {
  return await dispatch(argv, await processHost(face, argv), face);
}

/** The face this process was started as (a wrapper's variable is not passed on to the commands run). */
async function startedAs(): Promise<Face> {
  const variable = Deno.env.get(FACE_VARIABLE);
  Deno.env.delete(FACE_VARIABLE);
  return faceOf(variable ? "" : await programName(Deno.execPath()), variable);
}

if (import.meta.main) {
  const verbose = Deno.args.includes("-v") || Deno.args.includes("--verbose");
  let code: number;
  let face: Face = "claudius";
  try {
    face = await startedAs();
    code = await main(Deno.args, face);
  } catch (e) {
    const error = e instanceof Error ? e : new Error(String(e));
    // Errors may quote a credential (a URL with a password, an echoed key): never on stderr.
    const shown = (text: string) => redactText(text, secretValues(Deno.env.toObject()));
    // Deno asks for --allow-all before touching /dev, /proc or /sys: say what that means here.
    const denied = /Requires all access to ("[^"]*"), run again with the --allow-all flag/;
    const message = error.message.replace(
      denied,
      "$1 is a device, /proc or /sys path, which claudius does not use",
    );
    err(`error: ${clip(shown(escapeControls(message)))}`);
    if (e instanceof UsageError) {
      err(`hint: run '${face}${e.command ? ` ${e.command}` : ""} --help' for usage`);
    }
    if (verbose) {
      err(shown(error.stack ?? ""));
      for (let c = error.cause; c; c = c instanceof Error ? c.cause : undefined) {
        err(`caused by: ${shown(c instanceof Error ? c.stack ?? c.message : String(c))}`);
      }
    }
    // Upstream's faces exit 1 on a bad config, as an uncaught Python exception does; 2 for usage errors.
    const config = e instanceof ConfigError && !isUpstreamFace(face);
    code = e instanceof UsageError || config || denied.test(error.message) ? 2 : 1;
  }
  Deno.exit(code);
}
