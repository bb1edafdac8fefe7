/**
 * Submission artifacts taken from the working directory after a run ends and before the environment
 * is closed: a gzipped tarball of it (`run.save_tarball`, what ProgramBench evaluates) and a git
 * patch of it against HEAD, untracked files included (`run.save_patch`, what SWE-bench evaluates).
 *
 * @module
 */
import type { Environment, HostCommand } from "../core/types.ts";
import { resolve } from "node:path";
import { ConfigError } from "../core/errors.ts";
import { sameFile } from "../lib/files.ts";
import { OrphanGuard } from "../lib/process_groups.ts";
import type { SecretRedactor } from "../core/secret_redactor.ts";
import {
  ISOLATED_GIT,
  NOT_A_REPOSITORY,
  SAFE_DIFF_OPTIONS,
  SAFE_GIT,
  SAFE_GIT_FUNCTION,
} from "../lib/safe_git.ts";

/** The `run` keys that ask for artifacts. */
export interface ArtifactConfig {
  /** Write `submission.tar.gz` (the working directory, `tar -czf - -C <cwd> .`) next to the trajectory. */
  save_tarball?: boolean;
  /** Write `<trajectory stem>.patch` (`git diff --binary` of the working directory vs HEAD) next to it. */
  save_patch?: boolean;
  /** Write the patch here instead (whatever `save_patch` says): `--patch FILE`. */
  patch_path?: string;
}

/** What {@link saveArtifacts} needs from its caller. */
export interface ArtifactDeps {
  /** Notices and warnings, one line each. */
  log: (line: string) => void;
  /**
   * Puts each artifact in place (the rename of its temporary file) only while the run may write its
   * files (a batch instance's claim); throws to leave it out.
   */
  hold?: <T>(write: () => Promise<T>) => Promise<T>;
  /** Seconds allowed per artifact. Default 300. */
  timeoutSeconds?: number;
  /** Aborting it kills the artifact command at once (a second Ctrl-C). */
  force?: AbortSignal;
  /**
   * Removes the API key (in its usual encodings) from the patch (a command may have written it to a
   * file: `env > f`). The tarball is left as it is: compressed, it cannot be searched.
   */
  redactor?: SecretRedactor;
  /**
   * claudius's other outputs of this run (host paths: the ATIF copy, the trajectory a resume goes on
   * from), left out of the patch with the trajectory, the artifacts and their temporary files.
   */
  own?: string[];
}

/** What was saved and what failed. */
export interface ArtifactReport {
  /** Paths written, by artifact (`tarball`, `patch`). */
  saved: Record<string, string>;
  /** One line per artifact that could not be taken (recorded as `info.artifact_errors`). */
  errors: Record<string, string>;
}

/**
 * Stages every changed file (untracked ones too, `.gitignore` respected) in a throwaway copy of the
 * index and git directory ({@link ISOLATED_GIT}: none of the repository's config, hooks or attribute
 * drivers run, and the repository itself is left untouched), and prints the diff against HEAD (the
 * empty tree when there is no commit yet). An index git cannot use outside its repository (a split
 * index) is left out: every file is read then. A signal ends it through `exit`, so the throwaway
 * files are removed then too (the orphan guard of a killed claudius sends SIGTERM first; SIGPIPE
 * comes when the shell reports the killed git on the stderr of a claudius that is gone).
 *
 * Its arguments: {@link OWN_SCRIPT}, then the identities (`<device>:<inode>`, as `stat -c %d:%i`
 * prints them) of claudius's own outputs. The files under the working directory that are one of
 * them are staged as HEAD has them, so the patch never holds the trajectory or the patch being
 * written. Identities, not paths: a host path means nothing in a container, while a file
 * bind-mounted into one keeps its device and inode, as does a file reached by another spelling.
 */
const PATCH_SCRIPT = [
  "set -e",
  SAFE_GIT,
  'tmp="$(mktemp -d)"',
  "trap 'rm -rf \"$tmp\"' EXIT",
  "trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 141' PIPE; trap 'exit 143' TERM",
  ISOLATED_GIT,
  'g add -A . 2>/dev/null || { rm -f "$tmp/index"; g add -A .; }',
  'own="$1"; shift; ids=" $* "',
  "if [ $# -gt 0 ]; then",
  '  set --; for id in $ids; do set -- "$@" -o -inum "${id#*:}"; done; shift',
  '  find . -path ./.git -prune -o \\( "$@" \\) -type f -exec sh -c "$own" sh "$ids" "$tmp/failed" {} + 2>/dev/null || :',
  `  if [ -e "$tmp/failed" ]; then echo "git reset failed: cannot leave claudius's own outputs out" >&2; exit 1; fi`,
  "fi",
  `g diff --cached --binary ${SAFE_DIFF_OPTIONS} --src-prefix=a/ --dst-prefix=b/ "$base"`,
].join("\n");

/**
 * Run by `find -exec` with the identities (one string, space-separated), a file to create when it
 * fails, and the files whose inode is one of them: each that is claudius's own is unstaged.
 */
const OWN_SCRIPT = [
  SAFE_GIT_FUNCTION,
  'ids="$1"; failed="$2"; shift 2',
  "for f; do",
  '  id="$(stat -c %d:%i "$f" 2>/dev/null)" || continue',
  '  case "$ids" in *" $id "*) g reset -q -- ":(literal)$f" >/dev/null 2>&1 || : > "$failed";; esac',
  "done",
].join("\n");

/**
 * Refuse, before anything runs, a patch path the patch could not or must not be written to: a
 * directory, or the trajectory itself (the patch would replace it at the end of the run).
 * @param patchPath absolute
 * @param trajectoryPath absolute
 * @throws {ConfigError} naming the path and why
 */
export async function checkPatchPath(patchPath: string, trajectoryPath: string): Promise<void> {
  const cannot = (why: string) => new ConfigError(`Cannot write the patch to '${patchPath}': ${why}`);
  if (resolve(patchPath) === resolve(trajectoryPath) || await sameFile(patchPath, trajectoryPath)) {
    throw cannot(
      `it is the trajectory (${trajectoryPath}), which the patch would replace; give another file`,
    );
  }
  if ((await Deno.stat(patchPath).catch(() => undefined))?.isDirectory) {
    throw cannot("it is a directory; give a file path");
  }
}

/**
 * Take the artifacts `config` asks for from the environment's working directory, next to the
 * trajectory: `submission.tar.gz` and `<stem>.patch` (stem: the trajectory's name without
 * `.traj.json` / `.json`; `patch_path` instead when given), with the command the environment names ({@link Environment.hostCommand}:
 * on the host for local, in a sandbox for bubblewrap, `docker exec` for docker) streaming to the host file. Files
 * appear whole or not at all (written under a temporary name of this run's own, then renamed: two
 * runs given one path never mix their bytes; the last to finish wins). If claudius is killed
 * meanwhile (SIGKILL), an orphan guard stops the command and removes the temporary file.
 *
 * Never throws: a failure is logged and returned in `errors`. A working directory outside any git
 * repository gives no patch, a one-line notice and `errors.patch` `<dir> is not a git repository`.
 *
 * @example
 * ```ts
 * import { LocalEnvironment } from "../core/environments/local.ts";
 * const env = new LocalEnvironment({ cwd: "/tmp/work" }, {});
 * await env.start();
 * const report = await saveArtifacts(env, { save_tarball: true }, "runs/x.traj.json", { log: console.error });
 * // report.saved.tarball === "runs/submission.tar.gz"
 * await env.close();
 * ```
 * @param env a started environment (before close)
 * @param config the `run` section
 * @param trajectoryPath where the trajectory is written
 * @param deps logger, timeout, force signal
 * @returns the paths written and the errors
 */
export async function saveArtifacts(
  env: Environment,
  config: ArtifactConfig,
  trajectoryPath: string,
  deps: ArtifactDeps,
): Promise<ArtifactReport> {
  const report: ArtifactReport = { saved: {}, errors: {} };
  const slash = trajectoryPath.lastIndexOf("/");
  const dir = slash >= 0 ? trajectoryPath.slice(0, slash + 1) : "";
  const stem = trajectoryPath.slice(slash + 1).replace(/(\.traj)?\.json$/, "");
  const wanted: [name: string, dest: string, what: string, argv: string[]][] = [];
  if (config.save_tarball) {
    wanted.push(["tarball", `${dir}submission.tar.gz`, "tar", ["tar", "-czf", "-", "."]]);
  }
  if (config.save_patch || config.patch_path) {
    const dest = config.patch_path ?? `${dir}${stem}.patch`;
    wanted.push(["patch", dest, "git diff", ["sh", "-c", PATCH_SCRIPT, "sh", OWN_SCRIPT]]);
  }
  const own = [trajectoryPath, ...wanted.map(([, dest]) => dest), ...deps.own ?? []];
  for (const [name, dest, what, argv] of wanted) {
    try {
      const hostCommand = env.hostCommand?.bind(env);
      if (!hostCommand) throw new Error(`artifacts are not supported for ${env.type}`);
      const redact = name === "patch" && deps.redactor?.active
        ? deps.redactor.stream((n) =>
          deps.log(`note: the patch held the API key (${n}x): saved as [REDACTED]`)
        )
        : undefined;
      const inv = async (partial: string) =>
        hostCommand(name === "patch" ? [...argv, ...await identities([...own, partial])] : argv);
      await runToFile(inv, dest, {
        timeoutSeconds: deps.timeoutSeconds ?? 300,
        what,
        force: deps.force,
        transform: redact,
        hold: deps.hold,
      });
      report.saved[name] = dest;
      deps.log(`Saved ${name} to ${dest}`);
    } catch (e) {
      if (e instanceof CommandFailed && name === "patch" && e.code === NOT_A_REPOSITORY) {
        // Not a failure of the run or the harness: there is nothing to diff against.
        report.errors[name] = `${e.stderr} is not a git repository`;
        deps.log(`No patch saved: ${e.stderr} is not a git repository`);
        continue;
      }
      const message = (e instanceof Error ? e.message : String(e)).replaceAll("\n", " ");
      report.errors[name] = message;
      deps.log(`warning: Cannot save the ${name}: ${message}`);
    }
  }
  return report;
}

/** `<device>:<inode>` of each of `paths` that exists (symbolic links followed), once each. */
async function identities(paths: string[]): Promise<string[]> {
  const ids = await Promise.all(paths.map(async (path) => {
    const info = await Deno.stat(path).catch(() => undefined);
    return info?.ino == null ? undefined : `${info.dev}:${info.ino}`;
  }));
  return [...new Set(ids.filter((id) => id !== undefined))];
}

/** An artifact command that ran and exited non-zero. */
class CommandFailed extends Error {
  /** The exit code. */
  readonly code: number;
  /** The last lines of its stderr, joined. */
  readonly stderr: string;
  constructor(message: string, code: number, stderr: string) {
    super(message);
    this.code = code;
    this.stderr = stderr;
  }
}

/**
 * Run the command `inv` gives for the temporary file (created first, renamed to `dest` on success,
 * through `hold` when given) with its stdout going there (through `transform`, when given); `what`
 * names the program in errors. `force` kills its process group at once.
 * @throws {Error} with the command's stderr when it fails, times out, is killed or cannot start
 */
async function runToFile(
  inv: (partial: string) => Promise<HostCommand>,
  dest: string,
  o: {
    timeoutSeconds: number;
    what: string;
    force?: AbortSignal | undefined;
    transform?: TransformStream<Uint8Array, Uint8Array> | undefined;
    hold?: (<T>(write: () => Promise<T>) => Promise<T>) | undefined;
  },
): Promise<void> {
  const { timeoutSeconds, what, force, transform } = o;
  const slash = dest.lastIndexOf("/");
  if (slash > 0) await Deno.mkdir(dest.slice(0, slash), { recursive: true });
  // This run's own name: another run writing the same `--patch` path has its own.
  const partial = `${dest}.${Deno.pid}-${crypto.randomUUID().slice(0, 8)}.partial`;
  const file = await Deno.open(partial, { write: true, createNew: true });
  const guard = new OrphanGuard({ graceSeconds: 2 });
  guard.removeOnDeath(resolve(partial));
  let ok = false;
  try {
    const child = spawnDetached(await inv(partial));
    guard.add(child.pid); // detached: its pid is its process group
    await writeOutput(child, file, { timeoutSeconds, what, force, transform });
    await (o.hold ?? ((write) => write()))(() => Deno.rename(partial, dest));
    ok = true;
  } finally {
    try {
      file.close();
    } catch {
      // pipeTo closed it already.
    }
    if (!ok) await Deno.remove(partial).catch(() => {});
    await guard.close();
  }
}

/** Start `inv` in a process group of its own, stdin closed, stdout and stderr piped. */
function spawnDetached(inv: HostCommand): Deno.ChildProcess {
  const [program, ...args] = inv.argv;
  if (program === undefined) throw new Error("Cannot run the command: it is empty");
  return new Deno.Command(program, {
    args,
    ...(inv.cwd ? { cwd: inv.cwd } : {}),
    ...(inv.env ? { env: inv.env, clearEnv: true } : {}),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).spawn();
}

/**
 * The child's stdout into `file` (through `transform`), within the timeout; `force` kills its group.
 * @throws {Error} when it is killed; {@link CommandFailed} with its stderr when it fails
 */
async function writeOutput(
  child: Deno.ChildProcess,
  file: Deno.FsFile,
  o: {
    timeoutSeconds: number;
    what: string;
    force?: AbortSignal | undefined;
    transform?: TransformStream<Uint8Array, Uint8Array> | undefined;
  },
): Promise<void> {
  let stopped = "";
  const kill = (why: string) => {
    stopped ||= why;
    try {
      Deno.kill(-child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  };
  const timer = setTimeout(() => kill(`no result within ${o.timeoutSeconds} s`), o.timeoutSeconds * 1000);
  const onForce = () => kill("stopped by a second signal");
  if (o.force?.aborted) onForce();
  else o.force?.addEventListener("abort", onForce, { once: true });
  try {
    const [, stderr, status] = await Promise.all([
      (o.transform ? child.stdout.pipeThrough(o.transform) : child.stdout).pipeTo(file.writable),
      new Response(child.stderr).text(),
      child.status,
    ]);
    if (stopped) throw new Error(stopped);
    // GNU tar exits 1 when a file changed while it was read; the archive is still whole.
    const tarWarning = status.code === 1 && o.what === "tar" && !/error/i.test(stderr);
    if (!status.success && !tarWarning) {
      const last = stderr.trim().split("\n").filter((l) => l.trim() !== "").slice(-3).join(" ");
      throw new CommandFailed(`${o.what} failed: ${last || `exit ${status.code}`}`, status.code, last);
    }
  } finally {
    clearTimeout(timer);
    o.force?.removeEventListener("abort", onForce);
  }
}
