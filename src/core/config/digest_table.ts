/**
 * The digests upstream's config files are checked against: upstream's own table
 * (`upstream_digests.ts`), or a test's (`CLAUDIUS_TEST_UPSTREAM_DIGESTS`), and the questions asked of
 * it (which releases there are, which published a file with a digest). Loaded only by what checks or
 * recognises upstream's files, never by a run of claudius's own configs.
 *
 * @module
 */
import { readUtf8File } from "../../lib/text_file.ts";
import { isPlainObject } from "../../lib/json.ts";
import { ConfigError } from "../errors.ts";
import type { Env } from "../user_dirs.ts";
import { UPSTREAM_DIGESTS, UPSTREAM_RELEASES } from "./upstream_digests.ts";

/** The variable a test names its own digest table by (a JSON file: release -> file -> sha256). */
export const TEST_DIGESTS_VARIABLE = "CLAUDIUS_TEST_UPSTREAM_DIGESTS";

/** The digests files are checked against: upstream's (the default), or a test's own table. */
export interface DigestTable {
  /** Release -> file (its path under upstream's `config/`) -> sha256. */
  releases: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** The test table's file, when {@link TEST_DIGESTS_VARIABLE} named one. */
  testTable?: string;
}

/**
 * The digest table: upstream's, or the one {@link TEST_DIGESTS_VARIABLE} names (tests hand in the
 * digests of their own stand-in files this way; what it checks is recorded as checked by it).
 * @throws {ConfigError} when the named table cannot be read
 */
export async function digestTable(env: Env): Promise<DigestTable> {
  const path = env[TEST_DIGESTS_VARIABLE];
  if (!path) return { releases: UPSTREAM_DIGESTS };
  let data: unknown;
  try {
    data = JSON.parse(await readUtf8File(path));
  } catch (e) {
    throw new ConfigError(`Cannot read ${TEST_DIGESTS_VARIABLE} '${path}': ${(e as Error).message}`);
  }
  const ok = isPlainObject(data) &&
    Object.values(data).every((r) =>
      isPlainObject(r) && Object.values(r).every((d) => typeof d === "string")
    );
  if (!ok) {
    throw new ConfigError(
      `Cannot use ${TEST_DIGESTS_VARIABLE} '${path}': not a JSON {release: {file: sha256}}`,
    );
  }
  return { releases: data as Record<string, Record<string, string>>, testTable: path };
}

/** The releases of a table, newest first. */
export function newestFirst(table: DigestTable): string[] {
  const known = new Set(Object.keys(table.releases));
  const ordered = [...UPSTREAM_RELEASES].reverse().filter((v) => known.delete(v));
  return [...ordered, ...[...known].sort().reverse()];
}

/** The releases that published `file` with this digest, newest first. */
export function releasesWith(table: DigestTable, file: string, sha256: string): string[] {
  return newestFirst(table).filter((v) => table.releases[v]?.[file] === sha256);
}
