/**
 * Recursive-descent parser following Jinja2's grammar and operator precedence
 * (or < and < not < compare < +,- < ~ < *,/,//,% < ** (left-assoc) < unary < postfix/filter/test).
 * @module
 */
import type { Args, Expr, Node, Target } from "./_ast.ts";
import { SyntaxFailure } from "./_error.ts";
import { FILTERS, TESTS } from "./_filters.ts";
import { lineAt, normalizeSource, type Token, tokenize } from "./_lexer.ts";
import { float } from "./_python.ts";

const COMPARE_OPS = new Set(["==", "!=", "<", "<=", ">", ">="]);
const CONSTANTS: Record<string, unknown> = {
  true: true,
  false: false,
  none: null,
  True: true,
  False: false,
  None: null,
};
const TAG_NAMES: Record<string, string> = { if: "if", for: "for", set: "set" };

function describe(t: Token): string {
  switch (t.type) {
    case "name":
    case "op":
      return String(t.value);
    case "var_end":
      return "end of print statement";
    case "block_end":
      return "end of statement block";
    case "eof":
      return "end of template";
    case "string":
      return "string";
    case "int":
      return "integer";
    case "float":
      return "float";
    default:
      return "template data / text";
  }
}

/** Parses template source into statements. Throws SyntaxFailure. */
export function parseTemplate(source: string): Node[] {
  const src = normalizeSource(source);
  return new Parser(src, tokenize(src)).parseRoot();
}

class Parser {
  private i = 0;
  private stack: string[] = [];

  constructor(private src: string, private tokens: Token[]) {}

  private get cur(): Token {
    return this.tokens[this.i] ?? this.tokens[this.tokens.length - 1] as Token;
  }

  private next(): Token {
    const t = this.cur;
    if (this.i < this.tokens.length - 1) this.i++;
    return t;
  }

  private fail(msg: string, t: Token = this.cur): never {
    throw new SyntaxFailure(msg, lineAt(this.src, t.pos));
  }

  private is(type: Token["type"], value?: string): boolean {
    return this.cur.type === type && (value === undefined || this.cur.value === value);
  }

  private isOp(value: string): boolean {
    return this.is("op", value);
  }

  private skip(type: Token["type"], value?: string): boolean {
    if (!this.is(type, value)) return false;
    this.next();
    return true;
  }

  private expect(type: Token["type"], value?: string, what = value ?? type): Token {
    if (this.is(type, value)) return this.next();
    if (this.cur.type === "eof") this.fail(`unexpected end of template, expected '${what}'.`);
    return this.fail(`expected token '${what}', got '${describe(this.cur)}'`);
  }

  parseRoot(): Node[] {
    const body = this.subparse([]);
    if (!this.is("eof")) this.fail(`Encountered unknown tag '${describe(this.cur)}'.`);
    return body;
  }

  private subparse(ends: string[]): Node[] {
    const body: Node[] = [];
    for (;;) {
      const t = this.cur;
      if (t.type === "data") {
        body.push({ k: "data", text: String(this.next().value) });
      } else if (t.type === "var_begin") {
        this.next();
        body.push({ k: "output", expr: this.parseTuple(true, []) });
        this.expect("var_end", undefined, "end of print statement");
      } else if (t.type === "block_begin") {
        this.next();
        if (this.cur.type === "name" && ends.includes(String(this.cur.value))) return body;
        body.push(this.parseStatement(ends));
        this.expect("block_end", undefined, "end of statement block");
      } else if (t.type === "eof") {
        if (ends.length > 0) this.failEof(ends);
        return body;
      } else {
        this.fail(`unexpected '${describe(t)}'`);
      }
    }
  }

  private failEof(ends: string[]): never {
    const inner = this.stack.at(-1);
    return this.fail(
      `Unexpected end of template. Jinja was looking for the following tags: ${
        ends.map((e) => `'${e}'`).join(" or ")
      }. The innermost block that needs to be closed is '${inner}'.`,
    );
  }

  private parseStatement(ends: string[]): Node {
    const t = this.cur;
    if (t.type !== "name") return this.fail("tag name expected");
    const tag = TAG_NAMES[String(t.value)];
    if (!tag) {
      const looking = ends.length
        ? ` Jinja was looking for the following tags: ${ends.map((e) => `'${e}'`).join(" or ")}.`
        : "";
      return this.fail(`Encountered unknown tag '${t.value}'.${looking}`);
    }
    this.next();
    this.stack.push(tag);
    const node = tag === "if" ? this.parseIf() : tag === "for" ? this.parseFor() : this.parseSet();
    this.stack.pop();
    return node;
  }

  /** Expects the end of the tag header, then parses a body up to one of `ends`. */
  private statements(ends: string[], dropNeedle = false): Node[] {
    this.expect("block_end", undefined, "end of statement block");
    const body = this.subparse(ends);
    if (this.is("eof")) this.failEof(ends);
    if (dropNeedle) this.next();
    return body;
  }

  private parseIf(): Node {
    const branches: { test: Expr; body: Node[] }[] = [];
    let elseBody: Node[] = [];
    for (;;) {
      const test = this.parseTuple(false, []);
      branches.push({ test, body: this.statements(["elif", "else", "endif"]) });
      const t = this.next();
      if (t.value === "elif") continue;
      if (t.value === "else") elseBody = this.statements(["endif"], true);
      break;
    }
    return { k: "if", branches, else: elseBody };
  }

  private parseFor(): Node {
    const target = this.parseTarget(false, ["in"]);
    this.expect("name", "in");
    const iter = this.parseTuple(false, ["recursive"]);
    let filter: Expr | null = null;
    if (this.skip("name", "if")) filter = this.parseExpression(true);
    if (this.is("name", "recursive")) this.fail("recursive loops are not supported");
    const body = this.statements(["endfor", "else"]);
    const elseBody = this.next().value === "else" ? this.statements(["endfor"], true) : [];
    return { k: "for", target, iter, filter, body, else: elseBody };
  }

  private parseSet(): Node {
    const target = this.parseTarget(true, []);
    if (this.skip("op", "=")) return { k: "set", target, expr: this.parseTuple(true, []) };
    if (target.k !== "name") this.fail("block set supports a single name only");
    return { k: "setblock", target, body: this.statements(["endset"], true) };
  }

  private parseTarget(withNamespace: boolean, extraEnds: string[]): Target {
    const items: Target[] = [];
    let sawComma = false;
    for (;;) {
      const t = this.expect("name", undefined, "name");
      const name = String(t.value);
      if (name in CONSTANTS) this.fail(`can't assign to '${name}'`, t);
      if (withNamespace && this.skip("op", ".")) {
        items.push({ k: "nsattr", name, attr: String(this.expect("name").value) });
      } else items.push({ k: "name", name });
      if (!this.skip("op", ",")) break;
      sawComma = true;
      if (this.isOp("=") || (this.cur.type === "name" && extraEnds.includes(String(this.cur.value)))) break;
    }
    return sawComma ? { k: "tuple", items } : items[0] as Target;
  }

  private isTupleEnd(extraEnds: string[]): boolean {
    const t = this.cur;
    if (t.type === "var_end" || t.type === "block_end" || t.type === "eof") return true;
    if (t.type === "op" && t.value === ")") return true;
    return t.type === "name" && extraEnds.includes(String(t.value));
  }

  private parseTuple(withCond: boolean, extraEnds: string[], explicitParens = false): Expr {
    const items: Expr[] = [];
    let isTuple = false;
    for (;;) {
      if (items.length) this.expect("op", ",");
      if (this.isTupleEnd(extraEnds)) break;
      items.push(this.parseExpression(withCond));
      if (this.isOp(",")) isTuple = true;
      else break;
    }
    if (!isTuple) {
      if (items.length) return items[0] as Expr;
      if (!explicitParens) this.fail(`Expected an expression, got '${describe(this.cur)}'`);
    }
    return { k: "tuple", items };
  }

  private parseExpression(withCond: boolean): Expr {
    return withCond ? this.parseCondExpr() : this.parseOr();
  }

  private parseCondExpr(): Expr {
    let expr = this.parseOr();
    while (this.skip("name", "if")) {
      const test = this.parseOr();
      const elseExpr = this.skip("name", "else") ? this.parseCondExpr() : null;
      expr = { k: "cond", test, then: expr, else: elseExpr };
    }
    return expr;
  }

  private parseOr(): Expr {
    let left = this.parseAnd();
    while (this.skip("name", "or")) left = { k: "or", left, right: this.parseAnd() };
    return left;
  }

  private parseAnd(): Expr {
    let left = this.parseNot();
    while (this.skip("name", "and")) left = { k: "and", left, right: this.parseNot() };
    return left;
  }

  private parseNot(): Expr {
    if (this.skip("name", "not")) return { k: "not", node: this.parseNot() };
    return this.parseCompare();
  }

  private parseCompare(): Expr {
    const first = this.parseMath1();
    const ops: { op: string; expr: Expr }[] = [];
    for (;;) {
      const t = this.cur;
      if (t.type === "op" && COMPARE_OPS.has(String(t.value))) {
        this.next();
        ops.push({ op: String(t.value), expr: this.parseMath1() });
      } else if (this.skip("name", "in")) {
        ops.push({ op: "in", expr: this.parseMath1() });
      } else if (
        this.is("name", "not") && this.tokens[this.i + 1]?.type === "name" &&
        this.tokens[this.i + 1]?.value === "in"
      ) {
        this.i += 2;
        ops.push({ op: "notin", expr: this.parseMath1() });
      } else break;
    }
    return ops.length ? { k: "compare", first, ops } : first;
  }

  private parseMath1(): Expr {
    let left = this.parseConcat();
    while (this.isOp("+") || this.isOp("-")) {
      const op = String(this.next().value);
      left = { k: "binop", op, left, right: this.parseConcat() };
    }
    return left;
  }

  private parseConcat(): Expr {
    const items = [this.parseMath2()];
    while (this.skip("op", "~")) items.push(this.parseMath2());
    return items.length === 1 ? items[0] as Expr : { k: "concat", items };
  }

  private parseMath2(): Expr {
    let left = this.parsePow();
    while (this.isOp("*") || this.isOp("/") || this.isOp("//") || this.isOp("%")) {
      const op = String(this.next().value);
      left = { k: "binop", op, left, right: this.parsePow() };
    }
    return left;
  }

  private parsePow(): Expr {
    let left = this.parseUnary(true);
    while (this.skip("op", "**")) left = { k: "binop", op: "**", left, right: this.parseUnary(true) };
    return left;
  }

  private parseUnary(withFilter: boolean): Expr {
    let node: Expr;
    if (this.skip("op", "-")) node = { k: "neg", node: this.parseUnary(false) };
    else if (this.skip("op", "+")) node = { k: "pos", node: this.parseUnary(false) };
    else node = this.parsePrimary();
    node = this.parsePostfix(node);
    return withFilter ? this.parseFilterExpr(node) : node;
  }

  private parsePrimary(): Expr {
    const t = this.cur;
    if (t.type === "name") {
      this.next();
      const name = String(t.value);
      return name in CONSTANTS ? { k: "const", value: CONSTANTS[name] } : { k: "name", name };
    }
    if (t.type === "string") {
      let s = "";
      while (this.is("string")) s += String(this.next().value);
      return { k: "const", value: s };
    }
    if (t.type === "int" || t.type === "float") {
      this.next();
      return { k: "const", value: t.type === "float" ? float(Number(t.value)) : t.value };
    }
    if (this.skip("op", "(")) {
      const expr = this.parseTuple(true, [], true);
      this.expect("op", ")");
      return expr;
    }
    if (this.skip("op", "[")) {
      const items: Expr[] = [];
      while (!this.isOp("]")) {
        if (items.length) this.expect("op", ",");
        if (this.isOp("]")) break;
        items.push(this.parseExpression(true));
      }
      this.expect("op", "]");
      return { k: "list", items };
    }
    if (this.skip("op", "{")) {
      const pairs: [Expr, Expr][] = [];
      while (!this.isOp("}")) {
        if (pairs.length) this.expect("op", ",");
        if (this.isOp("}")) break;
        const key = this.parseExpression(true);
        this.expect("op", ":");
        pairs.push([key, this.parseExpression(true)]);
      }
      this.expect("op", "}");
      return { k: "dict", pairs };
    }
    if (t.type === "eof") return this.fail("unexpected end of template, expected an expression.");
    return this.fail(`unexpected '${describe(t)}'`);
  }

  private parsePostfix(node: Expr): Expr {
    for (;;) {
      if (this.skip("op", ".")) {
        const t = this.next();
        if (t.type === "name") node = { k: "getattr", obj: node, attr: String(t.value) };
        else if (t.type === "int") node = { k: "getitem", obj: node, arg: { k: "const", value: t.value } };
        else this.fail("expected name or number", t);
      } else if (this.skip("op", "[")) {
        const args: Expr[] = [];
        while (!this.isOp("]")) {
          if (args.length) this.expect("op", ",");
          if (this.isOp("]")) break;
          args.push(this.parseSubscribed());
        }
        this.expect("op", "]");
        const arg = args.length === 1 ? args[0] as Expr : { k: "tuple" as const, items: args };
        node = { k: "getitem", obj: node, arg };
      } else if (this.isOp("(")) {
        node = { k: "call", fn: node, call: this.parseCallArgs() };
      } else return node;
    }
  }

  private parseSubscribed(): Expr {
    let start: Expr | null = null;
    if (!this.skip("op", ":")) {
      start = this.parseExpression(true);
      if (!this.skip("op", ":")) return start;
    }
    const atEnd = () => this.isOp("]") || this.isOp(",");
    const stop = this.isOp(":") || atEnd() ? null : this.parseExpression(true);
    let step: Expr | null = null;
    if (this.skip("op", ":") && !atEnd()) step = this.parseExpression(true);
    return { k: "slice", start, stop, step };
  }

  private parseFilterExpr(node: Expr): Expr {
    for (;;) {
      if (this.skip("op", "|")) {
        const t = this.expect("name", undefined, "name");
        let name = String(t.value);
        while (this.skip("op", ".")) name += "." + String(this.expect("name").value);
        if (!FILTERS.has(name)) this.fail(`No filter named '${name}'.`, t);
        const call = this.isOp("(") ? this.parseCallArgs() : { args: [], kwargs: [] };
        node = { k: "filter", node, name, call };
      } else if (this.is("name", "is")) {
        node = this.parseTest(node);
      } else if (this.isOp("(")) {
        node = { k: "call", fn: node, call: this.parseCallArgs() };
      } else return node;
    }
  }

  private parseTest(node: Expr): Expr {
    this.next();
    const negated = this.skip("name", "not");
    const t = this.expect("name", undefined, "name");
    let name = String(t.value);
    while (this.skip("op", ".")) name += "." + String(this.expect("name").value);
    if (!TESTS.has(name)) this.fail(`No test named '${name}'.`, t);
    let call: Args = { args: [], kwargs: [] };
    const c = this.cur;
    if (this.isOp("(")) call = this.parseCallArgs();
    else if (
      (["name", "string", "int", "float"].includes(c.type) ||
        (c.type === "op" && ["[", "{"].includes(String(c.value)))) &&
      !(c.type === "name" && ["else", "or", "and"].includes(String(c.value)))
    ) {
      if (this.is("name", "is")) this.fail("You cannot chain multiple tests with is");
      call = { args: [this.parsePostfix(this.parsePrimary())], kwargs: [] };
    }
    return { k: "test", node, name, call, negated };
  }

  private parseCallArgs(): Args {
    this.expect("op", "(");
    const out: Args = { args: [], kwargs: [] };
    while (!this.isOp(")")) {
      if (out.args.length || out.kwargs.length) this.expect("op", ",");
      if (this.isOp(")")) break;
      if (this.isOp("*") || this.isOp("**")) this.fail("*args and **kwargs are not supported");
      const nextTok = this.tokens[this.i + 1];
      if (this.cur.type === "name" && nextTok?.type === "op" && nextTok.value === "=") {
        const key = String(this.next().value);
        this.next();
        out.kwargs.push([key, this.parseExpression(true)]);
      } else {
        if (out.kwargs.length) this.fail("Invalid argument syntax");
        out.args.push(this.parseExpression(true));
      }
    }
    this.expect("op", ")");
    return out;
  }
}
