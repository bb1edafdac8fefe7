/**
 * A small bash reader for classifying commands: it splits a command into simple commands
 * ("segments") at unquoted `;`, `&&`, `||`, `|`, `&`, newlines and subshell parentheses, removes
 * quoting from words, collects redirections, skips heredoc bodies and comments, and reads the
 * inside of `$(...)`, backticks and `<(...)` / `>(...)` as segments of their own. It is not a
 * shell: it only has to see which programs a command runs and which files it redirects into.
 *
 * @module
 */

/** One redirection: its operator (`>`, `>>`, `<`, `<<`, `&>`, `2>`, ...) and target word. */
export interface Redirect {
  op: string;
  target: string;
}

/** One simple command: its words (quotes removed) and redirections. */
export interface Segment {
  words: string[];
  redirects: Redirect[];
}

/** Characters that end an unquoted word: white space and `;&|()<>`. */
const WORD_END = new Uint8Array(128);
for (const c of " \t\n\r\f\v;&|()<>") WORD_END[c.charCodeAt(0)] = 1;
const endsWord = (s: string, i: number) => {
  const c = s.charCodeAt(i);
  return c < 128 ? WORD_END[c] === 1 : c === 0xa0;
};
/** Characters that start quoting, escapes or substitutions inside a word. */
const SPECIAL = new Set(["\\", "'", '"', "$", "`"]);
const isBlank = (c: string) => c === " " || c === "\t" || c === "\r" || c === "\f" || c === "\v";
const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";

/**
 * Split a bash command into simple commands.
 *
 * @example
 * ```ts
 * import { shellSegments } from "./_shell.ts";
 * shellSegments("cat > a.py <<'EOF'\nimport os; os.remove('x')\nEOF\npython3 a.py | tee log");
 * // [{ words: ["cat"], redirects: [{op: ">", target: "a.py"}, {op: "<<", target: "EOF"}] },
 * //  { words: ["python3", "a.py"], redirects: [] }, { words: ["tee", "log"], redirects: [] }]
 * ```
 */
export function shellSegments(command: string): Segment[] {
  const reader = new SegmentReader(command);
  const out = reader.read();
  for (const body of reader.inner) out.push(...shellSegments(body));
  return out;
}

/** One pass over a command: its segments, and the insides of its substitutions to read after. */
class SegmentReader {
  /** The bodies of `$(...)`, backticks and process substitutions, in order. */
  readonly inner: string[] = [];
  readonly #s: string;
  #i = 0;
  #out: Segment[] = [];
  #seg: Segment = { words: [], redirects: [] };
  /** Heredocs whose bodies start after the current line. */
  readonly #pending: { delim: string; tabs: boolean }[] = [];

  constructor(command: string) {
    this.#s = command;
  }

  /** The command's segments (not those of its substitutions, see {@link inner}). */
  read(): Segment[] {
    const s = this.#s;
    while (this.#i < s.length) {
      const i = this.#i;
      const c = s.charAt(i);
      if (isBlank(c)) {
        this.#i++;
      } else if (c === "\n") {
        this.#end();
        this.#i++;
        for (const h of this.#pending.splice(0)) this.#i = skipHeredoc(s, this.#i, h.delim, h.tabs);
      } else if (c === "#" && (i === 0 || endsWord(s, i - 1))) {
        const nl = s.indexOf("\n", i);
        this.#i = nl < 0 ? s.length : nl;
      } else if ((c === "<" || c === ">") && s[i + 1] === "(") {
        const close = matching(s, i + 1);
        this.inner.push(s.slice(i + 2, close));
        this.#seg.words.push(s.slice(i, close + 1));
        this.#i = close + 1;
      } else if (
        c === "<" || c === ">" || (c === "&" && s[i + 1] === ">") || (isDigit(c) && redirectAhead(s, i))
      ) {
        this.#redirect();
      } else if (c === ";" || c === "&" || c === "|" || c === "(" || c === ")") {
        this.#end();
        this.#i++;
      } else {
        const w = this.#word();
        if (this.#i === i) this.#i++; // a character no rule reads (other white space): skip it
        else if ((w === "{" || w === "}") && this.#seg.words.length === 0) this.#end();
        else this.#seg.words.push(w);
      }
    }
    this.#end();
    return this.#out;
  }

  #end(): void {
    if (this.#seg.words.length || this.#seg.redirects.length) this.#out.push(this.#seg);
    this.#seg = { words: [], redirects: [] };
  }

  /** A redirection at `i`: its operator and target word (a heredoc's body is skipped at its line's end). */
  #redirect(): void {
    const s = this.#s;
    REDIRECT.lastIndex = this.#i;
    const op = REDIRECT.exec(s)?.[0] ?? s.charAt(this.#i);
    this.#i += op.length;
    while (this.#i < s.length && isBlank(s.charAt(this.#i))) this.#i++;
    const target = this.#word();
    const bare = op.replace(/^\d+/, "");
    if (bare === "<<" || bare === "<<-") this.#pending.push({ delim: target, tabs: bare === "<<-" });
    this.#seg.redirects.push({ op, target });
  }

  /** Read one word at `i` (quotes removed; substitutions recorded for later), advancing `i`. */
  #word(): string {
    const s = this.#s;
    let text = "";
    while (this.#i < s.length && !endsWord(s, this.#i)) {
      const i = this.#i;
      const c = s.charAt(i);
      if (c === "\\") {
        if (s[i + 1] !== "\n") text += s[i + 1] ?? "";
        this.#i += 2;
      } else if (c === "'") {
        const close = s.indexOf("'", i + 1);
        const stop = close < 0 ? s.length : close;
        text += s.slice(i + 1, stop);
        this.#i = stop + 1;
      } else if (c === '"') {
        text += this.#doubleQuoted();
      } else if (c === "$" && s[i + 1] === "(") {
        text += this.#substitution();
      } else if (c === "`") {
        text += this.#backtick();
      } else {
        let j = i + 1;
        while (j < s.length && !endsWord(s, j) && !SPECIAL.has(s.charAt(j))) j++;
        text += s.slice(i, j);
        this.#i = j;
      }
    }
    return text;
  }

  /** The inside of `"..."` at `i`, escapes removed and substitutions recorded. */
  #doubleQuoted(): string {
    const s = this.#s;
    let text = "";
    this.#i++;
    while (this.#i < s.length && s[this.#i] !== '"') {
      const i = this.#i;
      if (s[i] === "\\" && i + 1 < s.length) {
        text += s[i + 1];
        this.#i += 2;
      } else if (s[i] === "$" && s[i + 1] === "(") {
        text += this.#substitution();
      } else if (s[i] === "`") {
        text += this.#backtick();
      } else {
        text += s[i];
        this.#i++;
      }
    }
    this.#i++;
    return text;
  }

  /** `$(...)` or `$((...))` at `i`: the inside is read as commands (not arithmetic). */
  #substitution(): string {
    const s = this.#s;
    const arithmetic = s[this.#i + 2] === "(";
    const close = matching(s, this.#i + 1);
    const body = s.slice(this.#i + 2, close);
    if (!arithmetic) this.inner.push(body);
    this.#i = close + 1;
    return "$(" + body + ")";
  }

  #backtick(): string {
    const s = this.#s;
    let j = this.#i + 1;
    while (j < s.length && s[j] !== "`") j += s[j] === "\\" ? 2 : 1;
    this.inner.push(s.slice(this.#i + 1, j));
    const text = s.slice(this.#i, j + 1);
    this.#i = j + 1;
    return text;
  }
}

const REDIRECT = /\d*(?:<<<|<<-|<<|<>|<&|>>|>&|>\||<|>)|&>>|&>/y;

/** Digits at `i` directly followed by `<` or `>` (a descriptor's redirection, `2>`). */
function redirectAhead(s: string, i: number): boolean {
  if (i > 0 && !endsWord(s, i - 1)) return false;
  let j = i;
  while (isDigit(s[j])) j++;
  return s[j] === "<" || s[j] === ">";
}

/** Index of the `)` closing the `(` at `open` (quotes and nesting respected), or the end. */
function matching(s: string, open: number): number {
  let depth = 0;
  for (let j = open; j < s.length; j++) {
    const c = s[j];
    if (c === "\\") j++;
    else if (c === "'") {
      const close = s.indexOf("'", j + 1);
      j = close < 0 ? s.length : close;
    } else if (c === '"') {
      j++;
      while (j < s.length && s[j] !== '"') j += s[j] === "\\" ? 2 : 1;
    } else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return j;
  }
  return s.length;
}

/** Skip a heredoc body starting at `i` up to and including its delimiter line. */
function skipHeredoc(s: string, i: number, delim: string, tabs: boolean): number {
  while (i < s.length) {
    const nl = s.indexOf("\n", i);
    const line = s.slice(i, nl < 0 ? s.length : nl);
    i = nl < 0 ? s.length : nl + 1;
    if ((tabs ? line.replace(/^\t+/, "") : line) === delim) break;
  }
  return i;
}
