/**
 * Python `re` pattern syntax (CPython 3.11-3.13, str patterns) parsed into a small tree. It accepts
 * exactly what Python's parser accepts and fails with Python's own error text and position
 * (`re.error`), so a pattern that Python rejects is rejected here with the same message.
 *
 * @module
 */
import { reprStr } from "../pyrepr.ts";
import { type Alt, altWidth, FLAG, type Node, type Parsed, PatternError } from "./_ast.ts";
import {
  checkGroupName,
  escape,
  INLINE_FLAGS,
  isIdentifier,
  lit,
  parseClass,
  parseFlags,
  parseRepeat,
  REPEAT,
  SPECIAL,
  State,
  WHITESPACE,
} from "./_parse_atoms.ts";
import { len, Source } from "./_source.ts";

/**
 * Parse a Python pattern.
 *
 * @param pattern the pattern text
 * @param flags flags passed to `re.compile` (bits of {@link FLAG})
 * @throws {PatternError} with Python's message for a pattern Python rejects, or `unsupported` set for
 *   a valid construct claudius cannot translate exactly (conditional groups, `\N{...}`, `(?t)`)
 */
export function parsePattern(pattern: string, flags: number): Parsed {
  const src = new Source(pattern);
  const state = new State(flags);
  const alt = parseSub(src, state, (flags & FLAG.VERBOSE) !== 0, 0);
  if (src.next !== null) throw src.error("unbalanced parenthesis");
  for (const [id, pos] of state.condRefs) {
    if (id >= state.groups) throw new PatternError(`invalid group reference ${id}`, pattern, pos);
  }
  if (src.refused) throw src.refused;
  let f = state.flags;
  if (f & FLAG.LOCALE) throw new PatternError("cannot use LOCALE flag with a str pattern", pattern);
  if (!(f & FLAG.ASCII)) f |= FLAG.UNICODE;
  else if (f & FLAG.UNICODE) throw new PatternError("ASCII and UNICODE flags are incompatible", pattern);
  if (f & FLAG.TEMPLATE) throw new PatternError("the TEMPLATE flag (?t) is not supported", pattern, 0, true);
  return { alt, flags: f, groups: state.groups - 1, names: state.names };
}

function parseSub(src: Source, state: State, verbose: boolean, nested: number): Alt {
  const items: Alt = [];
  for (;;) {
    items.push(parseSeq(src, state, verbose, nested + 1, nested === 0 && items.length === 0));
    if (!src.match("|")) return items;
    if (nested === 0) verbose = (state.flags & FLAG.VERBOSE) !== 0;
  }
}

function parseSeq(src: Source, state: State, verbose: boolean, nested: number, first: boolean): Node[] {
  const seq: Node[] = [];
  for (;;) {
    const tok = src.next;
    if (tok === null || tok === "|" || tok === ")") return seq;
    src.get();
    if (verbose) {
      if (WHITESPACE.has(tok)) continue;
      if (tok === "#") {
        for (let t = src.get(); t !== null && t !== "\n"; t = src.get());
        continue;
      }
    }
    if (tok[0] === "\\" && tok.length > 1) seq.push(escape(src, tok, state));
    else if (!SPECIAL.has(tok)) seq.push(lit(tok));
    else if (tok === "[") seq.push(parseClass(src));
    else if (REPEAT.has(tok)) parseRepeat(src, tok, seq);
    else if (tok === ".") seq.push({ k: "any" });
    else if (tok === "(") {
      const node = parseGroup(src, state, verbose, nested, first && seq.length === 0);
      if (node === "flags") verbose = (state.flags & FLAG.VERBOSE) !== 0;
      else if (node !== null) seq.push(node);
    } else if (tok === "^") seq.push({ k: "at", at: "bol" });
    else seq.push({ k: "at", at: "eol" });
  }
}

/** What a group's opening said: whether it captures (and its name), scoped flags, atomic. */
interface Opening {
  capture: boolean;
  name: string | null;
  add: number;
  del: number;
  atomic: boolean;
}

const PLAIN: Opening = { capture: true, name: null, add: 0, del: 0, atomic: false };
const NON_CAPTURING: Opening = { ...PLAIN, capture: false };

/** Returns the node, null for a comment, or "flags" after global inline flags. */
function parseGroup(
  src: Source,
  state: State,
  verbose: boolean,
  nested: number,
  first: boolean,
): Node | null | "flags" {
  const start = src.tell() - 1;
  const body = (opening: Opening) => parseGroupBody(src, state, verbose, nested, start, opening);
  if (!src.match("?")) return body(PLAIN);
  const char = src.get();
  if (char === null) throw src.error("unexpected end of pattern");
  if (char === "P") {
    const named = parseNamed(src, state, start);
    return typeof named === "string" ? body({ ...PLAIN, name: named }) : named;
  }
  if (char === ":") return body(NON_CAPTURING);
  if (char === "#") {
    for (;;) {
      if (src.next === null) throw src.error("missing ), unterminated comment", src.tell() - start);
      if (src.get() === ")") return null;
    }
  }
  if (char === "=" || char === "!" || char === "<") {
    return parseLook(src, state, verbose, nested, start, char);
  }
  if (char === "(") return parseConditional(src, state, verbose, nested, start);
  if (char === ">") return body({ ...NON_CAPTURING, atomic: true });
  if (INLINE_FLAGS.has(char) || char === "-") {
    const scoped = parseFlags(src, state, char);
    if (scoped !== null) return body({ ...NON_CAPTURING, add: scoped[0], del: scoped[1] });
    if (!first) throw src.error("global flags not at the start of the expression", src.tell() - start);
    return "flags";
  }
  throw src.error(`unknown extension ?${char}`, len(char) + 1);
}

/** After `(?P`: a named group's name (`<name>`), or the backreference `(?P=name)`. */
function parseNamed(src: Source, state: State, start: number): string | Node {
  if (src.match("<")) {
    const name = src.getUntil(">", "group name");
    checkGroupName(src, name, 1);
    return name;
  }
  if (src.match("=")) {
    const ref = src.getUntil(")", "group name");
    checkGroupName(src, ref, 1);
    const id = state.names[ref];
    if (id === undefined) throw src.error(`unknown group name ${reprStr(ref)}`, len(ref) + 1);
    if (!state.closed(id)) throw src.error("cannot refer to an open group", len(ref) + 1);
    state.checkLookbehind(id, src);
    return { k: "ref", id, pos: start };
  }
  const char = src.get();
  if (char === null) throw src.error("unexpected end of pattern");
  throw src.error(`unknown extension ?P${char}`, len(char) + 2);
}

/** A lookahead `(?=...)`/`(?!...)`, or after `(?<` a lookbehind. */
function parseLook(
  src: Source,
  state: State,
  verbose: boolean,
  nested: number,
  start: number,
  opener: string,
): Node {
  let char: string | null = opener;
  let behind = false;
  let outer: number | null = null;
  if (char === "<") {
    char = src.get();
    if (char === null) throw src.error("unexpected end of pattern");
    if (char !== "=" && char !== "!") throw src.error(`unknown extension ?<${char}`, len(char) + 2);
    behind = true;
    outer = state.lookbehindGroups;
    if (outer === null) state.lookbehindGroups = state.groups;
  }
  const body = parseSub(src, state, verbose, nested + 1);
  if (behind && outer === null) state.lookbehindGroups = null;
  if (!src.match(")")) throw src.error("missing ), unterminated subpattern", src.tell() - start);
  return { k: "look", behind, neg: char === "!", body, pos: start };
}

/** A group's subpattern up to its `)`: a group (capturing or not) or an atomic group. */
function parseGroupBody(
  src: Source,
  state: State,
  verbose: boolean,
  nested: number,
  start: number,
  { capture, name, add, del, atomic }: Opening,
): Node {
  const id = capture ? state.open(name, src) : null;
  const subVerbose = (verbose || (add & FLAG.VERBOSE) !== 0) && !(del & FLAG.VERBOSE);
  const body = parseSub(src, state, subVerbose, nested + 1);
  if (!src.match(")")) throw src.error("missing ), unterminated subpattern", src.tell() - start);
  if (id !== null) state.widths[id] = altWidth(body, state.widths);
  if (atomic) return { k: "atomic", body, pos: start };
  return { k: "group", id, add, del, body, pos: start };
}

/** `(?(id)yes|no)`: checked as Python checks it, then refused (JavaScript has no conditionals). */
function parseConditional(src: Source, state: State, verbose: boolean, nested: number, start: number): Node {
  const name = src.getUntil(")", "group name");
  let id: number | undefined;
  if (isIdentifier(name)) {
    id = state.names[name];
    if (id === undefined) throw src.error(`unknown group name ${reprStr(name)}`, len(name) + 1);
  } else {
    if (!/^\s*\+?[0-9]+(?:_[0-9]+)*\s*$/.test(name)) {
      throw src.error(`bad character in group name ${reprStr(name)}`, len(name) + 1);
    }
    id = Number(name.replaceAll("_", ""));
    if (id === 0) throw src.error("bad group number", len(name) + 1);
    state.condRefs.push([id, src.tell() - len(name) - 1]);
  }
  state.checkLookbehind(id, src);
  const yes = parseSeq(src, state, verbose, nested + 1, false);
  const body: Alt = [yes];
  if (src.match("|")) {
    body.push(parseSeq(src, state, verbose, nested + 1, false));
    if (src.next === "|") throw src.error("conditional backref with more than two branches");
  }
  if (!src.match(")")) throw src.error("missing ), unterminated subpattern", src.tell() - start);
  src.refused ??= src.unsupported("the conditional group (?(...)yes|no) is not supported", start);
  return { k: "group", id: null, add: 0, del: 0, body, pos: start };
}
