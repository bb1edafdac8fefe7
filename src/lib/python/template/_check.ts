/**
 * What Jinja2's compiler does after parsing: the TemplateAssertionErrors (unknown filter or test
 * outside an `if`, a block defined twice, `extends` below the top level, assigning to `loop`, a
 * `caller` parameter without default) and constant folding, where it shows: a whole `{{ }}`
 * that is constant is printed at compile time, and a constant float that is `inf` or `nan`
 * compiled into the code fails with `NameError: name 'inf' is not defined` when it runs.
 * @module
 */
import type { Expr, Node, Signature, Target, Template } from "./_ast.ts";
import { Scope } from "./_context.ts";
import { dictEntries, isDict } from "./_dict.ts";
import { Impossible, RenderFailure, SyntaxFailure } from "./_error.ts";
import { evaluate } from "./_eval.ts";
import { pyStr } from "./_format.ts";
import { markupEscape } from "./_markup.ts";
import { PyRange } from "./_objects.ts";
import { truthy } from "./_ops.ts";
import { childBodies } from "./_parser.ts";
import { FILTERS, TESTS } from "./_registry.ts";
import { subExprs } from "./_walk.ts";
import { isFloat, Markup, num, PyTuple } from "./_values.ts";
import { PyComplex } from "./_arith.ts";

/**
 * The compile-time state of a frame: inside an `if`, at the top level, autoescaping, and whether
 * an `{% autoescape %}` value is known only at run time (then filters and tests are not folded).
 */
interface FrameInfo {
  soft: boolean;
  toplevel: boolean;
  autoescape: boolean;
  volatile: boolean;
}

const FOLD = [
  new Scope(null, null, false),
  new Scope(null, null, true),
  new Scope(null, null, false, true),
  new Scope(null, null, true, true),
] as const;

function tryConst(e: Expr, f: FrameInfo): { value: unknown } | null {
  try {
    const scope = f.volatile ? (f.autoescape ? FOLD[3] : FOLD[2]) : f.autoescape ? FOLD[1] : FOLD[0];
    return { value: evaluate(e, scope) };
  } catch (err) {
    if (err instanceof Impossible || err instanceof RenderFailure || err instanceof RangeError) return null;
    throw err;
  }
}

/** Jinja2's `has_safe_repr`: values the compiler can write into generated code. */
function safeRepr(v: unknown): boolean {
  if (v === null || typeof v === "boolean" || typeof v === "number" || typeof v === "string") return true;
  if (isFloat(v) || v instanceof Markup || v instanceof PyRange || v instanceof PyComplex) return true;
  if (Array.isArray(v) || (v instanceof PyTuple && !v.names)) {
    return (Array.isArray(v) ? v : v.items).every(safeRepr);
  }
  if (isDict(v)) return dictEntries(v).every(([k, x]) => safeRepr(k) && safeRepr(x));
  return false;
}

/** The name Python fails on first when `repr(v)` is compiled: `inf` or `nan`, if any. */
function nonFinite(v: unknown): string | undefined {
  if (isFloat(v)) {
    const n = num(v);
    return Number.isNaN(n) ? "nan" : Number.isFinite(n) ? undefined : "inf";
  }
  const items = Array.isArray(v)
    ? v
    : v instanceof PyTuple
    ? v.items
    : isDict(v)
    ? dictEntries(v).flat()
    : [];
  for (const x of items) {
    const bad = nonFinite(x);
    if (bad) return bad;
  }
  return undefined;
}

function hasBadLiteral(e: Expr): boolean {
  if (e.k === "const") return nonFinite(e.value) !== undefined;
  return subExprs(e).some(hasBadLiteral);
}

function fail(msg: string, line: number): never {
  throw new SyntaxFailure(msg, line, "TemplateAssertionError");
}

function storesLoop(t: Target): boolean {
  return t.k === "name" ? t.name === "loop" : t.k === "tuple" && t.items.some(storesLoop);
}

function assignsLoop(nodes: Node[]): boolean {
  return nodes.some((n) => {
    if ((n.k === "for" || n.k === "set" || n.k === "setblock") && storesLoop(n.target)) return true;
    if (n.k === "with" && n.targets.some(storesLoop)) return true;
    return childBodies(n).some(assignsLoop);
  });
}

function allBlocks(
  nodes: Node[],
  out: Extract<Node, { k: "block" }>[] = [],
): Extract<Node, { k: "block" }>[] {
  for (const n of nodes) {
    if (n.k === "block") out.push(n);
    for (const b of childBodies(n)) allBlocks(b, out);
  }
  return out;
}

class Checker {
  expr(e: Expr, f: FrameInfo): Expr {
    const c = tryConst(e, f);
    if (c && safeRepr(c.value)) {
      const bad = nonFinite(c.value);
      if (bad === undefined && !hasBadLiteral(e)) return e;
      return bad === undefined
        ? { k: "const", value: c.value, fresh: true }
        : { k: "const", value: c.value, bad };
    }
    if (e.k === "filter" || e.k === "test") {
      if (!(e.k === "filter" ? FILTERS : TESTS).has(e.name)) {
        if (!f.soft) fail(`No ${e.k} named '${e.name}'.`, e.line);
        e.unknown = true;
      }
    }
    const inner = e.k === "cond" ? { ...f, soft: true } : f;
    return this.children(e, inner);
  }

  children(e: Expr, f: FrameInfo): Expr {
    const x = (c: Expr) => this.expr(c, f);
    const xs = (cs: Expr[]) => cs.map(x);
    const args = (a: Extract<Expr, { k: "call" }>["call"]) => ({
      args: xs(a.args),
      kwargs: a.kwargs.map(([k, v]): [string, Expr] => [k, x(v)]),
      dynArgs: a.dynArgs && x(a.dynArgs),
      dynKwargs: a.dynKwargs && x(a.dynKwargs),
    });
    switch (e.k) {
      case "getattr":
        return { ...e, obj: x(e.obj) };
      case "getitem":
        return { ...e, obj: x(e.obj), arg: x(e.arg) };
      case "slice":
        return { ...e, start: e.start && x(e.start), stop: e.stop && x(e.stop), step: e.step && x(e.step) };
      case "call":
        return { ...e, fn: x(e.fn), call: args(e.call) };
      case "filter":
        return { ...e, node: e.node && x(e.node), call: args(e.call) };
      case "test":
        return { ...e, node: x(e.node), call: args(e.call) };
      case "binop":
      case "and":
      case "or":
        return { ...e, left: x(e.left), right: x(e.right) };
      case "concat":
      case "list":
      case "tuple":
        return { ...e, items: xs(e.items) };
      case "not":
      case "neg":
      case "pos":
        return { ...e, node: x(e.node) };
      case "compare":
        return { ...e, first: x(e.first), ops: e.ops.map((o) => ({ op: o.op, expr: x(o.expr) })) };
      case "cond":
        return { ...e, test: x(e.test), then: x(e.then), else: e.else && x(e.else) };
      case "dict":
        return { ...e, pairs: e.pairs.map(([k, v]): [Expr, Expr] => [x(k), x(v)]) };
      default:
        return e;
    }
  }

  output(e: Expr, f: FrameInfo): Node {
    const c = tryConst(e, f);
    if (c) {
      try {
        return { k: "data", text: f.autoescape ? markupEscape(c.value) : pyStr(c.value) };
      } catch (err) {
        if (!(err instanceof RenderFailure)) throw err;
      }
    }
    return { k: "output", expr: this.expr(e, f) };
  }

  signature(sig: Signature, line: number, f: FrameInfo): void {
    const at = sig.params.indexOf("caller");
    if (sig.caller && at >= 0 && at < sig.params.length - sig.defaults.length) {
      fail(
        'When defining macros or call blocks the special "caller" argument must be omitted or be given a default.',
        line,
      );
    }
    sig.defaults = sig.defaults.map((d) => this.expr(d, f));
  }

  body(nodes: Node[], f: FrameInfo): void {
    nodes.forEach((n, i) => (nodes[i] = this.node(n, f)));
  }

  node(n: Node, f: FrameInfo): Node {
    const inner: FrameInfo = { ...f, soft: false, toplevel: false };
    switch (n.k) {
      case "output":
        return this.output(n.expr, f);
      case "if": {
        const soft = { ...f, soft: true };
        for (const b of n.branches) {
          b.test = this.expr(b.test, soft);
          this.body(b.body, soft);
        }
        this.body(n.else, soft);
        return n;
      }
      case "for":
        if (n.filter) n.filter = this.expr(n.filter, inner);
        if (storesLoop(n.target) || assignsLoop([...n.body, ...n.else])) {
          fail("Can't assign to special loop variable in for-loop target", n.line);
        }
        n.iter = this.expr(n.iter, f);
        this.body(n.body, inner);
        this.body(n.else, inner);
        return n;
      default:
        return this.statement(n, f, inner);
    }
  }

  statement(n: Node, f: FrameInfo, inner: FrameInfo): Node {
    switch (n.k) {
      case "set":
        n.expr = this.expr(n.expr, f);
        break;
      case "setblock":
        this.body(n.body, inner);
        if (n.filter) n.filter = this.expr(n.filter, inner);
        break;
      case "macro":
        this.signature(n.sig, n.line, inner);
        this.body(n.body, inner);
        break;
      case "callblock":
        this.signature(n.sig, n.line, inner);
        this.body(n.body, inner);
        {
          // A call stays a call (folding never makes one a constant it could not evaluate).
          const call = this.expr(n.call, f);
          if (call.k === "call") n.call = call;
        }
        break;
      case "filterblock":
        this.body(n.body, inner);
        n.filter = this.expr(n.filter, inner);
        break;
      case "with":
        n.values = n.values.map((v) => this.expr(v, f));
        this.body(n.body, inner);
        break;
      case "scope": {
        n.autoescape = this.expr(n.autoescape, inner);
        const c = tryConst(n.autoescape, inner);
        this.body(n.body, c ? { ...inner, autoescape: truthy(c.value) } : { ...inner, volatile: true });
        break;
      }
      case "extends":
        if (!f.toplevel) fail("cannot use extend from a non top-level scope", n.line);
        n.template = this.expr(n.template, f);
        break;
      case "include":
      case "import":
        n.template = this.expr(n.template, f);
        break;
    }
    return n;
  }
}

/**
 * What Python itself rejects in the code Jinja2 generates: a keyword argument given twice, a
 * macro parameter named twice (Python names the generated parameter, `l_<depth>_<name>`).
 */
function pythonSyntax(nodes: Node[], depth: number): void {
  const exprs = (e: Expr): void => {
    if (e.k === "call" || e.k === "filter" || e.k === "test") {
      const seen = new Set<string>();
      for (const [k] of e.call.kwargs) {
        if (seen.has(k)) throw new SyntaxFailure(`keyword argument repeated: ${k}`, 1, "SyntaxError");
        seen.add(k);
      }
    }
    subExprs(e).forEach(exprs);
  };
  for (const n of nodes) {
    if (n.k === "macro" || n.k === "callblock") {
      const dup = n.sig.params.find((p, i) => n.sig.params.indexOf(p) !== i);
      if (dup !== undefined) {
        throw new SyntaxFailure(
          `duplicate argument 'l_${depth + 1}_${dup}' in function definition`,
          n.line,
          "SyntaxError",
        );
      }
    }
    for (const e of statementExprs(n)) exprs(e);
    for (const b of childBodies(n)) pythonSyntax(b, depth + 1);
  }
}

function statementExprs(n: Node): Expr[] {
  switch (n.k) {
    case "output":
    case "set":
      return [n.expr];
    case "if":
      return n.branches.map((b) => b.test);
    case "for":
      return [n.iter, ...(n.filter ? [n.filter] : [])];
    case "setblock":
      return n.filter ? [n.filter] : [];
    case "macro":
      return n.sig.defaults;
    case "callblock":
      return [n.call, ...n.sig.defaults];
    case "filterblock":
      return [n.filter];
    case "with":
      return n.values;
    case "scope":
      return [n.autoescape];
    case "include":
    case "import":
    case "extends":
      return [n.template];
    default:
      return [];
  }
}

/** Runs Jinja2's compile-time checks and folding over a parsed template. Throws SyntaxFailure. */
export function compileTemplate(t: Template): void {
  const blocks = allBlocks(t.body);
  const seen = new Set<string>();
  for (const b of blocks) {
    if (seen.has(b.name)) fail(`block '${b.name}' defined twice`, b.line);
    seen.add(b.name);
  }
  const checker = new Checker();
  checker.body(t.body, { soft: false, toplevel: true, autoescape: false, volatile: false });
  for (const b of blocks) {
    checker.body(b.body, { soft: false, toplevel: false, autoescape: false, volatile: false });
  }
  pythonSyntax(t.body, 0);
}
