/**
 * Text mode's `model.action_regex`, compiled with the Python-regex translator (both loaded only for a
 * text-mode class: tool-call runs never need them).
 *
 * @module
 */
import { ConfigError } from "../../errors.ts";
import type { PyRegex } from "../../../lib/python/pyregex/pyregex.ts";

/** The Python-regex translator (`src/lib/python/pyregex/pyregex.ts`), loaded by whoever needs it. */
export type PyRegexModule = typeof import("../../../lib/python/pyregex/pyregex.ts");

/**
 * Compile `model.action_regex` as upstream uses it: Python syntax, `re.findall` with `re.DOTALL`, each
 * match stripped (upstream: `[a.strip() for a in re.findall(action_regex, content, re.DOTALL)]`), so
 * the pattern may hold one capturing group at most. The translator is handed in (the command layer
 * loads it on demand: tool-call runs never need it).
 *
 * @example
 * ```ts ignore
 * const re = await import("../../../lib/python/pyregex/pyregex.ts");
 * const regex = compileActionRegex("```mswea_bash_command\\s*\\n(.*?)\\n```", re);
 * ```
 * @throws {ConfigError} naming the key when Python would reject the pattern, claudius cannot
 *   translate it exactly, or it has several groups
 */
export function compileActionRegex(pattern: string, re: PyRegexModule): PyRegex {
  const { compilePyRegex, FLAG, PyRegexError } = re;
  let regex: PyRegex;
  try {
    regex = compilePyRegex(pattern, { where: "model.action_regex", flags: FLAG.DOTALL });
  } catch (e) {
    if (e instanceof PyRegexError) throw new ConfigError(e.message, { cause: e });
    throw e;
  }
  if (regex.groups > 1) {
    throw new ConfigError(
      `Cannot use model.action_regex ${JSON.stringify(pattern)}: it has ${regex.groups} capturing groups, ` +
        "but each action is the text of group 1 (upstream's findall would yield tuples it cannot strip); " +
        "make the others non-capturing with (?:...)",
    );
  }
  return regex;
}
