/**
 * Evaluator results, read into one shape: which instances were resolved (and, where the evaluator
 * scores partially, the share of tests passed). Formats read:
 *
 * - **SWE-bench run report** (`<model>.<run_id>.json` from `swebench.harness.run_evaluation`): an
 *   object with `resolved_ids` (and `unresolved_ids`, `error_ids`, `empty_patch_ids`, ...). The
 *   instances it lists in any `*_ids` list are evaluated; those in `resolved_ids` resolved.
 * - **SWE-bench per-instance reports** merged into one object: `{id: {"resolved": bool, ...}}`.
 * - **A plain mapping** `{id: true | false}` or `{id: 0.0 .. 1.0}` (a score; resolved at 1).
 * - **A list** of resolved ids `["id", ...]`, or JSONL of `{"instance_id": id, "resolved": bool}`
 *   (also `"score"`) records.
 * - **ProgramBench**: `<id>.eval.json` files (`programbench eval`; `test_results` with a `status`
 *   per test, `error_code`), given as one file, or found under a directory (also inside a run
 *   directory, where `programbench eval` writes them next to each trajectory); and the
 *   leaderboard's `score.json` (`{id: {test: bool}}`). Resolved = every test passed (skipped tests
 *   are not counted); the score is the share passed.
 *
 * @module
 */
import { findFiles } from "../../lib/files.ts";
import { isPlainObject } from "../../lib/json.ts";

/** One instance's evaluation. */
export interface EvalResult {
  resolved: boolean;
  /** Share of tests passed (0..1), when the evaluator scores partially. */
  score?: number;
}

/**
 * Evaluations by instance id. `unlistedUnresolved` is set when the results name only the resolved
 * instances (a list of ids): an instance they leave out was evaluated and not resolved.
 */
export type EvalResults = Map<string, EvalResult> & { unlistedUnresolved?: boolean };

/** An instance's evaluation in `results`, if they cover it. */
export function resultOf(results: EvalResults, id: string): EvalResult | undefined {
  return results.get(id) ?? (results.unlistedUnresolved ? { resolved: false } : undefined);
}

/**
 * Read an evaluator's results (any format listed in the module doc; a directory is searched for
 * ProgramBench `*.eval.json` files).
 *
 * @example
 * ```ts ignore
 * import { loadEvalResults } from "./eval_results.ts";

 * const results = await loadEvalResults("gpt-5.run1.json"); // a SWE-bench report
 * results.get("django__django-11099")?.resolved;
 * ```
 * @param path a file or a directory
 * @throws {SyntaxError} naming the file (and line, for JSONL) when it is not one of these formats
 */
export async function loadEvalResults(path: string): Promise<EvalResults> {
  const info = await Deno.stat(path).catch((e) => {
    if (e instanceof Deno.errors.NotFound) {
      throw new Deno.errors.NotFound(`Cannot read results ${path}: no such file`);
    }
    throw e;
  });
  if (info.isDirectory) {
    const results: EvalResults = new Map();
    for (const file of await findFiles(path, (name) => name.endsWith(".eval.json"))) {
      const id = file.slice(file.lastIndexOf("/") + 1).replace(/\.eval\.json$/, "");
      let data: unknown;
      try {
        data = JSON.parse(await Deno.readTextFile(file));
      } catch (e) {
        if (!(e instanceof SyntaxError)) throw e;
        throw new SyntaxError(`Cannot read results ${file}: not JSON (${e.message})`);
      }
      results.set(id, programBenchEval(data, file));
    }
    if (!results.size) {
      throw new Error(`Cannot read results ${path}: no ProgramBench *.eval.json file under it`);
    }
    return results;
  }
  const text = await Deno.readTextFile(path);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return jsonl(text, path);
  }
  if (path.endsWith(".eval.json") && isPlainObject(data) && Array.isArray(data.test_results)) {
    const id = path.slice(path.lastIndexOf("/") + 1).replace(/\.eval\.json$/, "");
    return new Map([[id, programBenchEval(data, path)]]);
  }
  return parseEvalResults(data, path);
}

/**
 * Read already-parsed results data (every format but JSONL and ProgramBench's per-instance files).
 * @throws {SyntaxError} naming `source` when the data is none of them
 */
export function parseEvalResults(data: unknown, source: string): EvalResults {
  const results: EvalResults = new Map();
  const bad = (what: string) =>
    new SyntaxError(
      `Cannot read results ${source}: ${what} (expected a SWE-bench report with resolved_ids, ` +
        `{id: bool | score | {resolved}}, a list of resolved ids, JSONL records or ProgramBench *.eval.json)`,
    );
  if (Array.isArray(data)) {
    for (const id of data) {
      if (typeof id !== "string") throw bad("a list entry is not an instance id");
      results.set(id, { resolved: true });
    }
    return Object.assign(results, { unlistedUnresolved: true });
  }
  if (!isPlainObject(data)) throw bad("not a JSON object or list");
  if (Array.isArray(data.resolved_ids)) {
    for (const [key, ids] of Object.entries(data)) {
      if (!key.endsWith("_ids") || !Array.isArray(ids) || key === "submitted_ids") continue;
      for (const id of ids) {
        if (typeof id === "string" && !results.has(id)) results.set(id, { resolved: false });
      }
    }
    for (const id of data.resolved_ids) if (typeof id === "string") results.set(id, { resolved: true });
    return results;
  }
  for (const [id, value] of Object.entries(data)) {
    if (typeof value === "boolean") results.set(id, { resolved: value });
    else if (typeof value === "number") results.set(id, { resolved: value >= 1, score: value });
    else if (isPlainObject(value) && typeof value.resolved === "boolean") {
      const score = typeof value.score === "number" ? value.score : undefined;
      results.set(
        id,
        score === undefined ? { resolved: value.resolved } : { resolved: value.resolved, score },
      );
    } else if (isPlainObject(value) && Object.values(value).every((v) => typeof v === "boolean")) {
      const tests = Object.values(value) as boolean[];
      const passed = tests.filter(Boolean).length;
      results.set(id, {
        resolved: tests.length > 0 && passed === tests.length,
        score: tests.length ? passed / tests.length : 0,
      });
    } else throw bad(`the value of '${id}' is not a result`);
  }
  return results;
}

function jsonl(text: string, path: string): EvalResults {
  const results: EvalResults = new Map();
  text.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      throw new SyntaxError(`Cannot read results ${path}:${i + 1}: not JSON (nor JSONL)`);
    }
    if (!isPlainObject(record) || typeof record.instance_id !== "string") {
      throw new SyntaxError(
        `Cannot read results ${path}:${i + 1}: expected {"instance_id": ..., "resolved": ...}`,
      );
    }
    const score = typeof record.score === "number" ? record.score : undefined;
    const resolved = typeof record.resolved === "boolean"
      ? record.resolved
      : score !== undefined && score >= 1;
    results.set(record.instance_id, score === undefined ? { resolved } : { resolved, score });
  });
  return results;
}

/** One ProgramBench `*.eval.json`: resolved when every counted test passed and no error was recorded. */
function programBenchEval(data: unknown, source: string): EvalResult {
  if (!isPlainObject(data) || !Array.isArray(data.test_results)) {
    throw new SyntaxError(`Cannot read results ${source}: not a ProgramBench eval (no test_results)`);
  }
  let passed = 0, counted = 0;
  for (const t of data.test_results) {
    const status = isPlainObject(t) ? t.status : undefined;
    if (status === "skipped") continue;
    counted++;
    if (status === "passed") passed++;
  }
  const score = counted ? passed / counted : 0;
  return { resolved: counted > 0 && passed === counted && !data.error_code, score };
}
