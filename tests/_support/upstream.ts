/**
 * Stand-ins for upstream's config files as a release lays them out (`src/minisweagent/config/...`),
 * made from the own-words files of tests/testdata/upstream_configs/, with the digest table that
 * vouches for them (handed to claudius by `CLAUDIUS_TEST_UPSTREAM_DIGESTS`), and the CLI as a
 * subprocess under a home of its own.
 *
 * @module
 */
import { sha256Hex } from "../../src/lib/sha256.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const CONFIGS = new URL("../testdata/upstream_configs/", import.meta.url).pathname;
const PERMS = ["--allow-read", "--allow-write", "--allow-run", "--allow-env", "--allow-net", "--allow-sys"];
const DENO_DIR = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;

/** Each stand-in's path under upstream's `config/` (upstream's layout of 2.4.6). */
export const STAND_IN_FILES: Readonly<Record<string, string>> = {
  "default.yaml": "default.yaml",
  "mini.yaml": "mini.yaml",
  "mini_textbased.yaml": "mini_textbased.yaml",
  "benchmarks/programbench.yaml": "programbench.yaml",
  "benchmarks/swebench.yaml": "swebench.yaml",
  "benchmarks/swebench_backticks.yaml": "swebench_backticks.yaml",
  "benchmarks/swebench_modal.yaml": "swebench_modal.yaml",
  "benchmarks/swebench_xml.yaml": "swebench_xml.yaml",
};

/** A stand-in release: where its files are and the digest table naming them release `version`'s. */
export interface StandIn {
  /** The root: `<root>/src/minisweagent/config/...`, as a checkout. */
  root: string;
  /** `<root>/src/minisweagent/config`. */
  config: string;
  /** The digest table's file (for `CLAUDIUS_TEST_UPSTREAM_DIGESTS`). */
  table: string;
  /** File -> sha256. */
  digests: Record<string, string>;
}

/**
 * Lay out the stand-ins as a checkout of release `version` and write their digest table.
 * @param only the files to include (default all)
 */
export async function standInRelease(version = "2.4.6", only?: string[]): Promise<StandIn> {
  const root = await Deno.makeTempDir({ prefix: "claudius-upstream-" });
  const config = `${root}/src/minisweagent/config`;
  await Deno.mkdir(`${config}/benchmarks`, { recursive: true });
  await Deno.writeTextFile(
    `${root}/src/minisweagent/__init__.py`,
    `__version__ = "${version}"\nraise SystemExit("imported: claudius must only locate this package")\n`,
  );
  const digests: Record<string, string> = {};
  for (const [file, own] of Object.entries(STAND_IN_FILES)) {
    if (only && !only.includes(file)) continue;
    const bytes = await Deno.readFile(`${CONFIGS}${own}`);
    await Deno.writeFile(`${config}/${file}`, bytes);
    digests[file] = await sha256Hex(bytes);
  }
  // A checkout's root has YAML files of its own (mkdocs.yml, .pre-commit-config.yaml).
  await Deno.writeTextFile(`${root}/mkdocs.yml`, "site_name: stand-in\n");
  const table = `${root}/digests.json`;
  await Deno.writeTextFile(table, JSON.stringify({ [version]: digests }));
  return { root, config, table, digests };
}

/** The CLI's output. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** A home directory of its own (claudius's config and cache directories, upstream's global config). */
export async function freshHome(): Promise<
  { HOME: string; MSWEA_GLOBAL_CONFIG_DIR: string; MSWEA_CONFIGURED: string }
> {
  const home = await Deno.makeTempDir({ prefix: "claudius-home-" });
  return { HOME: home, MSWEA_GLOBAL_CONFIG_DIR: `${home}/g`, MSWEA_CONFIGURED: "true" };
}

/**
 * Run the CLI (`face` sets `CLAUDIUS_FACE`) with `env` on top of a clean environment (PATH, DENO_DIR).
 */
export async function cli(
  args: string[],
  env: Record<string, string>,
  options: { cwd?: string; face?: string } = {},
): Promise<Ran> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMS, MAIN, ...args],
    cwd: options.cwd ?? env.HOME ?? Deno.cwd(),
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      DENO_DIR,
      NO_COLOR: "1",
      ...(options.face ? { CLAUDIUS_FACE: options.face } : {}),
      ...env,
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const d = new TextDecoder();
  return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
}

/** Make an archive of `dir` with Python's own tarfile or zipfile (an implementation independent of claudius). */
export async function pythonArchive(
  dir: string,
  out: string,
  kind: "tar.gz" | "tar" | "zip",
  prefix: string,
) {
  const script = kind === "zip"
    ? "import os,sys,zipfile\nz=zipfile.ZipFile(sys.argv[2],'w',zipfile.ZIP_DEFLATED)\n" +
      "for r,_,fs in os.walk(sys.argv[1]):\n for f in fs:\n  p=os.path.join(r,f)\n" +
      "  z.write(p, sys.argv[3]+os.path.relpath(p,sys.argv[1]))\nz.close()"
    : `import sys,tarfile\nt=tarfile.open(sys.argv[2],'w${
      kind === "tar" ? "" : ":gz"
    }',format=tarfile.PAX_FORMAT)\n` +
      "t.add(sys.argv[1], arcname=sys.argv[3].rstrip('/'))\nt.close()";
  const r = await new Deno.Command("python3", { args: ["-c", script, dir, out, prefix] }).output();
  if (!r.success) throw new Error(`python3 could not write ${out}: ${new TextDecoder().decode(r.stderr)}`);
}
