/**
 * Jinja2's lexer with the default delimiters and Environment defaults: newlines normalised to `\n`,
 * one trailing newline dropped, `-` strips all whitespace on its side, no trim/lstrip blocks.
 * Tokens are produced on demand, as Jinja2's token stream does, so a syntax error earlier in the
 * template is reported before a lexing error later in it.
 * @module
 */
import { SyntaxFailure } from "./_error.ts";
import { reprStr } from "./_format.ts";
import { PY_WS, pyRstrip } from "./_strings.ts";
import { unescapeLiteral } from "./_literal.ts";

/** Token kinds. */
export type TokenType =
  | "data"
  | "var_begin"
  | "var_end"
  | "block_begin"
  | "block_end"
  | "name"
  | "string"
  | "int"
  | "float"
  | "op"
  | "eof";

/** One token; `value` is the text, the decoded string, or the number. */
export interface Token {
  type: TokenType;
  value: string | number;
  line: number;
}

const TAG_START = /\{[{%#]/g;
const RAW_BEGIN = new RegExp(`\\{%(-|\\+|)[${PY_WS}]*raw[${PY_WS}]*(?:-%\\}[${PY_WS}]*|%\\})`, "y");
const RAW_END = new RegExp(`\\{%(-|\\+|)[${PY_WS}]*endraw[${PY_WS}]*(?:\\+%\\}|-%\\}[${PY_WS}]*|%\\})`, "g");
const COMMENT_END = new RegExp(`\\+#\\}|-#\\}[${PY_WS}]*|#\\}`, "g");
const BLOCK_END = new RegExp(`\\+%\\}|-%\\}[${PY_WS}]*|%\\}`, "y");
const VAR_END = new RegExp(`-\\}\\}[${PY_WS}]*|\\}\\}`, "y");
const WHITESPACE = new RegExp(`[${PY_WS}]+`, "y");
const FLOAT = /(?<!\.)(?:\d+_)*\d+(?:(?:\.(?:\d+_)*\d+)?[eE][+-]?(?:\d+_)*\d+|\.(?:\d+_)*\d+)/y;
const INTEGER = /0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0[xX](?:_?[\da-fA-F])+|[1-9](?:_?\d)*|0(?:_?0)*/y;
// Names as Jinja2 reads them (Unicode identifiers). V8 builds the Unicode classes on first use (~2-3 ms of a
// start-up, more under load): ASCII names, all a config has, are matched by the ASCII subset of the same classes.
const NAME_ASCII = /[A-Za-z0-9_]+/y;
const IDENTIFIER_ASCII = /^[A-Za-z_][A-Za-z0-9_]*$/;
let unicodeNames: { name: RegExp; identifier: RegExp } | undefined;
const unicode = () =>
  unicodeNames ??= {
    name: /[\p{L}\p{N}_\p{XID_Continue}]+/uy,
    identifier: /^[\p{XID_Start}_]\p{XID_Continue}*$/u,
  };

/** The name at `pos` (a run of identifier characters), if any. */
function nameAt(src: string, pos: number): string | undefined {
  const ascii = sticky(src, pos, NAME_ASCII);
  // A non-ASCII character next may still belong to the name: read it again with the whole classes.
  return src.charCodeAt(pos + (ascii?.length ?? 0)) > 0x7f ? sticky(src, pos, unicode().name) : ascii;
}

/** Whether a name is a valid identifier (no leading digit, no character outside XID_Continue). */
function isIdentifier(name: string): boolean {
  return IDENTIFIER_ASCII.test(name) || unicode().identifier.test(name);
}
const STRING = /'([^'\\]*(?:\\.[^'\\]*)*)'|"([^"\\]*(?:\\.[^"\\]*)*)"/sy;
const OPERATOR = /\/\/|\*\*|==|!=|>=|<=|[+\-/*%~[\](){}><=.:|,;]/y;
const CLOSERS: Record<string, string> = { "(": ")", "[": "]", "{": "}" };

/** Applies Jinja's newline normalisation and the dropped trailing newline. */
export function normalizeSource(source: string): string {
  const s = source.includes("\r") ? source.replace(/\r\n?/g, "\n") : source;
  return s.endsWith("\n") ? s.slice(0, -1) : s;
}

function sticky(src: string, pos: number, re: RegExp): string | undefined {
  re.lastIndex = pos;
  return re.exec(src)?.[0];
}

/** Lazily splits normalised template source into tokens. */
export class Lexer {
  readonly #tokens: Token[] = [];
  readonly #src: string;
  #pos = 0;
  #line = 1;
  #lineAt = 0;
  /** Inside a tag: the open brackets, and whether it is `{{`. */
  #tag: { isVar: boolean; stack: string[] } | null = null;
  #done = false;

  constructor(src: string) {
    this.#src = src;
  }

  /** Token `i`; past the end, the `eof` token. Throws SyntaxFailure when lexing fails there. */
  token(i: number): Token {
    while (this.#tokens.length <= i && !this.#done) this.#step();
    const token = this.#tokens[Math.min(i, this.#tokens.length - 1)];
    if (!token) throw new Error("Cannot lex the template: it has no end token");
    return token;
  }

  /** 1-based line of offset `pos` (offsets are asked for in increasing order). */
  #lineOf(pos: number): number {
    if (pos < this.#lineAt) {
      this.#line = 1;
      this.#lineAt = 0;
    }
    for (
      let i = this.#src.indexOf("\n", this.#lineAt);
      i !== -1 && i < pos;
      i = this.#src.indexOf("\n", i + 1)
    ) {
      this.#line++;
      this.#lineAt = i + 1;
    }
    return this.#line;
  }

  #push(type: TokenType, value: string | number, pos: number): void {
    this.#tokens.push({ type, value, line: this.#lineOf(pos) });
  }

  #fail(msg: string, pos: number): never {
    throw new SyntaxFailure(msg, this.#lineOf(pos));
  }

  #step(): void {
    if (this.#tag) return this.#stepTag(this.#tag);
    if (this.#pos >= this.#src.length) return this.#end();
    const src = this.#src;
    TAG_START.lastIndex = this.#pos;
    const m = TAG_START.exec(src);
    if (!m) {
      this.#push("data", src.slice(this.#pos), this.#pos);
      this.#pos = src.length;
      return;
    }
    const start = m.index;
    RAW_BEGIN.lastIndex = start;
    const raw = m[0] === "{%" ? RAW_BEGIN.exec(src) : null;
    const sign = raw ? raw[1] : src[start + 2];
    let text = src.slice(this.#pos, start);
    if (sign === "-") text = pyRstrip(text);
    if (text) this.#push("data", text, this.#pos);
    if (raw) return this.#raw(start, raw[0].length);
    const p = start + 2 + (sign === "-" || sign === "+" ? 1 : 0);
    if (m[0] === "{#") return this.#comment(start, p);
    const isVar = m[0] === "{{";
    this.#push(isVar ? "var_begin" : "block_begin", m[0], start);
    this.#tag = { isVar, stack: [] };
    this.#pos = p;
  }

  #end(): void {
    // Jinja2's end-of-template token takes the line of the token before it.
    this.#tokens.push({ type: "eof", value: "", line: this.#tokens.at(-1)?.line ?? 1 });
    this.#done = true;
  }

  #raw(start: number, headLength: number): void {
    RAW_END.lastIndex = start + headLength;
    const end = RAW_END.exec(this.#src);
    if (!end) this.#fail("Missing end of raw directive", start);
    const body = this.#src.slice(start + headLength, end.index);
    const text = end[1] === "-" ? pyRstrip(body) : body;
    if (text) this.#push("data", text, start);
    this.#pos = end.index + end[0].length;
  }

  #comment(start: number, p: number): void {
    COMMENT_END.lastIndex = p;
    const end = COMMENT_END.exec(this.#src);
    if (!end) this.#fail("Missing end of comment tag", start);
    this.#pos = end.index + end[0].length;
  }

  #stepTag(tag: { isVar: boolean; stack: string[] }): void {
    const src = this.#src;
    for (;;) {
      const p = this.#pos;
      if (p >= src.length) {
        this.#tag = null;
        return this.#end();
      }
      if (tag.stack.length === 0) {
        const end = sticky(src, p, tag.isVar ? VAR_END : BLOCK_END);
        if (end !== undefined) {
          this.#push(tag.isVar ? "var_end" : "block_end", end, p);
          this.#pos = p + end.length;
          this.#tag = null;
          return;
        }
      }
      const ws = sticky(src, p, WHITESPACE);
      if (ws === undefined) {
        this.#pos = this.#lexOne(p, tag.stack);
        return;
      }
      this.#pos = p + ws.length;
    }
  }

  #lexOne(p: number, stack: string[]): number {
    const src = this.#src;
    let t: string | undefined;
    if ((t = sticky(src, p, FLOAT)) !== undefined) {
      this.#push("float", Number(t.replaceAll("_", "")), p);
    } else if ((t = sticky(src, p, INTEGER)) !== undefined) {
      this.#push("int", Number(t.replaceAll("_", "")), p);
    } else if ((t = nameAt(src, p)) !== undefined) {
      if (!isIdentifier(t)) this.#fail("Invalid character in identifier", p);
      this.#push("name", t, p);
    } else if ((t = sticky(src, p, STRING)) !== undefined) {
      const decoded = unescapeLiteral(t.slice(1, -1));
      if (decoded.error !== undefined) this.#fail(decoded.error, p);
      this.#push("string", decoded.value, p);
    } else if ((t = sticky(src, p, OPERATOR)) !== undefined) {
      this.#balance(t, p, stack);
      this.#push("op", t, p);
    } else {
      const ch = String.fromCodePoint(src.codePointAt(p) ?? 0);
      this.#fail(`unexpected char ${reprStr(ch)} at ${p}`, p);
    }
    return p + t.length;
  }

  #balance(t: string, p: number, stack: string[]): void {
    const closer = CLOSERS[t];
    if (closer) stack.push(closer);
    else if (t === ")" || t === "]" || t === "}") {
      const expected = stack.pop();
      if (expected === undefined) this.#fail(`unexpected '${t}'`, p);
      if (expected !== t) this.#fail(`unexpected '${t}', expected '${expected}'`, p);
    }
  }
}
