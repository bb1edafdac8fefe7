/**
 * Never a silent yolo: a config or flag asking for `agent.mode` confirm or human where no one can be
 * asked (no terminal on stdin, the default agent, a batch) is a usage error, before any model call.
 *
 * @module
 */
import { type ConfigSource, findKeyLine, type ResolvedConfig } from "../core/config/load.ts";
import { UsageError } from "../lib/flags.ts";
import { isPlainObject } from "../lib/json.ts";

/**
 * Throw a usage error when `agent.mode` is confirm or human: it names the key, where it was set (file
 * and line, a `-c` spec, or the interactive agent's default), why no one can answer, and the ways out.
 *
 * @param config the resolved config
 * @param sources the loaded `-c` sources (the last one setting `agent.mode` is named)
 * @param why why no one can answer, e.g. "stdin is not a terminal"
 * @param ways the ways out, e.g. "pass -y (agent.mode=yolo) ..."
 * @throws {UsageError} when the mode asks someone
 */
export function refuseSilentYolo(
  config: ResolvedConfig,
  sources: ConfigSource[],
  why: string,
  ways: string,
): void {
  const mode = config.agent.mode;
  if (mode !== "confirm" && mode !== "human") return;
  const from = sources.findLast((s) => isPlainObject(s.data.agent) && s.data.agent.mode !== undefined);
  const line = from?.text ? findKeyLine(from.text, ["agent", "mode"]) : undefined;
  const where = !from
    ? "the interactive agent's default"
    : from.path
    ? `set in ${from.path}${line ? `:${line}` : ""}`
    : `set by -c '${from.spec}'`;
  const what = mode === "confirm" ? "confirm the model's commands" : "type commands";
  throw new UsageError(`agent.mode is '${mode}' (${where}) but ${why}, so no one can ${what}: ${ways}`);
}
