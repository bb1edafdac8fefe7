/**
 * The parts of a Python pattern that hold no subpattern, for `_parser.ts`: the parser's state
 * (groups, names, flags), repeats, character classes, escapes and inline flags, each accepted or
 * refused with Python's own message and position.
 *
 * @module
 */
import { reprStr } from "../pyrepr.ts";
import { FLAG, type Node, PatternError, type SetItem } from "./_ast.ts";
import { len, type Source } from "./_source.ts";

const MAXREPEAT = 4294967295;

export const INLINE_FLAGS: ReadonlyMap<string, number> = new Map(Object.entries({
  i: FLAG.IGNORECASE,
  L: FLAG.LOCALE,
  m: FLAG.MULTILINE,
  s: FLAG.DOTALL,
  x: FLAG.VERBOSE,
  a: FLAG.ASCII,
  t: FLAG.TEMPLATE,
  u: FLAG.UNICODE,
}));
const TYPE_FLAGS = FLAG.ASCII | FLAG.LOCALE | FLAG.UNICODE;
const GLOBAL_FLAGS = FLAG.DEBUG | FLAG.TEMPLATE;

export const SPECIAL = new Set([..."." + "\\[{()*+?^$|"]);
export const REPEAT = new Set([..."*+?{"]);
const DIGITS = /^[0-9]$/;
const OCT = /^[0-7]$/;
const HEX = /^[0-9a-fA-F]$/;
export const WHITESPACE = new Set([..." \t\n\r\v\f"]);
const LETTER = /^[A-Za-z]$/;
const SIMPLE_ESCAPES: ReadonlyMap<string, number> = new Map(
  Object.entries({ a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, "\\": 92 }),
);
type Category = "d" | "D" | "s" | "S" | "w" | "W";
const CATEGORIES: ReadonlySet<string> = new Set<Category>(["d", "D", "s", "S", "w", "W"]);
const isCategory = (c: string): c is Category => CATEGORIES.has(c);

export const isIdentifier = (s: string) => /^[\p{XID_Start}_]\p{XID_Continue}*$/u.test(s);
const isAlpha = (s: string) => /^\p{L}$/u.test(s);

/** Parser state: groups opened so far, their widths once closed, names, global flags. */
export class State {
  flags: number;
  widths: ([number, number] | null)[] = [null];
  names: Record<string, number> = {};
  lookbehindGroups: number | null = null;
  /** Group numbers named by conditionals, checked once every group is known. */
  condRefs: [number, number][] = [];
  constructor(flags: number) {
    this.flags = flags;
  }
  get groups(): number {
    return this.widths.length;
  }
  open(name: string | null, src: Source): number {
    const id = this.groups;
    this.widths.push(null);
    if (name !== null) {
      const old = this.names[name];
      if (old !== undefined) {
        throw src.error(
          `redefinition of group name ${reprStr(name)} as group ${id}; was group ${old}`,
          len(name) + 1,
        );
      }
      this.names[name] = id;
    }
    return id;
  }
  closed(id: number): boolean {
    return id < this.groups && this.widths[id] !== null;
  }
  checkLookbehind(id: number, src: Source): void {
    if (this.lookbehindGroups === null) return;
    if (!this.closed(id)) throw src.error("cannot refer to an open group");
    if (id >= this.lookbehindGroups) {
      throw src.error("cannot refer to group defined in the same lookbehind subpattern");
    }
  }
}

export function parseRepeat(src: Source, tok: string, seq: Node[]): void {
  const here = src.tell();
  let min = 0;
  let max = Infinity;
  if (tok === "?") max = 1;
  else if (tok === "+") min = 1;
  else if (tok === "{") {
    if (src.next === "}") {
      seq.push({ k: "lit", cp: 0x7b });
      return;
    }
    let lo = "";
    let hi = "";
    while (src.next !== null && DIGITS.test(src.next)) lo += src.get();
    if (src.match(",")) { while (src.next !== null && DIGITS.test(src.next)) hi += src.get(); }
    else hi = lo;
    if (!src.match("}")) {
      seq.push({ k: "lit", cp: 0x7b });
      src.seek(here);
      return;
    }
    if (lo !== "") {
      min = Number(lo);
      if (min >= MAXREPEAT) throw new PatternError("the repetition number is too large", src.pattern);
    }
    if (hi !== "") {
      max = Number(hi);
      if (max >= MAXREPEAT) throw new PatternError("the repetition number is too large", src.pattern);
      if (max < min) throw src.error("min repeat greater than max repeat", src.tell() - here);
    }
  }
  const item = seq.at(-1);
  if (item === undefined || item.k === "at") throw src.error("nothing to repeat", src.tell() - here + 1);
  if (item.k === "rep") throw src.error("multiple repeat", src.tell() - here + 1);
  const mode = src.match("?") ? "lazy" : src.match("+") ? "possessive" : "greedy";
  seq[seq.length - 1] = { k: "rep", min, max, mode, item, pos: here - 1 };
}

export function parseClass(src: Source): Node {
  const here = src.tell() - 1;
  const neg = src.match("^");
  const items: SetItem[] = [];
  for (;;) {
    const tok = src.get();
    if (tok === null) throw src.error("unterminated character set", src.tell() - here);
    if (tok === "]" && items.length > 0) break;
    const code1 = tok[0] === "\\" && tok.length > 1 ? classEscape(src, tok) : lit(tok);
    if (src.match("-")) {
      const that = src.get();
      if (that === null) throw src.error("unterminated character set", src.tell() - here);
      if (that === "]") {
        items.push(code1, lit("-"));
        break;
      }
      const code2 = that[0] === "\\" && that.length > 1 ? classEscape(src, that) : lit(that);
      if (code1.k !== "lit" || code2.k !== "lit" || code2.cp < code1.cp) {
        throw src.error(`bad character range ${tok}-${that}`, len(tok) + 1 + len(that));
      }
      items.push({ k: "range", lo: code1.cp, hi: code2.cp });
    } else {
      items.push(code1);
    }
  }
  return { k: "set", neg, items };
}

export function lit(tok: string): { k: "lit"; cp: number } {
  const cp = tok.codePointAt(0);
  if (cp === undefined) throw new Error("Cannot parse the pattern: an empty token");
  return { k: "lit", cp };
}

/** `\x..`, `\u....`, `\U........`, `\N{...}`: shared by classes and sequences. */
function codeEscape(src: Source, tok: string): number | undefined {
  const c = tok[1];
  const digits = c === "x" ? 2 : c === "u" ? 4 : c === "U" ? 8 : 0;
  if (digits > 0) {
    const esc = tok + src.getWhile(digits, HEX);
    if (len(esc) !== digits + 2) throw src.error(`incomplete escape ${esc}`, len(esc));
    const cp = parseInt(esc.slice(2), 16);
    if (cp > 0x10ffff) throw src.error(`bad escape ${esc}`, len(esc));
    return cp;
  }
  if (c === "N") {
    const pos = src.tell() - 2;
    if (!src.match("{")) throw src.error("missing {");
    const name = src.getUntil("}", "character name");
    src.refused ??= src.unsupported(
      `the named character \\N{${name}} is not supported (write the character itself or \\uXXXX)`,
      pos,
    );
    return 0xfffd;
  }
  return undefined;
}

function classEscape(src: Source, tok: string): SetItem {
  const c = tok.slice(1);
  const simple = SIMPLE_ESCAPES.get(c);
  if (simple !== undefined) return { k: "lit", cp: simple };
  if (isCategory(c)) return { k: "cat", c };
  const code = codeEscape(src, tok);
  if (code !== undefined) return { k: "lit", cp: code };
  if (OCT.test(c)) {
    const esc = tok + src.getWhile(2, OCT);
    const cp = parseInt(esc.slice(1), 8);
    if (cp > 0o377) throw src.error(`octal escape value ${esc} outside of range 0-0o377`, len(esc));
    return { k: "lit", cp };
  }
  if (DIGITS.test(c) || LETTER.test(c)) throw src.error(`bad escape ${tok}`, len(tok));
  return lit(c);
}

export function escape(src: Source, tok: string, state: State): Node {
  const c = tok.slice(1);
  switch (c) {
    case "A":
    case "Z":
    case "b":
    case "B":
      return { k: "at", at: c };
  }
  if (isCategory(c)) return { k: "set", neg: false, items: [{ k: "cat", c }] };
  const simple = SIMPLE_ESCAPES.get(c);
  if (simple !== undefined) return { k: "lit", cp: simple };
  const code = codeEscape(src, tok);
  if (code !== undefined) return { k: "lit", cp: code };
  if (c === "0") return { k: "lit", cp: parseInt(tok.slice(1) + src.getWhile(2, OCT), 8) };
  if (DIGITS.test(c)) {
    let esc = tok;
    if (src.next !== null && DIGITS.test(src.next)) {
      esc += src.get();
      if (OCT.test(esc.charAt(1)) && OCT.test(esc.charAt(2)) && src.next !== null && OCT.test(src.next)) {
        esc += src.get();
        const cp = parseInt(esc.slice(1), 8);
        if (cp > 0o377) throw src.error(`octal escape value ${esc} outside of range 0-0o377`, len(esc));
        return { k: "lit", cp };
      }
    }
    const id = Number(esc.slice(1));
    if (id < state.groups) {
      if (!state.closed(id)) throw src.error("cannot refer to an open group", len(esc));
      state.checkLookbehind(id, src);
      return { k: "ref", id, pos: src.tell() - len(esc) };
    }
    throw src.error(`invalid group reference ${id}`, len(esc) - 1);
  }
  if (LETTER.test(c)) throw src.error(`bad escape ${tok}`, len(tok));
  return lit(c);
}

export function checkGroupName(src: Source, name: string, offset: number): void {
  if (!isIdentifier(name)) {
    throw src.error(`bad character in group name ${reprStr(name)}`, len(name) + offset);
  }
}

/** Inline flags after `(?`: null for global flags `(?i)`, else the scoped `[add, del]` of `(?i-s:...)`. */
export function parseFlags(src: Source, state: State, first: string): [number, number] | null {
  let add = 0;
  let del = 0;
  let char: string = first;
  for (let flag = INLINE_FLAGS.get(char); flag !== undefined; flag = INLINE_FLAGS.get(char)) {
    if (char === "L") throw src.error("bad inline flags: cannot use 'L' flag with a str pattern");
    add |= flag;
    if ((flag & TYPE_FLAGS) && (add & TYPE_FLAGS) !== flag) {
      throw src.error("bad inline flags: flags 'a', 'u' and 'L' are incompatible");
    }
    const next = src.get();
    if (next === null) throw src.error("missing -, : or )");
    char = next;
    if (char === ")" || char === "-" || char === ":") break;
    if (!INLINE_FLAGS.has(char)) {
      throw src.error(isAlpha(char) ? "unknown flag" : "missing -, : or )", len(char));
    }
  }
  if (char === ")") {
    state.flags |= add;
    return null;
  }
  if (add & GLOBAL_FLAGS) throw src.error("bad inline flags: cannot turn on global flag", 1);
  if (char === "-") del = parseFlagsOff(src);
  if (del & GLOBAL_FLAGS) throw src.error("bad inline flags: cannot turn off global flag", 1);
  if (add & del) throw src.error("bad inline flags: flag turned on and off", 1);
  return [add, del];
}

/** The flags turned off after `-` in `(?i-s:...)`, up to the `:`. */
function parseFlagsOff(src: Source): number {
  let del = 0;
  let char = src.get();
  if (char === null) throw src.error("missing flag");
  let flag = INLINE_FLAGS.get(char);
  if (flag === undefined) throw src.error(isAlpha(char) ? "unknown flag" : "missing flag", len(char));
  for (;;) {
    if (flag & TYPE_FLAGS) throw src.error("bad inline flags: cannot turn off flags 'a', 'u' and 'L'");
    del |= flag;
    char = src.get();
    if (char === null) throw src.error("missing :");
    if (char === ":") return del;
    flag = INLINE_FLAGS.get(char);
    if (flag === undefined) throw src.error(isAlpha(char) ? "unknown flag" : "missing :", len(char));
  }
}
