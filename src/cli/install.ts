/**
 * `deno task install [--force]`: claudius as a program of its own, and its faces `mini`,
 * `mini-swe-agent`, `mini-extra` and `mini-e` (upstream's console scripts), under
 * `$CLAUDIUS_INSTALL_ROOT` (default: Deno's own install root, `$DENO_INSTALL_ROOT`, else `~/.deno`):
 *
 * - `<root>/lib/claudius/`: the program, bundled by `deno bundle --code-splitting` (main.js, the
 *   chunks each dynamic import loads when it runs, the npm packages inside them), the two worker
 *   modules bundled to their own paths, a copy of `config/`, and the price database's data as JSON
 *   (`genai_prices.json`, from the pinned package: what a run prices calls with, see
 *   `core/models/price_db.ts`); found from main.js by the one rule of `main.ts` (`programFile`).
 *   Nothing in it points back into the checkout or Deno's cache.
 * - `<root>/bin/claudius`: a shell script that runs the bundle with this Deno (its absolute path), the
 *   run task's V8 flags and permissions and `--no-config` (a `deno.json` near the bundle or the user's
 *   project is not read).
 * - `<root>/bin/<face>`: a wrapper that sets `CLAUDIUS_FACE` and runs `<root>/bin/claudius`, unless a
 *   file of that name is there that is not claudius's (pip's `mini`): it is left alone and named;
 *   `--force` replaces it.
 *
 * The task hands this script `$CLAUDIUS_INSTALL_ROOT`, `$DENO_INSTALL_ROOT`, `$HOME` and `$PATH` (so it
 * reads no environment itself), then the `deno run ... main.ts` line with the run task's flags
 * (written once in deno.json), then the task's own arguments.
 *
 * @module
 */
import { FACE_VARIABLE, FACES } from "./face_names.ts";
import { MAP_WORKER } from "../tools/trajectories/map_trajectories.ts";
import { FILTER_WORKER } from "../batch/select.ts";
import { DATA_FILE, packageData } from "../core/models/price_db.ts";
import { priceTable } from "../core/models/price_table.ts";

/** The modules loaded by path rather than imported (workers): each a bundle entry of its own. */
export const WORKER_MODULES: readonly string[] = [MAP_WORKER, FILTER_WORKER];

/** The line every file the install writes into `bin/` carries: a file without it is not claudius's. */
export const MARK = "run by claudius (written by deno task install)";

/** Where the programs go: `<root>/bin`, and the bundle `<root>/lib/claudius`. */
export function installRoot(env: Readonly<Record<string, string | undefined>>): string {
  return env.CLAUDIUS_INSTALL_ROOT || env.DENO_INSTALL_ROOT || `${env.HOME ?? ""}/.deno`;
}

/** What the task's command line says: the `deno run` flags (without `main.ts`) and `--force`. */
export function installArgs(line: readonly string[]): { flags: string[]; force: boolean } {
  const end = line.indexOf("main.ts");
  if (line[0] !== "deno" || line[1] !== "run" || end < 0) {
    throw new TypeError(
      `install.ts: expected a 'deno run ... main.ts' command line, got '${line.join(" ")}'`,
    );
  }
  const options = line.slice(end + 1);
  const unknown = options.find((o) => o !== "--force");
  if (unknown !== undefined) {
    throw new TypeError(`deno task install: unknown argument '${unknown}' (it takes only --force)`);
  }
  return { flags: line.slice(2, end), force: options.includes("--force") };
}

const quote = (s: string) => `'${s.replaceAll("'", `'"'"'`)}'`;

/** The `claudius` script: this Deno runs the bundle's main.js with `flags`. */
export function shimText(deno: string, flags: readonly string[], main: string): string {
  return [
    "#!/bin/sh",
    `# claudius, from its bundle in ${main.replace(/\/[^/]*$/, "")}: ${MARK}`,
    `exec ${[deno, "run", ...flags, main].map(quote).join(" ")} "$@"`,
    "",
  ].join("\n");
}

/**
 * The wrapper of one face: a POSIX shell script that runs the installed `claudius` as that face.
 *
 * @example
 * ```ts
 * import { wrapperText } from "./install.ts";
 * wrapperText("mini", "/opt/deno/bin/claudius").split("\n")[2];
 * // "CLAUDIUS_FACE=mini; export CLAUDIUS_FACE"
 * ```
 */
export function wrapperText(face: string, claudius: string): string {
  return [
    "#!/bin/sh",
    `# mini-swe-agent's ${face}, ${MARK}`,
    `${FACE_VARIABLE}=${face}; export ${FACE_VARIABLE}`,
    `exec ${quote(claudius)} "$@"`,
    "",
  ].join("\n");
}

/** Whether `path` holds a file claudius's install wrote (false for anything else, a folder included). */
export async function isOurs(path: string): Promise<boolean> {
  try {
    const head = new Uint8Array(4096);
    using file = await Deno.open(path);
    const n = (await file.read(head)) ?? 0;
    return new TextDecoder().decode(head.subarray(0, n)).includes(MARK);
  } catch {
    return false;
  }
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** Write `text` as an executable at `path`, replacing what is there (a symlink itself, not its target). */
async function writeExecutable(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp-${Deno.pid}`;
  await Deno.writeTextFile(tmp, text, { mode: 0o755 });
  await Deno.chmod(tmp, 0o755);
  await Deno.rename(tmp, path);
}

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copyTree(`${from}/${e.name}`, `${to}/${e.name}`);
    else if (e.isFile) await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
  }
}

/** Bundle the checkout at `repo` into `dir` (fresh): main.js and its chunks, the workers, config/, the prices. */
export async function bundleInto(deno: string, repo: string, dir: string): Promise<void> {
  const out = await new Deno.Command(deno, {
    // --keep-names: a class's name is an exit status (`Submitted`); the bundler renames clashing ones.
    args: [
      "bundle",
      "--platform",
      "deno",
      "--code-splitting",
      "--keep-names",
      "--outdir",
      dir,
      "main.ts",
      ...WORKER_MODULES,
    ],
    cwd: repo,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(
      `Cannot bundle claudius (deno bundle exited ${out.code}):\n${new TextDecoder().decode(out.stderr)}`,
    );
  }
  for (const worker of WORKER_MODULES) {
    const js = `${dir}/${worker.replace(/\.ts$/, ".js")}`;
    if (!(await exists(js))) throw new Error(`Cannot bundle claudius: deno bundle did not write ${js}`);
  }
  await copyTree(`${repo}/config`, `${dir}/config`);
  // The price database's data, for a run to parse as JSON instead of compiling the package's module.
  const data = { table: priceTable(), providers: await packageData() };
  await Deno.writeTextFile(`${dir}/${DATA_FILE}`, JSON.stringify(data));
}

/** The first `name` on `path` (a `PATH` value), or undefined. */
async function onPath(name: string, path: string): Promise<string | undefined> {
  for (const dir of path.split(":")) {
    const file = `${dir || "."}/${name}`;
    const info = await Deno.stat(file).catch(() => undefined);
    if (info?.isFile && (info.mode ?? 0o111) & 0o111) return file;
  }
  return undefined;
}

/** `install.ts CLAUDIUS_INSTALL_ROOT DENO_INSTALL_ROOT HOME PATH deno run FLAGS main.ts [--force]`. */
async function install(argv: readonly string[]): Promise<number> {
  const [claudiusRoot = "", denoRoot = "", home = "", path = "", ...line] = argv;
  const root = installRoot({ CLAUDIUS_INSTALL_ROOT: claudiusRoot, DENO_INSTALL_ROOT: denoRoot, HOME: home });
  const { flags, force } = installArgs(line);
  const deno = Deno.execPath();
  const repo = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
  const bin = `${root}/bin`, lib = `${root}/lib/claudius`;
  await Deno.mkdir(bin, { recursive: true });
  await Deno.mkdir(`${root}/lib`, { recursive: true });
  // Bundled beside the old one, then swapped in: a failed bundle leaves the old install as it was.
  const fresh = `${lib}.new-${Deno.pid}`, old = `${lib}.old-${Deno.pid}`;
  try {
    await bundleInto(deno, repo, fresh);
  } catch (e) {
    await Deno.remove(fresh, { recursive: true }).catch(() => {});
    throw e;
  }
  const had = await exists(lib);
  if (had) await Deno.rename(lib, old);
  await Deno.rename(fresh, lib);
  if (had) await Deno.remove(old, { recursive: true });
  await writeExecutable(`${bin}/claudius`, shimText(deno, ["--no-config", ...flags], `${lib}/main.js`));
  // What `deno install` left there before (its copy of deno.json), now unused.
  await Deno.remove(`${bin}/.claudius`, { recursive: true }).catch(() => {});
  const written = ["claudius"], skipped: string[] = [];
  for (const face of FACES.filter((f) => f !== "claudius")) {
    const file = `${bin}/${face}`;
    if (!force && await exists(file) && !(await isOurs(file))) {
      skipped.push(face);
      continue;
    }
    await writeExecutable(file, wrapperText(face, `${bin}/claudius`));
    written.push(face);
  }
  console.error(`Installed ${written.join(", ")} into ${bin} (the program: ${lib})`);
  for (const face of skipped) {
    console.error(
      `skipped ${bin}/${face}: it is not claudius's (another program's ${face}, such as pip's ` +
        "mini-swe-agent); deno task install --force replaces it",
    );
  }
  const dirs = path.split(":");
  if (!dirs.includes(bin)) console.error(`note: ${bin} is not on your PATH: export PATH="${bin}:$PATH"`);
  else {
    for (const name of written) {
      const first = await onPath(name, path);
      if (first && first !== `${bin}/${name}`) {
        console.error(
          `note: '${name}' on your PATH is ${first}${(await isOurs(first)) ? "" : ", not claudius's"}` +
            ` (it comes before ${bin})`,
        );
      }
    }
  }
  return 0;
}

if (import.meta.main) {
  try {
    Deno.exit(await install(Deno.args));
  } catch (e) {
    console.error(`error: ${(e as Error).message}`);
    Deno.exit(1);
  }
}
