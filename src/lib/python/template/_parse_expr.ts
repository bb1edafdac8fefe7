/**
 * The expression half of the template parser: Jinja2's expression grammar with its operator
 * precedence (or < and < not < compare < +,- < ~ < *,/,//,% < ** (left-assoc) < unary <
 * postfix/filter/test). `_parser.ts` adds the statements.
 * @module
 */
import type { Args, CompareOp, Expr, Target } from "./_ast.ts";
import { describe, TokenCursor } from "./_cursor.ts";
import { float } from "./_values.ts";

const SYMBOL_OPS: ReadonlySet<string> = new Set<CompareOp>(["==", "!=", "<", "<=", ">", ">="]);
const isSymbolOp = (v: string): v is CompareOp => SYMBOL_OPS.has(v);
const CONSTANTS: Record<string, unknown> = {
  true: true,
  false: false,
  none: null,
  True: true,
  False: false,
  None: null,
};
const TEST_ARG_START = new Set(["name", "string", "int", "float"]);

const NODE_NAMES: Record<string, string> = { const: "const", getattr: "getattr", getitem: "getitem" };

/** The expression grammar; the statement parser extends it. */
export class ExprParser extends TokenCursor {
  protected toTarget(e: Expr, line: number): Target {
    if (e.k === "name") {
      if (e.name in CONSTANTS) this.fail("can't assign to 'name'", line);
      return { k: "name", name: e.name };
    }
    if (e.k === "tuple") return { k: "tuple", items: e.items.map((x) => this.toTarget(x, line)) };
    return this.fail(`can't assign to '${NODE_NAMES[e.k] ?? e.k}'`, line);
  }

  /** Jinja2's `parse_assign_target`: a name, a tuple of targets, or `ns.attr` when allowed. */
  protected parseTarget(withNamespace: boolean, extraEnds: string[] = []): Target {
    const line = this.cur.line;
    const items: Target[] = [];
    let isTuple = false;
    for (;;) {
      if (items.length) this.expect("op", ",", ",");
      if (this.isTupleEnd(extraEnds)) break;
      items.push(this.parseTargetItem(withNamespace, line));
      if (this.isOp(",")) isTuple = true;
      else break;
    }
    const [first] = items;
    if (!isTuple) {
      if (first) return first;
      this.fail(`Expected an expression, got '${describe(this.cur)}'`);
    }
    return { k: "tuple", items };
  }

  private parseTargetItem(withNamespace: boolean, line: number): Target {
    const t = this.cur;
    if (withNamespace && t.type === "name" && !(String(t.value) in CONSTANTS) && this.peek().value === ".") {
      this.next();
      this.next();
      return { k: "nsref", name: String(t.value), attr: this.expectName() };
    }
    return this.toTarget(this.parsePrimary(), line);
  }

  protected isTupleEnd(extraEnds: string[]): boolean {
    const t = this.cur;
    if (t.type === "var_end" || t.type === "block_end" || (t.type === "op" && t.value === ")")) return true;
    return t.type === "name" && extraEnds.includes(String(t.value));
  }

  protected parseTuple(withCond: boolean, extraEnds: string[] = [], explicitParens = false): Expr {
    const items: Expr[] = [];
    let isTuple = false;
    for (;;) {
      if (items.length) this.expect("op", ",", ",");
      if (this.isTupleEnd(extraEnds)) break;
      items.push(this.parseExpression(withCond));
      if (this.isOp(",")) isTuple = true;
      else break;
    }
    const [first] = items;
    if (!isTuple) {
      if (first) return first;
      if (!explicitParens) this.fail(`Expected an expression, got '${describe(this.cur)}'`);
    }
    return { k: "tuple", items };
  }

  protected parseExpression(withCond = true): Expr {
    return withCond ? this.parseCondExpr() : this.parseOr();
  }

  protected parseCondExpr(): Expr {
    let line = this.cur.line;
    let expr = this.parseOr();
    while (this.skip("name", "if")) {
      const test = this.parseOr();
      const elseExpr = this.skip("name", "else") ? this.parseCondExpr() : null;
      expr = { k: "cond", test, then: expr, else: elseExpr, line };
      line = this.cur.line;
    }
    return expr;
  }

  protected parseOr(): Expr {
    let left = this.parseAnd();
    while (this.skip("name", "or")) left = { k: "or", left, right: this.parseAnd() };
    return left;
  }

  protected parseAnd(): Expr {
    let left = this.parseNot();
    while (this.skip("name", "and")) left = { k: "and", left, right: this.parseNot() };
    return left;
  }

  protected parseNot(): Expr {
    if (this.skip("name", "not")) return { k: "not", node: this.parseNot() };
    return this.parseCompare();
  }

  protected parseCompare(): Expr {
    const first = this.parseMath1();
    const ops: { op: CompareOp; expr: Expr }[] = [];
    for (;;) {
      const t = this.cur;
      const op = String(t.value);
      if (t.type === "op" && isSymbolOp(op)) {
        this.next();
        ops.push({ op, expr: this.parseMath1() });
      } else if (this.skip("name", "in")) {
        ops.push({ op: "in", expr: this.parseMath1() });
      } else if (this.is("name", "not") && this.peek().type === "name" && this.peek().value === "in") {
        this.next();
        this.next();
        ops.push({ op: "notin", expr: this.parseMath1() });
      } else break;
    }
    return ops.length ? { k: "compare", first, ops } : first;
  }

  protected parseMath1(): Expr {
    let left = this.parseConcat();
    while (this.isOp("+") || this.isOp("-")) {
      const op = String(this.next().value);
      left = { k: "binop", op, left, right: this.parseConcat() };
    }
    return left;
  }

  protected parseConcat(): Expr {
    const first = this.parseMath2();
    if (!this.skip("op", "~")) return first;
    const items = [first, this.parseMath2()];
    while (this.skip("op", "~")) items.push(this.parseMath2());
    return { k: "concat", items };
  }

  protected parseMath2(): Expr {
    let left = this.parsePow();
    while (this.isOp("*") || this.isOp("/") || this.isOp("//") || this.isOp("%")) {
      const op = String(this.next().value);
      left = { k: "binop", op, left, right: this.parsePow() };
    }
    return left;
  }

  protected parsePow(): Expr {
    let left = this.parseUnary(true);
    while (this.skip("op", "**")) left = { k: "binop", op: "**", left, right: this.parseUnary(true) };
    return left;
  }

  protected parseUnary(withFilter: boolean): Expr {
    let node: Expr;
    if (this.skip("op", "-")) node = { k: "neg", node: this.parseUnary(false) };
    else if (this.skip("op", "+")) node = { k: "pos", node: this.parseUnary(false) };
    else node = this.parsePrimary();
    node = this.parsePostfix(node);
    return withFilter ? this.parseFilterExpr(node) : node;
  }

  protected parsePrimary(): Expr {
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
      this.expect("op", ")", ")");
      return expr;
    }
    if (this.isOp("[")) return { k: "list", items: this.parseItems("[", "]", () => this.parseExpression()) };
    if (this.isOp("{")) return { k: "dict", pairs: this.parseItems("{", "}", () => this.parsePair()) };
    return this.fail(`unexpected '${describe(t)}'`, t.line);
  }

  private parsePair(): [Expr, Expr] {
    const key = this.parseExpression();
    this.expect("op", ":", ":");
    return [key, this.parseExpression()];
  }

  private parseItems<T>(open: string, close: string, item: () => T): T[] {
    this.expect("op", open, open);
    const items: T[] = [];
    while (!this.isOp(close)) {
      if (items.length) this.expect("op", ",", ",");
      if (this.isOp(close)) break;
      items.push(item());
    }
    this.expect("op", close, close);
    return items;
  }

  protected parsePostfix(node: Expr): Expr {
    for (;;) {
      if (this.isOp(".") || this.isOp("[")) node = this.parseSubscript(node);
      else if (this.isOp("(")) node = { k: "call", fn: node, call: this.parseCallArgs() };
      else return node;
    }
  }

  private parseSubscript(node: Expr): Expr {
    const tok = this.next();
    if (tok.value === ".") {
      const t = this.next();
      if (t.type === "name") return { k: "getattr", obj: node, attr: String(t.value) };
      if (t.type !== "int") this.fail("expected name or number", t.line);
      return { k: "getitem", obj: node, arg: { k: "const", value: t.value } };
    }
    const args: Expr[] = [];
    while (!this.isOp("]")) {
      if (args.length) this.expect("op", ",", ",");
      args.push(this.parseSubscribed());
    }
    this.expect("op", "]", "]");
    return {
      k: "getitem",
      obj: node,
      arg: args.length === 1 && args[0] ? args[0] : { k: "tuple", items: args },
    };
  }

  private parseSubscribed(): Expr {
    let start: Expr | null = null;
    if (!this.skip("op", ":")) {
      start = this.parseExpression();
      if (!this.skip("op", ":")) return start;
    }
    const atEnd = () => this.isOp("]") || this.isOp(",");
    const stop = this.isOp(":") || atEnd() ? null : this.parseExpression();
    let step: Expr | null = null;
    if (this.skip("op", ":") && !atEnd()) step = this.parseExpression();
    return { k: "slice", start, stop, step };
  }

  protected parseFilterExpr(node: Expr): Expr {
    for (;;) {
      if (this.isOp("|")) node = this.parseFilter(node, false);
      else if (this.is("name", "is")) node = this.parseTest(node);
      else if (this.isOp("(")) node = { k: "call", fn: node, call: this.parseCallArgs() };
      else return node;
    }
  }

  private dottedName(): [string, number] {
    const t = this.expect("name", undefined, "name");
    let name = String(t.value);
    while (this.skip("op", ".")) name += "." + this.expectName();
    return [name, t.line];
  }

  /** `| name(args) | ...`; with `startInline` the first `|` is absent (filter blocks). */
  protected parseFilter(node: Expr | null, startInline: boolean): Expr {
    let out: Expr | null = node;
    while (this.isOp("|") || startInline) {
      if (!startInline) this.next();
      const [name, line] = this.dottedName();
      const call = this.isOp("(") ? this.parseCallArgs() : noArgs();
      out = { k: "filter", node: out, name, call, line };
      startInline = false;
    }
    return out ?? this.fail("expected a filter");
  }

  protected parseTest(node: Expr): Expr {
    const line = this.next().line;
    const negated = this.skip("name", "not");
    const [name] = this.dottedName();
    let call = noArgs();
    const c = this.cur;
    if (this.isOp("(")) call = this.parseCallArgs();
    else if (
      (TEST_ARG_START.has(c.type) || (c.type === "op" && ["(", "[", "{"].includes(String(c.value)))) &&
      !(c.type === "name" && ["else", "or", "and"].includes(String(c.value)))
    ) {
      if (this.is("name", "is")) this.fail("You cannot chain multiple tests with is");
      call = { ...noArgs(), args: [this.parsePostfix(this.parsePrimary())] };
    }
    const test: Expr = { k: "test", node, name, call, line };
    return negated ? { k: "not", node: test } : test;
  }

  protected parseCallArgs(): Args {
    const line = this.expect("op", "(", "(").line;
    const out = noArgs();
    const ensure = (ok: boolean) => {
      if (!ok) this.fail("invalid syntax for function call expression", line);
    };
    let requireComma = false;
    while (!this.isOp(")")) {
      if (requireComma) {
        this.expect("op", ",", ",");
        if (this.isOp(")")) break;
      }
      if (this.skip("op", "*")) {
        ensure(out.dynArgs === null && out.dynKwargs === null);
        out.dynArgs = this.parseExpression();
      } else if (this.skip("op", "**")) {
        ensure(out.dynKwargs === null);
        out.dynKwargs = this.parseExpression();
      } else if (this.cur.type === "name" && this.peek().type === "op" && this.peek().value === "=") {
        ensure(out.dynKwargs === null);
        const key = String(this.next().value);
        this.next();
        out.kwargs.push([key, this.parseExpression()]);
      } else {
        ensure(out.dynArgs === null && out.dynKwargs === null && out.kwargs.length === 0);
        out.args.push(this.parseExpression());
      }
      requireComma = true;
    }
    this.expect("op", ")", ")");
    return out;
  }
}

/** Empty call arguments. */
export function noArgs(): Args {
  return { args: [], kwargs: [], dynArgs: null, dynKwargs: null };
}

export { describe };
