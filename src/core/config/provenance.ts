/**
 * Where a run's prompts came from (`info.prompts` of every trajectory, `prompts` of a batch's
 * `run.json`): the config sources that set the templates the run used (every `*_template` key), each
 * told apart by what it is: upstream's own file of a release (imported, found in a Python package,
 * or given by a path whose digest is a release's), claudius's own built-in, a user's file, or the
 * command line. One source, or several of one kind and release, is one record; others are `mixed`.
 *
 * - `{"source": "upstream", "version": "2.4.6", "sha256": {"mini.yaml": "..."}, "origin": "imported"}`
 *   (`"modified": true` when `--allow-modified` kept a file that is not the release's);
 * - `{"source": "claudius", "version": "0.1.0", "sha256": {"mini.yaml": "..."}}`;
 * - `{"source": "file", "path": "/abs/my.yaml", "sha256": "..."}`;
 * - `{"source": "command line", "keys": ["agent.system_template"]}`;
 * - `{"source": "mixed", "parts": [{...one of the above, "keys": [...]}, ...]}`.
 *
 * @module
 */
import { isPlainObject } from "../../lib/json.ts";
import { resolvePath } from "../../lib/paths.ts";
import type { ConfigSource } from "./check.ts";
import { VERSION } from "../version.ts";
import type { DigestTable } from "./digest_table.ts";

/** Newest release first (`2.4.6` before `2.4.10`'s predecessors, numerically). */
function newer(a: string, b: string): number {
  const [x, y] = [a.split(".").map(Number), b.split(".").map(Number)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (y[i] ?? 0) - (x[i] ?? 0);
  }
  return 0;
}

/**
 * Whether recording `sources` needs upstream's digests: a file given by path that is neither one of
 * claudius's built-ins nor of the release in use (it may be a release's file).
 */
export function needsDigests(sources: readonly ConfigSource[], builtinDir: string): boolean {
  const builtin = `${builtinDir.replace(/\/+$/, "")}/`;
  return sources.some((s) => s.path !== undefined && !s.release && !s.path.startsWith(builtin));
}

/** `info.prompts`: JSON (see the module doc). */
export type Prompts = { source: string; [key: string]: unknown };

/** A template key as `section.key`, for each `*_template` key a source sets. */
function templateKeys(source: ConfigSource): string[] {
  const keys: string[] = [];
  for (const [section, body] of Object.entries(source.data)) {
    if (!isPlainObject(body)) continue;
    for (const [key, value] of Object.entries(body)) {
      if (key.endsWith("_template") && value !== undefined) keys.push(`${section}.${key}`);
    }
  }
  return keys;
}

/** What each source is, for the record. */
export interface ProvenanceContext {
  /** claudius's built-in configs. */
  builtinDir: string;
  /** Upstream's digests, to recognise a release's file given by path (needed only when one is given). */
  table?: DigestTable;
  /** What a relative path is relative to (recorded paths are absolute). */
  cwd?: string;
  /** A recorded config (a resume's source): its trajectory's own `info.prompts`, by the source's spec. */
  recorded?: { spec: string; prompts: Prompts | undefined };
}

/** The record of one source: what it is, and its digest (see the module doc). */
export function describeSource(source: ConfigSource, ctx: ProvenanceContext): Prompts {
  if (ctx.recorded && source.spec === ctx.recorded.spec) {
    return ctx.recorded.prompts ?? { source: "recorded", trajectory: source.spec };
  }
  const { sha256, release } = source;
  if (source.path === undefined || sha256 === undefined) return { source: "command line" };
  const path = ctx.cwd ? resolvePath(source.path, ctx.cwd) : source.path;
  if (release) {
    const file = path.slice(release.dir.length + 1);
    return {
      source: "upstream",
      version: release.version,
      sha256: { [file]: sha256 },
      origin: release.origin,
      ...(release.files[file]?.modified ? { modified: true } : {}),
      ...(release.testTable ? { digest_table: release.testTable } : {}),
    };
  }
  const builtin = `${ctx.builtinDir.replace(/\/+$/, "")}/`;
  if (path.startsWith(builtin)) {
    return { source: "claudius", version: VERSION, sha256: { [path.slice(builtin.length)]: sha256 } };
  }
  const releases = ctx.table?.releases ?? {};
  for (const version of Object.keys(releases).sort(newer)) {
    const file = Object.entries(releases[version]!).find(([, d]) => d === sha256)?.[0];
    if (file === undefined) continue;
    return {
      source: "upstream",
      version,
      sha256: { [file]: sha256 },
      origin: "file",
      path,
      ...(ctx.table?.testTable ? { digest_table: ctx.table.testTable } : {}),
    };
  }
  return { source: "file", path, sha256 };
}

/** Records of one kind and release, as one: their digests together. */
function joined(parts: Prompts[]): Prompts | undefined {
  const [first] = parts;
  if (!first || parts.length === 1) return first;
  const kind = first.source;
  if (kind !== "upstream" && kind !== "claudius") return undefined;
  if (parts.some((p) => p.source !== kind || p.version !== first.version || p.origin !== first.origin)) {
    return undefined;
  }
  const sha256 = Object.assign({}, ...parts.map((p) => p.sha256));
  const { path: _, ...rest } = first;
  return { ...rest, sha256, ...(parts.some((p) => p.modified) ? { modified: true } : {}) };
}

/**
 * Where the prompts of a config made of `sources` (merged left to right) came from.
 *
 * @example
 * ```ts ignore
 * promptsOf(sources, { builtinDir, table }); // {source: "claudius", version: "0.1.0", sha256: {...}}
 * ```
 */
export function promptsOf(sources: readonly ConfigSource[], ctx: ProvenanceContext): Prompts {
  const setter = new Map<string, number>();
  sources.forEach((s, i) => templateKeys(s).forEach((k) => setter.set(k, i)));
  const bySource = new Map<number, string[]>();
  for (const [key, i] of setter) bySource.set(i, [...(bySource.get(i) ?? []), key]);
  if (bySource.size === 0) return { source: "none" };
  const parts = [...bySource].sort(([a], [b]) => a - b).map(([i, keys]) => ({
    part: describeSource(sources[i]!, ctx),
    keys,
  }));
  const commandLine = parts.filter((p) => p.part.source === "command line");
  if (commandLine.length === parts.length) {
    return {
      source: "command line",
      keys: commandLine.flatMap((p) => p.keys),
    };
  }
  const one = commandLine.length === 0 ? joined(parts.map((p) => p.part)) : undefined;
  return one ?? { source: "mixed", parts: parts.map((p) => ({ ...p.part, keys: p.keys.sort() })) };
}
