/**
 * Python regular expressions in JavaScript: a pattern written for Python's `re` (as upstream's configs
 * and flags hold them) is parsed with Python's grammar and translated to an equivalent JavaScript
 * `v`-mode RegExp, with `re.match`, `re.search` and `re.findall` semantics. Python's `\d \w \s \b`,
 * `$`, `\Z`, `\A`, `.`, inline and scoped flags (`(?x)` verbose included), named groups, atomic groups
 * and possessive quantifiers mean here what they mean in Python. A pattern Python rejects is rejected
 * with Python's message; a valid construct that JavaScript cannot mirror exactly is refused with a
 * message naming it. Nothing is silently changed.
 *
 * @module
 */
import { FLAG, type Parsed, PatternError } from "./_ast.ts";
import { parsePattern } from "./_parser.ts";
import { checkPattern } from "./_check.ts";
import { emitPattern } from "./_emit.ts";

export { FLAG };

/** A pattern that cannot be used: Python rejects it, or it has no exact JavaScript translation. */
export class PyRegexError extends SyntaxError {
  /** The key or flag the pattern came from, e.g. `model.action_regex`. */
  readonly where: string;
  /** True when Python accepts the pattern but claudius refuses one of its constructs. */
  readonly unsupported: boolean;
  /**
   * @param where the key or flag the pattern came from
   * @param pattern the pattern
   * @param cause the parser's error
   */
  constructor(where: string, pattern: string, cause: PatternError) {
    super(
      cause.unsupported
        ? `Cannot use ${where} ${JSON.stringify(pattern)}: ${cause.message}; Python patterns are ` +
          "translated to JavaScript exactly or not at all, so rewrite this part"
        : `Cannot compile ${where} ${JSON.stringify(pattern)}: ${cause.message} (Python's re rejects it)`,
      { cause },
    );
    this.name = "PyRegexError";
    this.where = where;
    this.unsupported = cause.unsupported;
  }
}

/** How to compile a pattern. */
export interface PyRegexOptions {
  /** The key or flag the pattern comes from, named in errors (`model.action_regex`, `--filter`). */
  where: string;
  /** Flags as given to `re.compile` / `re.findall` (bits of {@link FLAG}, e.g. `FLAG.DOTALL`). Default 0. */
  flags?: number;
  /**
   * Whether group values are read (`findall`), so constructs whose captures JavaScript would record
   * differently are refused. `false` suits a pattern used only as a test (`re.match(...)` truthiness).
   * Default true.
   */
  groups?: boolean;
}

/** One match: the whole match at index 0, then each group (undefined when it did not take part). */
export type PyMatch = (string | undefined)[];

/** One match of {@link PyRegex.finditer}: its span in the text (UTF-16 offsets) and its groups. */
export interface PyMatchSpan {
  /** Where the match begins. */
  start: number;
  /** Where the match ends (exclusive). */
  end: number;
  /** The whole match and its groups, as {@link PyRegex.match} returns them. */
  groups: PyMatch;
}

/**
 * A compiled Python pattern.
 *
 * @example
 * ```ts
 * import { compilePyRegex, FLAG } from "./pyregex.ts";
 * const re = compilePyRegex("<cmd>(.*?)</cmd>\\Z", { where: "example", flags: FLAG.DOTALL });
 * re.findall("<cmd>ls\n-la</cmd>"); // ["ls\n-la"]
 * compilePyRegex("(?x) a b  # spaced out", { where: "example" }).match("ab")?.[0]; // "ab"
 * ```
 */
export class PyRegex {
  /** The Python pattern. */
  readonly pattern: string;
  /** Number of capturing groups. */
  readonly groups: number;
  /** Group name -> group number (Python's `groupindex`). */
  readonly groupindex: Readonly<Record<string, number>>;
  readonly #parsed: Parsed;
  readonly #jsGroup: number[];
  readonly #global: RegExp;
  readonly #flags: string;
  #sticky: RegExp | undefined;
  #nonEmpty: RegExp | undefined;

  /** Use {@link compilePyRegex}. */
  constructor(pattern: string, parsed: Parsed) {
    this.pattern = pattern;
    this.#parsed = parsed;
    this.groups = parsed.groups;
    this.groupindex = parsed.names;
    const { source, flags, jsGroup } = emitPattern(parsed);
    this.#jsGroup = jsGroup;
    this.#flags = flags;
    this.#global = new RegExp(source, `g${flags}`);
  }

  /** The JavaScript source the pattern became (for diagnostics). */
  get jsSource(): string {
    return this.#global.source;
  }

  /** Python's `re.match`: a match starting at the beginning of `text`, or null. */
  match(text: string): PyMatch | null {
    this.#sticky ??= new RegExp(this.#global.source, `y${this.#flags}`);
    this.#sticky.lastIndex = 0;
    const m = this.#sticky.exec(text);
    return m && this.#groupsOf(m, 0);
  }

  /** Python's `re.search`: the first match anywhere in `text`, or null. */
  search(text: string): PyMatch | null {
    this.#global.lastIndex = 0;
    const m = this.#global.exec(text);
    return m && this.#groupsOf(m, 0);
  }

  /**
   * Python's `re.findall`: every non-overlapping match, left to right. Each is the whole match (no
   * groups), group 1 (one group) or the tuple of groups (several); a group that did not take part
   * is `""`. After an empty match the next one may start at the same place only if it is not empty
   * (Python 3.7+).
   */
  findall(text: string): (string | string[])[] {
    return this.finditer(text).map(({ groups: m }) => {
      const groups = m.map((g) => g ?? "");
      return this.groups === 0 ? groups[0]! : this.groups === 1 ? groups[1]! : groups.slice(1);
    });
  }

  /**
   * Python's `re.finditer`: every non-overlapping match, left to right, with where it starts and
   * ends (UTF-16 offsets into `text`); the same matches {@link PyRegex.findall} reads.
   */
  finditer(text: string): PyMatchSpan[] {
    const out: PyMatchSpan[] = [];
    let pos = 0;
    let afterEmpty = false;
    while (pos <= text.length) {
      let m: RegExpExecArray | null = null;
      let offset = 0;
      if (afterEmpty) {
        this.#nonEmpty ??= new RegExp(
          `(?=([\\s\\S]*))(?:${emitPattern(this.#parsed, 1).source})(?!\\1)`,
          `y${this.#flags}`,
        );
        this.#nonEmpty.lastIndex = pos;
        m = this.#nonEmpty.exec(text);
        offset = 1;
        if (m === null) {
          pos += (text.codePointAt(pos) ?? 0) > 0xffff ? 2 : 1;
          if (pos > text.length) break;
        }
      }
      if (m === null) {
        offset = 0;
        this.#global.lastIndex = pos;
        m = this.#global.exec(text);
        if (m === null) break;
      }
      out.push({ start: m.index, end: m.index + m[0].length, groups: this.#groupsOf(m, offset) });
      afterEmpty = m[0].length === 0;
      pos = m.index + m[0].length;
    }
    return out;
  }

  #groupsOf(m: RegExpExecArray, offset: number): PyMatch {
    const out: PyMatch = [m[0]];
    for (let i = 1; i <= this.groups; i++) out.push(m[this.#jsGroup[i]! + offset]);
    return out;
  }
}

/**
 * Compile a Python pattern.
 *
 * @param pattern the pattern, in Python's `re` syntax
 * @param options where it comes from (for errors), flags, whether group values are read
 * @returns the compiled pattern
 * @throws {PyRegexError} naming `options.where`, the pattern and Python's error (or the refused
 *   construct) with its position
 */
export function compilePyRegex(pattern: string, options: PyRegexOptions): PyRegex {
  try {
    const parsed = parsePattern(pattern, options.flags ?? 0);
    checkPattern(parsed, pattern, options.groups ?? true);
    return new PyRegex(pattern, parsed);
  } catch (e) {
    if (e instanceof PatternError) throw new PyRegexError(options.where, pattern, e);
    throw e;
  }
}
