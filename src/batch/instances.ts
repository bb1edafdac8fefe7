/**
 * Reading batch instances: a JSON array, a JSONL file (one record a line), or a directory of task
 * files. A record carries `instance_id` and its task (`problem_statement` or `task`), optionally
 * `image_name`, and any other fields (all of them reach templates as `instance`).
 *
 * @module
 */
import { ConfigError } from "../errors.ts";
import type { Instance } from "./select.ts";

/**
 * Load instances from a file or a directory. In a directory every regular, non-hidden file is one
 * instance: its id is the file name without its last extension, its task the file's text.
 *
 * @example
 * ```ts ignore
 * const instances = await loadInstances("tasks.jsonl");
 * instances[0]; // { instance_id: "astropy__astropy-12907", problem_statement: "...", ... }
 * ```
 * @throws {ConfigError} one line naming the file and the line (JSONL) or record (JSON array)
 */
export async function loadInstances(path: string): Promise<Instance[]> {
  let stat: Deno.FileInfo;
  try {
    stat = await Deno.stat(path);
  } catch (e) {
    throw new ConfigError(`Cannot read instances ${path}: ${(e as Error).message}`);
  }
  const out = stat.isDirectory
    ? await fromDirectory(path)
    : parseInstances(await Deno.readTextFile(path), path);
  const seen = new Map<string, string>();
  for (const [k, inst] of out.entries()) {
    const where = stat.isDirectory ? `${path}/${inst.instance_id}` : `${path}: record ${k + 1}`;
    const prev = seen.get(inst.instance_id);
    if (prev) {
      throw new ConfigError(
        `Cannot load instances ${where}: duplicate instance_id '${inst.instance_id}' (first at ${prev})`,
      );
    }
    seen.set(inst.instance_id, where);
  }
  return out;
}

/**
 * Parse the text of an instances file: a JSON array when it starts with `[`, else JSONL (blank
 * lines skipped).
 * @param text the file's text
 * @param source the file name, for error messages
 * @throws {ConfigError} naming the line or record
 */
export function parseInstances(text: string, source: string): Instance[] {
  if (text.trimStart().startsWith("[")) {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (e) {
      throw new ConfigError(`Cannot parse instances ${source}: ${(e as Error).message}`);
    }
    if (!Array.isArray(data)) {
      throw new ConfigError(`Cannot parse instances ${source}: expected a JSON array`);
    }
    return data.map((record, k) => checkRecord(record, `${source}: record ${k + 1}`));
  }
  const out: Instance[] = [];
  const lines = text.split("\n");
  for (const [k, line] of lines.entries()) {
    if (line.trim() === "") continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (e) {
      throw new ConfigError(`Cannot parse instances ${source}:${k + 1}: ${(e as Error).message}`);
    }
    out.push(checkRecord(record, `${source}:${k + 1}`));
  }
  return out;
}

/**
 * The task text of an instance: `problem_statement`, else `task`.
 * @throws {ConfigError} when neither is a string
 */
export function instanceTask(instance: Instance): string {
  const task = instance.problem_statement ?? instance.task;
  if (typeof task !== "string") {
    throw new ConfigError(`Cannot run instance ${instance.instance_id}: no problem_statement or task`);
  }
  return task;
}

/**
 * SWE-bench's image name: `image_name` (or `docker_image`) when the record has one, else
 * `docker.io/swebench/sweb.eval.x86_64.<id, "__" -> "_1776_">:latest`, lower-cased.
 */
export function swebenchImageName(instance: Instance): string {
  const given = instance.image_name ?? instance.docker_image;
  if (typeof given === "string" && given) return given;
  const id = instance.instance_id.replaceAll("__", "_1776_");
  return `docker.io/swebench/sweb.eval.x86_64.${id}:latest`.toLowerCase();
}

function checkRecord(record: unknown, where: string): Instance {
  if (typeof record !== "object" || record === null || Array.isArray(record)) {
    throw new ConfigError(`Cannot load instances ${where}: expected a JSON object`);
  }
  const r = record as Record<string, unknown>;
  const id = r.instance_id;
  if (typeof id !== "string" || id === "") {
    throw new ConfigError(`Cannot load instances ${where}: missing instance_id (a non-empty string)`);
  }
  if (id === "." || id === ".." || id.includes("/") || id.includes("\0")) {
    throw new ConfigError(`Cannot load instances ${where}: instance_id '${id}' cannot be a directory name`);
  }
  const task = r.problem_statement ?? r.task;
  if (typeof task !== "string") {
    throw new ConfigError(
      `Cannot load instances ${where}: instance '${id}' needs a problem_statement or task (a string)`,
    );
  }
  return r as Instance;
}

async function fromDirectory(dir: string): Promise<Instance[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile && !entry.name.startsWith(".")) names.push(entry.name);
  }
  names.sort();
  const out: Instance[] = [];
  for (const name of names) {
    const id = name.includes(".") ? name.slice(0, name.lastIndexOf(".")) : name;
    let task: string;
    try {
      task = await Deno.readTextFile(`${dir}/${name}`);
    } catch (e) {
      throw new ConfigError(`Cannot read instance ${dir}/${name}: ${(e as Error).message}`);
    }
    out.push({ instance_id: id, task });
  }
  return out;
}
