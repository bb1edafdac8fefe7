/**
 * `.env` files read exactly as python-dotenv's `load_dotenv` (which upstream uses) reads them: an
 * unquoted value ends at whitespace followed by `#` (so `K=x#y` is `x#y`), single and double quotes
 * may span lines, double quotes know `\n \t \" \\ ...`, backticks are not quotes, a line that does not
 * parse is skipped, a key without `=` sets nothing, and `${VAR}` / `${VAR:-default}` are expanded
 * from the process environment first, then from the keys above.
 *
 * @module
 */
import { SIMPLE_ESCAPES } from "./escapes.ts";

/**
 * The largest `.env` file claudius reads (a larger one is skipped with a warning: a device such as
 * `/dev/zero` would fill the memory). What writes the global `.env` keeps it under this size.
 */
export const DOTENV_MAX_BYTES = 1 << 20;

/** Python's Unicode whitespace without CR and LF (`[^\S\r\n]` in python-dotenv's patterns). */
const H = "\\t\\v\\f\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
/** Python's `\s`. */
const S = `${H}\\r\\n`;

const sticky = (source: string) => new RegExp(source, "y");
const RE = {
  space: sticky(`[${S}]*`),
  export: sticky(`(?:export[${H}]+)?`),
  quotedKey: sticky(`'([^']+)'`),
  key: sticky(`([^=#${S}]+)`),
  blank: sticky(`[${H}]*`),
  equals: sticky(`=[${H}]*`),
  single: sticky(`'((?:\\\\'|[^'])*)'`),
  double: sticky(`"((?:\\\\"|[^"])*)"`),
  bare: sticky(`[^\\r\\n]*`),
  comment: sticky(`(?:[${H}]*#[^\\r\\n]*)?`),
  eol: sticky(`[${H}]*(?:\\r\\n|\\n|\\r|$)`),
  rest: sticky(`[^\\r\\n]*(?:\\r|\\n|\\r\\n)?`),
};
const INLINE_COMMENT = new RegExp(`[${S}]+#.*`);
const TRAILING_SPACE = new RegExp(`[${S}]+$`);
const VARIABLE = /\$\{([^}:]*)(?::-([^}]*))?\}/g;

/** A position in the text; `read` advances it or throws (python-dotenv's `Reader`). */
class Reader {
  pos = 0;
  constructor(readonly text: string) {}

  read(re: RegExp): RegExpExecArray {
    re.lastIndex = this.pos;
    const m = re.exec(this.text);
    if (!m) throw new SyntaxError("pattern not found");
    this.pos = re.lastIndex;
    return m;
  }
}

function value(r: Reader): string {
  const c = r.text[r.pos];
  if (c === "'") return r.read(RE.single)[1]!.replace(/\\([\\'])/g, "$1");
  if (c === '"') return r.read(RE.double)[1]!.replace(/\\([\\'"abfnrtv])/g, (_, e) => SIMPLE_ESCAPES[e]!);
  if (c === undefined || c === "\n" || c === "\r") return "";
  return r.read(RE.bare)[0].replace(INLINE_COMMENT, "").replace(TRAILING_SPACE, "");
}

/** One statement of a `.env` text: its key (null for a comment or an unparsable line) and its span. */
interface Statement {
  key: string | null;
  value: string | null;
  start: number;
  end: number;
}

/** The statements of a `.env` text in order, each with the text it spans (leading blank lines included). */
function statements(text: string): Statement[] {
  const r = new Reader(text);
  const out: Statement[] = [];
  while (r.pos < text.length) {
    const start = r.pos;
    try {
      r.read(RE.space);
      if (r.pos >= text.length) {
        out.push({ key: null, value: null, start, end: r.pos });
        break;
      }
      r.read(RE.export);
      const c = text[r.pos];
      const key = c === "#" ? null : r.read(c === "'" ? RE.quotedKey : RE.key)[1]!;
      r.read(RE.blank);
      const v = text[r.pos] === "=" ? (r.read(RE.equals), value(r)) : null;
      r.read(RE.comment);
      r.read(RE.eol);
      out.push({ key, value: v, start, end: r.pos });
    } catch {
      r.read(RE.rest); // an unparsable statement: skip the rest of its line
      out.push({ key: null, value: null, start, end: r.pos });
    }
  }
  return out;
}

/** The bindings of a `.env` text in order; `null` for a key without `=`. */
function bindings(text: string): [string, string | null][] {
  return statements(text).flatMap((
    s,
  ) => (s.key === null ? [] : [[s.key, s.value] as [string, string | null]]));
}

/**
 * The text with `key` set to `value`, as python-dotenv's `set_key` writes it (`KEY='value'`, single
 * quotes escaped): every statement of that key is replaced by that line, else the line is appended
 * (after a newline if the text lacks a final one).
 *
 * @example
 * ```ts
 * import { setDotEnvKey } from "./dotenv.ts";
 * setDotEnvKey("A=1\nB=2\n", "A", "it's"); // "A='it\\'s'\nB=2\n"
 * ```
 */
export function setDotEnvKey(text: string, key: string, value: string): string {
  const line = `${key}='${value.replaceAll("'", "\\'")}'\n`;
  let out = "";
  let replaced = false;
  for (const s of statements(text)) {
    if (s.key !== key) out += text.slice(s.start, s.end);
    else {
      out += line;
      replaced = true;
    }
  }
  if (replaced) return out;
  return out + (out === "" || out.endsWith("\n") ? "" : "\n") + line;
}

/**
 * The text without `key`'s statements (python-dotenv's `unset_key`), or undefined when it sets no such key.
 *
 * @example
 * ```ts
 * import { unsetDotEnvKey } from "./dotenv.ts";
 * unsetDotEnvKey("A=1\nB=2\n", "A"); // "B=2\n"
 * unsetDotEnvKey("B=2\n", "A"); // undefined
 * ```
 */
export function unsetDotEnvKey(text: string, key: string): string | undefined {
  const all = statements(text);
  if (!all.some((s) => s.key === key)) return undefined;
  return all.filter((s) => s.key !== key).map((s) => text.slice(s.start, s.end)).join("");
}

/**
 * Parse `.env` text into the variables it sets (later lines win), with `${VAR}` and
 * `${VAR:-default}` expanded as python-dotenv does under `load_dotenv(override=False)`: from `env`
 * first, then from the keys above. Keys without `=` and lines that do not parse set nothing.
 * CR LF and CR count as LF, as when Python reads the file in text mode.
 *
 * @example
 * ```ts
 * import { parseDotEnv } from "./dotenv.ts";
 * parseDotEnv('A=1 # note\nB=x#y\nexport C="two\nlines"\nD=${A}-${E:-e}', {});
 * // { A: "1", B: "x#y", C: "two\nlines", D: "1-e" }
 * ```
 * @param text the file's content
 * @param env the process environment (wins in expansions)
 */
export function parseDotEnv(
  text: string,
  env: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const raw = new Map<string, string | null>();
  for (const [key, v] of bindings(text.replace(/\r\n?/g, "\n"))) {
    const expanded = v === null ? null : v.replace(VARIABLE, (_, name: string, dflt?: string) => {
      const found = Object.hasOwn(env, name) ? env[name] : raw.has(name) ? raw.get(name) : dflt ?? "";
      return found ?? "";
    });
    raw.set(key, expanded);
  }
  const out: Record<string, string> = {};
  for (const [key, v] of raw) if (v !== null) out[key] = v;
  return out;
}
