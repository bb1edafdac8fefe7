/**
 * Upstream's config files as claudius keeps them: checked against the digests of their release
 * (`upstream_digests.ts`), stored per release under claudius's config directory
 * (`~/.config/claudius/upstream/<version>/`, with a `manifest.json` saying where they came from and
 * which were kept modified), the release in use named by `upstream/active`. A release in use is
 * what upstream's names (`-c mini`, `-c swebench`, the faces' defaults) resolve to.
 *
 * @module
 */
import { ConfigError } from "../errors.ts";
import { claudiusConfigDir, type Env } from "../user_dirs.ts";
import { isPlainObject } from "../../lib/json.ts";

/** The release whose loop claudius reproduces, and the one imported when none is named. */
export const DEFAULT_RELEASE = "2.4.6";

/** One stored file: its digest, and whether it differs from its release's (kept by `--allow-modified`). */
export interface StoredFile {
  /** The file's sha256 (hex). */
  sha256: string;
  /** The file is not the release's (its digest is {@link StoredFile.release_sha256}). */
  modified?: true;
  /** A modified file's release's digest. */
  release_sha256?: string;
}

/** A release's config files that upstream's names resolve to. */
export interface UpstreamRelease {
  /** Its release (`2.4.6`). */
  version: string;
  /** The directory holding them, in upstream's layout (`mini.yaml`, `benchmarks/swebench.yaml`). */
  dir: string;
  /** Imported with `claudius config import-upstream`, or found in an installed Python package. */
  origin: "imported" | "python package";
  /** Where the files came from (the import's source, the package's directory). */
  source: string;
  /** File (path under `dir`) -> its digest. */
  files: Readonly<Record<string, StoredFile>>;
  /** The test digest table that checked them, if one did. */
  testTable?: string;
}

/** What `manifest.json` of a stored release holds. */
export interface Manifest {
  /** The release. */
  version: string;
  /** Where the files were read (a directory, an archive, a URL). */
  source: string;
  /** When (ISO 8601). */
  imported_at: string;
  /** The claudius that imported them. */
  claudius_version: string;
  /** File -> digest (and whether it was kept modified). */
  files: Record<string, StoredFile>;
  /** The test digest table that checked them, if one did. */
  test_digest_table?: string;
}

/** `<claudius config dir>/upstream`, where releases are stored (undefined without a home). */
export function storeDir(env: Env): string | undefined {
  const dir = claudiusConfigDir(env);
  return dir && `${dir}/upstream`;
}

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await Deno.readTextFile(path));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw new ConfigError(`Cannot read ${path}: ${(e as Error).message} (import the release again)`);
  }
}

/**
 * The stored release in use (`upstream/active`), or undefined when none was imported.
 * @throws {ConfigError} for a store that cannot be read
 */
export async function activeRelease(env: Env): Promise<UpstreamRelease | undefined> {
  const store = storeDir(env);
  if (!store) return undefined;
  const version = await Deno.readTextFile(`${store}/active`).then((t) => t.trim(), () => "");
  if (!version) return undefined;
  const dir = `${store}/${version}`;
  const manifest = await readJson(`${dir}/manifest.json`);
  if (!isPlainObject(manifest) || !isPlainObject(manifest.files)) {
    throw new ConfigError(
      `Cannot use upstream's ${version} in ${dir}: its manifest.json is missing or damaged ` +
        `(claudius config import-upstream --version ${version} stores it again)`,
    );
  }
  const m = manifest as unknown as Manifest;
  return {
    version,
    dir,
    origin: "imported",
    source: String(m.source),
    files: m.files,
    ...(m.test_digest_table ? { testTable: m.test_digest_table } : {}),
  };
}

/**
 * Store a release's files (replacing what was stored for it) and make it the one in use.
 * @returns the directory they are in
 */
export async function storeRelease(
  env: Env,
  manifest: Manifest,
  contents: ReadonlyMap<string, Uint8Array>,
): Promise<string> {
  const store = storeDir(env);
  if (!store) throw new ConfigError("Cannot store upstream's files: neither XDG_CONFIG_HOME nor HOME is set");
  await Deno.mkdir(store, { recursive: true });
  const dir = `${store}/${manifest.version}`;
  const temp = await Deno.makeTempDir({ dir: store, prefix: `.${manifest.version}-` });
  try {
    for (const [file, bytes] of contents) {
      const path = `${temp}/${file}`;
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await Deno.writeFile(path, bytes);
    }
    await Deno.writeTextFile(`${temp}/manifest.json`, JSON.stringify(manifest, null, 2) + "\n");
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    await Deno.rename(temp, dir);
  } catch (e) {
    await Deno.remove(temp, { recursive: true }).catch(() => {});
    throw e;
  }
  const active = `${store}/active`;
  await Deno.writeTextFile(`${active}.tmp`, `${manifest.version}\n`);
  await Deno.rename(`${active}.tmp`, active);
  return dir;
}
