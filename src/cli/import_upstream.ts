/**
 * `claudius config import-upstream [SOURCE] [--version V]` (also `mini-extra config import-upstream`):
 * upstream's config files of one release, from a directory (a checkout's `src/minisweagent/config/`,
 * an installed package's `minisweagent/config/`, or a folder above either), an archive (tar, tar.gz,
 * zip: upstream's release tarball, a wheel) or an https URL of one, or, with no SOURCE, the release's
 * files from upstream's GitHub repository. Each file is checked against the digests of its release
 * (`core/config/upstream_digests.ts`); one that differs is refused unless `--allow-modified`, which
 * keeps it recorded as modified. The files are stored per release under claudius's config directory
 * and become what upstream's names resolve to.
 *
 * @module
 */
import { type CommandSpec, flag, parseCommandLine, UsageError } from "../lib/flags.ts";
import { renderHelp } from "../lib/help.ts";
import { readArchive } from "../lib/archive.ts";
import { sha256Hex } from "../lib/sha256.ts";
import { errorMessage } from "../lib/errors.ts";
import { resolvePath } from "../lib/paths.ts";
import type { Host } from "../core/host.ts";
import { ConfigError } from "../core/errors.ts";
import { VERSION } from "../core/version.ts";
import {
  DEFAULT_RELEASE,
  type Manifest,
  type StoredFile,
  storeRelease,
} from "../core/config/upstream_store.ts";
import { type DigestTable, digestTable, newestFirst, releasesWith } from "../core/config/digest_table.ts";

/** The variable a test points the download at (a loopback server), instead of upstream's repository. */
export const TEST_URL_VARIABLE = "CLAUDIUS_TEST_UPSTREAM_URL";
/** Upstream's files over https, by tag: `<base>/v<version>/src/minisweagent/config/<file>`. */
const RAW_BASE = "https://raw.githubusercontent.com/SWE-agent/mini-swe-agent";
/** The most bytes an archive download may have. */
const MAX_DOWNLOAD = 256 << 20;

const FLAGS = {
  version: flag({
    type: "string",
    value: "V",
    doc: `the release (default: the one SOURCE says it is, else ${DEFAULT_RELEASE})`,
  }),
  "allow-modified": flag({
    type: "boolean",
    doc: "keep a file that is not the release's, recorded as modified (else it is refused)",
  }),
  help: flag({ type: "boolean", short: "h", doc: "print this help" }),
} as const;

/** `claudius config import-upstream`. */
export function importSpec(name: string): CommandSpec<typeof FLAGS> {
  return {
    name: `${name} import-upstream`,
    summary: "bring mini-swe-agent's own config files (its prompts), checked by their sha256",
    usage: ["[SOURCE] [--version V] [--allow-modified]"],
    examples: [
      [`${name} import-upstream`, `${DEFAULT_RELEASE}'s files from upstream's GitHub repository`],
      [`${name} import-upstream ~/src/mini-swe-agent`, "from a checkout (or site-packages/minisweagent)"],
      [`${name} import-upstream mini-swe-agent-2.4.6.tar.gz`, "from the release tarball (or a wheel)"],
    ],
    description: "Every file is checked against the sha256 digests claudius keeps for each release " +
      "(2.0.0 on). The files are stored in ~/.config/claudius/upstream/<version>/ (XDG_CONFIG_HOME), " +
      "and from then on upstream's names (-c mini, -c swebench, ..., and the defaults of mini, " +
      "mini-swe-agent, mini-extra and claudius batch --mode) run them; claudius's own words stay as " +
      "-c claudius/NAME. The last release imported is the one used.",
    flags: FLAGS,
    positionals: { min: 0, max: 1, name: "SOURCE (a directory, an archive, or an https URL of one)" },
  };
}

/** A release's files as found in a source, by their path under upstream's `config/`. */
interface Found {
  files: Map<string, Uint8Array>;
  /** The release the source says it is (`__version__`, an archive's folder name), if it says. */
  declared?: string;
  /** Where they were read, for messages. */
  where: string;
}

const VERSION_TEXT = /__version__\s*=\s*["']([^"']+)["']/;
/** A release in a folder's or file's name (`mini-swe-agent-2.4.6/`, `mini_swe_agent-2.4.6-py3-none-any.whl`). */
const RELEASE_IN_NAME = /(\d+\.\d+\.\d+)/;
const isConfigFile = (p: string) => /\.ya?ml$/.test(p);

/** The files under upstream's `config/` in an archive's entries (`.../minisweagent/config/...`). */
function fromEntries(entries: Map<string, Uint8Array>, where: string, name: string): Found {
  const files = new Map<string, Uint8Array>();
  let declared: string | undefined;
  let prefix: string | undefined;
  for (const [path, bytes] of [...entries].sort(([a], [b]) => a.localeCompare(b))) {
    const m = /^(.*?)minisweagent\/(config\/(.+)|__init__\.py)$/.exec(path);
    if (!m || (prefix !== undefined && m[1] !== prefix)) continue;
    prefix = m[1];
    if (m[3] !== undefined) files.set(m[3], bytes);
    else declared = VERSION_TEXT.exec(new TextDecoder().decode(bytes))?.[1];
  }
  declared ??= RELEASE_IN_NAME.exec(prefix ?? "")?.[1] ?? RELEASE_IN_NAME.exec(name)?.[1];
  return { files, where, ...(declared ? { declared } : {}) };
}

async function isDir(path: string): Promise<boolean> {
  return await Deno.stat(path).then((s) => s.isDirectory, () => false);
}

/**
 * The config directory a directory source names: `src/minisweagent/config` or `minisweagent/config`
 * below it (a checkout, site-packages), its `config`, else itself (a checkout's root holds YAML files
 * of its own, so the deeper places come first).
 */
async function configDirOf(dir: string): Promise<string | undefined> {
  for (const sub of ["/src/minisweagent/config", "/minisweagent/config", "/config", ""]) {
    const candidate = `${dir}${sub}`;
    const yaml = await Array.fromAsync(Deno.readDir(candidate)).then(
      (es) => es.some((e) => e.isFile && isConfigFile(e.name)),
      () => false,
    );
    if (yaml) return candidate;
  }
  return undefined;
}

async function fromDirectory(dir: string): Promise<Found> {
  const config = await configDirOf(dir);
  if (!config) {
    throw new UsageError(
      `Cannot import from ${dir}: no config files there (looked in it, and in config/, ` +
        "minisweagent/config/ and src/minisweagent/config/ below it)",
    );
  }
  const files = new Map<string, Uint8Array>();
  const walk = async (sub: string) => {
    for await (const e of Deno.readDir(`${config}${sub}`)) {
      const rel = `${sub ? `${sub.slice(1)}/` : ""}${e.name}`;
      if (e.isDirectory && !e.name.startsWith(".") && e.name !== "__pycache__") {
        await walk(`${sub}/${e.name}`);
      } else if (e.isFile && isConfigFile(e.name)) files.set(rel, await Deno.readFile(`${config}/${rel}`));
    }
  };
  await walk("");
  const init = await Deno.readTextFile(`${config}/../__init__.py`).catch(() => "");
  const declared = VERSION_TEXT.exec(init)?.[1];
  return { files, where: config, ...(declared ? { declared } : {}) };
}

function isLoopback(url: URL): boolean {
  return ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
}

async function download(url: string, signal?: AbortSignal): Promise<Uint8Array> {
  const response = await fetch(url, signal ? { signal } : {}).catch((e) => {
    throw new ConfigError(`Cannot download ${url}: ${errorMessage(e)}`);
  });
  if (!response.ok) {
    await response.body?.cancel();
    throw new ConfigError(`Cannot download ${url}: HTTP ${response.status} ${response.statusText}`);
  }
  const length = Number(response.headers.get("content-length") ?? 0);
  if (length > MAX_DOWNLOAD) {
    await response.body?.cancel();
    throw new ConfigError(`Cannot download ${url}: ${length} bytes is more than ${MAX_DOWNLOAD >> 20} MiB`);
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.length > MAX_DOWNLOAD) {
    throw new ConfigError(`Cannot download ${url}: more than ${MAX_DOWNLOAD >> 20} MiB`);
  }
  return bytes;
}

function checkedUrl(text: string): URL {
  const url = new URL(text);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopback(url))) {
    throw new UsageError(`Cannot import from ${text}: only https URLs (or http on this machine's loopback)`);
  }
  return url;
}

/** The release's files from upstream's repository (or {@link TEST_URL_VARIABLE}'s server), one by one. */
async function fromRepository(version: string, table: DigestTable, env: Host["env"]): Promise<Found> {
  const base = (env[TEST_URL_VARIABLE] || RAW_BASE).replace(/\/+$/, "");
  const listed = table.releases[version];
  if (!listed) throw unknownRelease(version, table);
  const files = new Map<string, Uint8Array>();
  for (const file of Object.keys(listed)) {
    files.set(file, await download(`${checkedUrl(base).href}/v${version}/src/minisweagent/config/${file}`));
  }
  return { files, where: `${base}/v${version}/src/minisweagent/config/`, declared: version };
}

function unknownRelease(version: string, table: DigestTable): UsageError {
  return new UsageError(
    `--version ${version}: claudius keeps no digests for that release (it knows ${
      newestFirst(table).reverse().join(", ")
    })`,
  );
}

async function gather(
  source: string | undefined,
  version: string | undefined,
  table: DigestTable,
  host: Host,
) {
  if (source === undefined) return await fromRepository(version ?? DEFAULT_RELEASE, table, host.env);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) {
    const url = checkedUrl(source);
    const name = url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
    return fromEntries(await unpack(await download(url.href), source), source, name);
  }
  const path = resolvePath(source, host.cwd);
  if (await isDir(path)) return await fromDirectory(path);
  const bytes = await Deno.readFile(path).catch((e) => {
    throw new UsageError(`Cannot import from ${source}: ${errorMessage(e)}`);
  });
  return fromEntries(await unpack(bytes, source), path, path.slice(path.lastIndexOf("/") + 1));
}

async function unpack(bytes: Uint8Array, source: string): Promise<Map<string, Uint8Array>> {
  try {
    return await readArchive(bytes, (p) => /(^|\/)minisweagent\/(config\/.+\.ya?ml|__init__\.py)$/.test(p));
  } catch (e) {
    throw new UsageError(`Cannot import from ${source}: ${errorMessage(e)}`);
  }
}

const short = (sha: string) => sha.slice(0, 12);

/** Files that are not their release's: each named with both digests (three at most), or the other release they all are. */
function refusal(
  version: string,
  where: string,
  refused: { what: string; other: string | undefined }[],
): ConfigError {
  const other = refused[0]!.other;
  const head = `Cannot import mini-swe-agent ${version}'s config files from ${where}`;
  if (refused.length > 1 && other && refused.every((r) => r.other === other)) {
    return new ConfigError(
      `${head}: they are ${other}'s (${refused.length} files differ from ${version}'s); pass --version ${other}`,
    );
  }
  const listed = refused.slice(0, 3).map((r) => r.what);
  if (refused.length > 3) listed.push(`and ${refused.length - 3} more`);
  const them = refused.length === 1 ? "it" : "them";
  return new ConfigError(
    `${head}: ${listed.join("; ")}. Pass --allow-modified to keep ${them}, recorded as modified` +
      (refused.every((r) => r.other === other) && other ? `, or --version ${other}` : ""),
  );
}

/**
 * `... import-upstream [SOURCE] [--version V] [--allow-modified]`.
 * @param name the command it runs as (`claudius config`, `mini-extra config`)
 * @returns 0 once the files are stored
 * @throws {ConfigError} for a file that is not its release's (without `--allow-modified`), or a source with none
 */
export async function main(argv: string[], host: Host, name = "claudius config"): Promise<number> {
  const { values, positionals } = parseCommandLine(FLAGS, argv);
  if (values.help) return (host.out(renderHelp(importSpec(name)) + "\n"), 0);
  if (positionals.length > 1) throw new UsageError(`unexpected argument '${positionals[1]}'`);
  const table = await digestTable(host.env);
  if (values.version !== undefined && !table.releases[values.version]) {
    throw unknownRelease(values.version, table);
  }
  const found = await gather(positionals[0], values.version, table, host);
  const declared = found.declared && table.releases[found.declared] ? found.declared : undefined;
  const version = values.version ?? declared ?? DEFAULT_RELEASE;
  const listed = table.releases[version]!;
  const stored = new Map<string, Uint8Array>();
  const files: Record<string, StoredFile> = {};
  const refused: { what: string; other: string | undefined }[] = [];
  const lines: string[] = [];
  for (const [file, want] of Object.entries(listed).sort(([a], [b]) => a < b ? -1 : 1)) {
    const bytes = found.files.get(file);
    if (bytes === undefined) continue;
    const sha256 = await sha256Hex(bytes);
    if (sha256 === want) {
      files[file] = { sha256 };
      lines.push(`  ${file}  sha256 ${short(sha256)}  (${version}'s)`);
    } else {
      const other = releasesWith(table, file, sha256)[0];
      const what = `${file} is not ${version}'s (sha256 ${sha256}; ${version}'s is ${want}` +
        `${other ? `; it is ${other}'s` : ""})`;
      if (!values["allow-modified"]) refused.push({ what, other });
      files[file] = { sha256, modified: true, release_sha256: want };
      lines.push(`  ${file}  sha256 ${short(sha256)}  MODIFIED (${version}'s is ${short(want)})`);
    }
    stored.set(file, bytes);
  }
  if (refused.length) throw refusal(version, found.where, refused);
  if (stored.size === 0) {
    throw new ConfigError(
      `Cannot import from ${found.where}: none of mini-swe-agent ${version}'s config files is there ` +
        `(${Object.keys(listed).join(", ")})`,
    );
  }
  const missing = Object.keys(listed).filter((f) => !found.files.has(f));
  const skipped = [...found.files.keys()].filter((f) => listed[f] === undefined);
  const manifest: Manifest = {
    version,
    source: found.where,
    imported_at: new Date().toISOString(),
    claudius_version: VERSION,
    files,
    ...(table.testTable ? { test_digest_table: table.testTable } : {}),
  };
  const dir = await storeRelease(host.env, manifest, stored);
  host.out(`stored mini-swe-agent ${version}'s config files from ${found.where} in ${dir}:\n`);
  host.out(lines.join("\n") + "\n");
  if (missing.length) host.out(`not in the source (claudius's own words stand in): ${missing.join(", ")}\n`);
  if (skipped.length) host.out(`skipped (no file of ${version}): ${skipped.join(", ")}\n`);
  host.out(
    "upstream's names (-c mini, -c swebench, ...) and the defaults of mini, mini-swe-agent, mini-extra and " +
      `claudius batch --mode now run these files; claudius's own words stay as -c claudius/NAME\n`,
  );
  return 0;
}
