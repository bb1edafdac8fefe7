/**
 * Python regular expressions tested against commands (`agent.whitelist_actions` with `re.match`,
 * `agent.confirm_dangerous` with `re.search`), compiled once, with errors that name the key.
 *
 * Interim translation until `src/pyregex.ts` (a faithful Python-regex translator) lands: named
 * groups and back-references in Python's spelling, and leading inline flags (`(?i)`, `(?m)`, `(?s)`,
 * `(?x)` refused), become their JavaScript equivalents; anything JavaScript cannot compile is a
 * config error naming the key. {@link compileCommandPattern} is the one place to point at the
 * translator (`compilePyRegex(pattern, { where, groups: false })`).
 *
 * @module
 */

/** A compiled pattern with Python's `re.match` and `re.search` truthiness. */
export interface CommandPattern {
  /** The pattern as written (Python syntax). */
  readonly pattern: string;
  /** Python's `re.match(pattern, text)` is not None. */
  match(text: string): boolean;
  /** Python's `re.search(pattern, text)` is not None. */
  search(text: string): boolean;
}

/** A pattern that cannot be compiled; the message names the key, the pattern and why. */
export class CommandPatternError extends SyntaxError {
  /**
   * @param where the key the pattern came from, e.g. `agent.whitelist_actions`
   * @param pattern the pattern
   * @param why the compiler's message
   */
  constructor(where: string, pattern: string, why: string) {
    super(`Cannot compile ${where} ${JSON.stringify(pattern)}: ${why}`);
    this.name = "CommandPatternError";
    this.pattern = pattern;
    this.why = why;
  }
  /** The pattern. */
  readonly pattern: string;
  /** Why it cannot be compiled. */
  readonly why: string;
}

/**
 * Compile one Python pattern.
 *
 * @example
 * ```ts
 * import { compileCommandPattern } from "./command_patterns.ts";
 * const p = compileCommandPattern("(?i)^ls\\b", "agent.whitelist_actions");
 * p.match("LS -la"); // true
 * p.match("cd x && ls"); // false (re.match anchors at the start)
 * ```
 * @param pattern a Python `re` pattern
 * @param where the key it came from (named in errors)
 * @throws {CommandPatternError} when the pattern cannot be compiled
 */
export function compileCommandPattern(pattern: string, where: string): CommandPattern {
  let source = pattern;
  let flags = "";
  const inline = /^\(\?([aiLmsux]+)\)/.exec(source);
  if (inline) {
    if (inline[1]!.includes("x")) {
      throw new CommandPatternError(where, pattern, "the verbose flag (?x) is not supported");
    }
    source = source.slice(inline[0].length);
    for (const f of "ims") if (inline[1]!.includes(f)) flags += f;
  }
  source = source.replace(/\(\?P<(\w+)>/g, "(?<$1>").replace(/\(\?P=(\w+)\)/g, "\\k<$1>");
  let search: RegExp, sticky: RegExp;
  try {
    search = new RegExp(source, flags);
    sticky = new RegExp(source, `y${flags}`);
  } catch (e) {
    throw new CommandPatternError(where, pattern, (e as Error).message);
  }
  return {
    pattern,
    match: (text) => {
      sticky.lastIndex = 0;
      return sticky.test(text);
    },
    search: (text) => search.test(text),
  };
}

/**
 * Check a list of patterns (for a key's `check`): what is wrong with the first bad one, or undefined.
 * @param patterns the key's value
 */
export function patternListError(patterns: readonly string[]): string | undefined {
  for (const p of patterns) {
    try {
      compileCommandPattern(p, "");
    } catch (e) {
      if (e instanceof CommandPatternError) {
        return `has a pattern that cannot be compiled: ${JSON.stringify(p)}: ${e.why}`;
      }
      throw e;
    }
  }
}
