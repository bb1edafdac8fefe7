/**
 * The release of upstream's config files that upstream's names resolve to: the one imported last
 * (`claudius config import-upstream`), else the config files of a `minisweagent` Python package the
 * user has installed (pip), found without importing it and used only when every file is its release's.
 *
 * Finding the package asks Python (`importlib.util.find_spec`, which locates a top-level package
 * without running its `__init__`), 0.1-0.6 s; the answer is cached under claudius's cache directory,
 * keyed by the Python asked and the variables and version files that choose its `sys.path`, and
 * trusted while no entry of that `sys.path` changed (an install or removal changes its directory).
 * `CLAUDIUS_PYTHON` names the Python to ask (default `python3`); set empty, none is asked.
 *
 * @module
 */
import { sha256Hex } from "../../lib/sha256.ts";
import { claudiusCacheDir, type Env } from "../user_dirs.ts";
import { activeRelease, type StoredFile, type UpstreamRelease } from "./upstream_store.ts";
import { type DigestTable, digestTable, newestFirst, releasesWith } from "./digest_table.ts";

/** The variable naming the Python asked for an installed `minisweagent` (empty: none is asked). */
export const PYTHON_VARIABLE = "CLAUDIUS_PYTHON";

/** The variables that choose which Python runs and what its `sys.path` is. */
const PYTHON_ENV = [
  "PATH",
  "PYTHONPATH",
  "PYTHONHOME",
  "PYTHONUSERBASE",
  "PYTHONNOUSERSITE",
  "PYTHONSAFEPATH",
  "VIRTUAL_ENV",
  "CONDA_PREFIX",
  "PYENV_VERSION",
  "HOME",
];

/**
 * Finds the package and prints its directory and `sys.path`. The current directory (a repository the
 * user runs in, which may hold a `json.py`) leaves `sys.path` before anything is imported.
 */
const SCRIPT = [
  "import sys",
  "sys.path[:] = [p for p in sys.path if p not in ('', '.')]",
  "import importlib.util, json",
  "spec = importlib.util.find_spec('minisweagent')",
  "places = list(spec.submodule_search_locations or []) if spec else []",
  "print(json.dumps({'package': places[0] if places else None, 'path': sys.path}))",
].join("\n");

interface Lookup {
  key: string;
  package: string | null;
  /** Each `sys.path` entry and its modification time (ms; null when it did not exist). */
  path: [string, number | null][];
}

const MAX_CACHED = 16;

const mtime = (path: string) => Deno.stat(path).then((s) => s.mtime?.getTime() ?? 0, () => null);

/** The version files of pyenv, uv and asdf that apply in `cwd` (they choose a shim's Python). */
async function versionFiles(cwd: string): Promise<string[]> {
  const found: string[] = [];
  for (let dir = cwd; dir; dir = dir.slice(0, dir.lastIndexOf("/"))) {
    for (const name of [".python-version", ".tool-versions"]) {
      const text = await Deno.readTextFile(`${dir}/${name}`).catch(() => undefined);
      if (text !== undefined) found.push(`${dir}/${name}:${text}`);
    }
    if (found.length) break;
  }
  return found;
}

async function ask(
  python: string,
  cwd: string,
): Promise<{ package: string | null; path: string[] } | undefined> {
  try {
    const out = await new Deno.Command(python, {
      args: ["-c", SCRIPT],
      cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
      signal: AbortSignal.timeout(20_000),
    }).output();
    if (!out.success) return undefined;
    const data = JSON.parse(new TextDecoder().decode(out.stdout));
    return { package: typeof data.package === "string" ? data.package : null, path: data.path ?? [] };
  } catch {
    return undefined; // no such Python, or it failed: no package found
  }
}

/**
 * The directory of an installed `minisweagent` package, or undefined: from the cache while its
 * `sys.path` is unchanged, else by asking Python (and caching the answer).
 */
export async function findPythonPackage(env: Env, cwd: string): Promise<string | undefined> {
  const python = env[PYTHON_VARIABLE] ?? "python3";
  if (!python) return undefined;
  const key = JSON.stringify([python, ...PYTHON_ENV.map((v) => env[v] ?? null), ...await versionFiles(cwd)]);
  const cacheDir = claudiusCacheDir(env);
  const cacheFile = cacheDir && `${cacheDir}/python_lookup.json`;
  let cached: Lookup[] = [];
  if (cacheFile) {
    cached = await Deno.readTextFile(cacheFile).then((t) => JSON.parse(t).entries ?? [], () => []);
    const hit = cached.find((e) => e.key === key);
    if (hit) {
      const now = await Promise.all(hit.path.map(([p]) => mtime(p)));
      if (hit.path.every(([, t], i) => t === now[i])) return hit.package ?? undefined;
    }
  }
  const answer = await ask(python, cwd);
  if (answer === undefined) return undefined;
  const path = await Promise.all(
    answer.path.map(async (p): Promise<[string, number | null]> => [p, await mtime(p)]),
  );
  if (cacheFile) {
    const entries = [{ key, package: answer.package, path }, ...cached.filter((e) => e.key !== key)];
    const temp = `${cacheFile}.${Deno.pid}.tmp`;
    try {
      await Deno.mkdir(cacheDir!, { recursive: true });
      await Deno.writeTextFile(temp, JSON.stringify({ entries: entries.slice(0, MAX_CACHED) }));
      await Deno.rename(temp, cacheFile);
    } catch {
      await Deno.remove(temp).catch(() => {}); // a cache that cannot be written is asked again next time
    }
  }
  return answer.package ?? undefined;
}

/** The YAML files under a config directory, by path there. */
async function yamlFiles(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (sub: string) => {
    for await (const e of Deno.readDir(`${dir}${sub}`)) {
      const rel = `${sub.slice(1)}${sub ? "/" : ""}${e.name}`;
      if (e.isDirectory && e.name !== "__pycache__") await walk(`${sub}/${e.name}`);
      else if (e.isFile && /\.ya?ml$/.test(e.name)) {
        out.set(rel, await sha256Hex(await Deno.readFile(`${dir}/${rel}`)));
      }
    }
  };
  await walk("").catch(() => {});
  return out;
}

/**
 * A package's config files as a release, when each is its release's (the release its `__version__`
 * says, else the newest whose files they all are); else undefined and one note saying why.
 */
async function packageRelease(
  packageDir: string,
  table: DigestTable,
  log: (line: string) => void,
): Promise<UpstreamRelease | undefined> {
  const dir = `${packageDir}/config`;
  const found = await yamlFiles(dir);
  const init = await Deno.readTextFile(`${packageDir}/__init__.py`).catch(() => "");
  const declared = /__version__\s*=\s*["']([^"']+)["']/.exec(init)?.[1];
  const fits = (v: string) =>
    Object.entries(table.releases[v] ?? {}).every(([file, sha]) => found.get(file) === sha);
  const releases = newestFirst(table).filter(fits);
  const version = declared !== undefined && releases.includes(declared) ? declared : releases[0];
  if (version === undefined) {
    const against = declared !== undefined && table.releases[declared] ? declared : newestFirst(table)[0]!;
    const [file, want] = Object.entries(table.releases[against]!).find(([f, sha]) => found.get(f) !== sha)!;
    const got = found.get(file);
    const other = got && releasesWith(table, file, got)[0];
    log(
      `note: the Python package ${packageDir} (mini-swe-agent ${declared ?? "?"}) is not used: its ` +
        `config/${file} ${
          got
            ? `is not ${against}'s (sha256 ${got}; ${against}'s is ${want}${
              other ? `; it is ${other}'s` : ""
            })`
            : "is missing"
        }; ` +
        `'claudius config import-upstream ${dir} --allow-modified' imports it anyway`,
    );
    return undefined;
  }
  const files: Record<string, StoredFile> = {};
  for (const file of Object.keys(table.releases[version]!)) files[file] = { sha256: found.get(file)! };
  return {
    version,
    dir,
    origin: "python package",
    source: packageDir,
    files,
    ...(table.testTable ? { testTable: table.testTable } : {}),
  };
}

/**
 * The release upstream's names resolve to: the imported one in use, else an installed package's
 * (checked); undefined when there is neither.
 * @param log one-line notes (a package found but not used)
 * @throws {ConfigError} for a store that cannot be read
 */
export async function releaseInUse(
  env: Env,
  cwd: string,
  log: (line: string) => void,
): Promise<UpstreamRelease | undefined> {
  const imported = await activeRelease(env);
  if (imported) return imported;
  const packageDir = await findPythonPackage(env, cwd);
  return packageDir ? await packageRelease(packageDir, await digestTable(env), log) : undefined;
}
