/**
 * Reading batch instances: a JSON array, a JSONL file (one record a line), a parquet file (an exported
 * dataset), or a directory of task files. A record carries `instance_id` and its task
 * (`problem_statement` or `task`), optionally `image_name`, and any other fields (all of them reach
 * templates as `instance`). For ProgramBench, whose prompts come from the instance, the task may be
 * absent, and ProgramBench's own task folders (`<id>/task.yaml`) and plain lists of ids are read too.
 *
 * @module
 */
import { errorMessage } from "../lib/errors.ts";
import { loadYaml } from "../lib/python/yaml.ts";
import { readUtf8File } from "../lib/text_file.ts";
import { ConfigError } from "../core/errors.ts";
import type { Instance } from "./select.ts";
import { readParquetRecords } from "./_parquet.ts";

/** How {@link loadInstances} reads its input. */
export interface LoadOptions {
  /** Each record needs a task (default true); false also reads ProgramBench's task folders and id lists. */
  taskRequired?: boolean;
}

/**
 * Load instances from a file or a directory. In a directory every regular, non-hidden file is one
 * instance: its id is the file name without its last extension, its task the file's text. Without
 * `taskRequired`, a directory of ProgramBench task folders gives one instance per `<id>/task.yaml`
 * (its fields, and `instance_id`), and a file of bare ids (one a line, `#` comments) one per id.
 *
 * @example
 * ```ts ignore
 * const instances = await loadInstances("tasks.jsonl");
 * instances[0]; // { instance_id: "astropy__astropy-12907", problem_statement: "...", ... }
 * ```
 * @throws {ConfigError} one line naming the file and the line (JSONL), record (JSON array) or row (parquet)
 */
export async function loadInstances(path: string, options: LoadOptions = {}): Promise<Instance[]> {
  const taskRequired = options.taskRequired ?? true;
  let stat: Deno.FileInfo;
  try {
    stat = await Deno.stat(path);
  } catch (e) {
    throw new ConfigError(`Cannot read instances ${path}: ${errorMessage(e)}`);
  }
  let out: Instance[];
  if (stat.isDirectory) {
    const tasks = taskRequired ? [] : await fromTaskFolders(path);
    out = tasks.length ? tasks : await fromDirectory(path);
  } else if (path.endsWith(".parquet")) {
    const rows = await readParquetRecords(path);
    out = rows.map((row, k) => checkRecord(row, `${path}: row ${k + 1}`, taskRequired));
  } else {
    const text = await readUtf8File(path).catch((e) => {
      throw new ConfigError(`Cannot load instances ${path}: ${errorMessage(e)}`);
    });
    out = !taskRequired && !/^\s*[[{]/.test(text)
      ? idList(text, path)
      : parseInstances(text, path, taskRequired);
  }
  const seen = new Map<string, string>();
  for (const [k, inst] of out.entries()) {
    const where = stat.isDirectory ? `${path}/${inst.instance_id}` : `${path}: record ${k + 1}`;
    if (stat.isDirectory) checkId(inst.instance_id, where); // from a file or folder name
    const prev = seen.get(inst.instance_id);
    if (prev) {
      throw new ConfigError(
        `Cannot load instances ${where}: duplicate instance_id '${inst.instance_id}' (first at ${prev})`,
      );
    }
    seen.set(inst.instance_id, where);
  }
  if (out.length === 0) throw new ConfigError(`Cannot load instances ${path}: it holds no instance`);
  return out;
}

/**
 * Parse the text of an instances file: a JSON array when it starts with `[`, else JSONL (blank
 * lines skipped).
 * @param text the file's text
 * @param source the file name, for error messages
 * @throws {ConfigError} naming the line or record
 */
export function parseInstances(text: string, source: string, taskRequired = true): Instance[] {
  if (text.trimStart().startsWith("[")) {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (e) {
      throw new ConfigError(`Cannot parse instances ${source}: ${errorMessage(e)}`);
    }
    if (!Array.isArray(data)) {
      throw new ConfigError(`Cannot parse instances ${source}: expected a JSON array`);
    }
    return data.map((record, k) => checkRecord(record, `${source}: record ${k + 1}`, taskRequired));
  }
  const out: Instance[] = [];
  const lines = text.split("\n");
  for (const [k, line] of lines.entries()) {
    if (line.trim() === "") continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (e) {
      throw new ConfigError(`Cannot parse instances ${source}:${k + 1}: ${errorMessage(e)}`);
    }
    out.push(checkRecord(record, `${source}:${k + 1}`, taskRequired));
  }
  return out;
}

/**
 * The task text of an instance: `problem_statement`, else `task` (else "" when not required).
 * @throws {ConfigError} when neither is a string and a task is required
 */
export function instanceTask(instance: Instance, required = true): string {
  const task = instance.problem_statement ?? instance.task ?? (required ? undefined : "");
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

function checkRecord(record: unknown, where: string, taskRequired: boolean): Instance {
  if (typeof record !== "object" || record === null || Array.isArray(record)) {
    throw new ConfigError(`Cannot load instances ${where}: expected a JSON object`);
  }
  const r = record as Record<string, unknown>;
  const id = r.instance_id;
  if (typeof id !== "string" || id === "") {
    throw new ConfigError(`Cannot load instances ${where}: missing instance_id (a non-empty string)`);
  }
  checkId(id, where);
  const task = r.problem_statement ?? r.task ?? (taskRequired ? undefined : "");
  if (typeof task !== "string" || (taskRequired && task.trim() === "")) {
    throw new ConfigError(
      `Cannot load instances ${where}: instance '${id}' needs a problem_statement or task (a non-empty string)`,
    );
  }
  return r as Instance;
}

/**
 * Longest instance id, in UTF-8 bytes. It names the instance's directory and files; a file name is
 * at most 255 bytes, and the longest claudius adds to the id is 31 (`<id>.patch.<pid>-<hex>.partial`):
 * 200 leaves room for those and for names a config makes of it (`run.atif_path`).
 */
export const MAX_INSTANCE_ID_BYTES = 200;

/**
 * Names the batch keeps for its own files in the output directory, which an instance's directory
 * would collide with: `.claudius.lock`, `.claims/`, `.rescued/` (and any hidden name: the tools
 * reading results skip hidden directories), `preds.json` (and its temporary files),
 * `exit_statuses_<time>.yaml`.
 */
const BATCH_OWN_NAMES = /^(\.|preds\.json)|^exit_statuses_.*\.yaml$/;

function checkId(id: string, where: string): string {
  if (id === "" || id === "." || id === ".." || id.includes("/") || id.includes("\0")) {
    throw new ConfigError(`Cannot load instances ${where}: instance_id '${id}' cannot be a directory name`);
  }
  if (BATCH_OWN_NAMES.test(id)) {
    throw new ConfigError(
      `Cannot load instances ${where}: instance_id '${id}' would name one of the batch's own files in the ` +
        "output directory (a hidden name, preds.json, exit_statuses_*.yaml): rename the instance",
    );
  }
  const bytes = new TextEncoder().encode(id).length;
  if (bytes > MAX_INSTANCE_ID_BYTES) {
    throw new ConfigError(
      `Cannot load instances ${where}: instance_id '${id.slice(0, 40)}...' is ${bytes} bytes long; at most ` +
        `${MAX_INSTANCE_ID_BYTES} (it names the instance's directory and files, ` +
        "and a file name is at most 255 bytes): shorten it",
    );
  }
  return id;
}

/** Bare ids, one a line; blank lines and `#` comments skipped. */
function idList(text: string, source: string): Instance[] {
  return text.split("\n").flatMap((line, k) => {
    const id = line.replace(/#.*/, "").trim();
    return id ? [{ instance_id: checkId(id, `${source}:${k + 1}`) }] : [];
  });
}

/** ProgramBench's task folders: every `<dir>/<id>/task.yaml`, its fields plus `instance_id`. */
async function fromTaskFolders(dir: string): Promise<Instance[]> {
  const ids: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isDirectory || entry.name.startsWith(".")) continue;
    try {
      if ((await Deno.stat(`${dir}/${entry.name}/task.yaml`)).isFile) ids.push(entry.name);
    } catch { /* not a task folder */ }
  }
  ids.sort();
  const out: Instance[] = [];
  for (const id of ids) {
    const path = `${dir}/${id}/task.yaml`;
    let data: unknown;
    try {
      data = loadYaml(await readUtf8File(path), path) ?? {};
    } catch (e) {
      throw new ConfigError(`Cannot load instances ${path}: ${errorMessage(e).split("\n")[0]}`);
    }
    if (typeof data !== "object" || data === null || Array.isArray(data)) {
      throw new ConfigError(`Cannot load instances ${path}: expected a mapping`);
    }
    out.push({ ...data as Record<string, unknown>, instance_id: id });
  }
  return out;
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
      task = await readUtf8File(`${dir}/${name}`);
    } catch (e) {
      throw new ConfigError(`Cannot read instance ${dir}/${name}: ${errorMessage(e)}`);
    }
    if (task.trim() === "") {
      throw new ConfigError(`Cannot load instance ${dir}/${name}: the task file is empty`);
    }
    out.push({ instance_id: id, task });
  }
  return out;
}
