/**
 * Expression evaluation with Jinja2's semantics (StrictUndefined, Python values), and assignment
 * to targets. With a scope that has no frame, it folds constants at parse time: names and calls
 * are Impossible there, as in Jinja2's optimizer.
 * @module
 */
import type { Args, CompareOp, Expr, Target } from "./_ast.ts";
import { binop, unary } from "./_arith.ts";
import { envGetattr, envGetitem, sliceOf } from "./_attrs.ts";
import { softStr } from "./_builtin.ts";
import type { Scope } from "./_context.ts";
import { dictEntries, isDict, PyDict } from "./_dict.ts";
import { fail, Impossible, RenderFailure } from "./_error.ts";
import { pyStr } from "./_format.ts";
import { markupEscape } from "./_markup.ts";
import { Namespace } from "./_objects.ts";
import { iterate, pyCompare, pyEq, pyIn, toList, truthy } from "./_ops.ts";
import { applyBuiltin, ESCAPING_ENV, FILTERS, PLAIN_ENV, TESTS } from "./_registry.ts";
import { isIndex, isStr, Markup, num, PyFunction, PyTuple, strOf, typeName, Undefined } from "./_values.ts";

/** Evaluates call arguments in Jinja2's order: positional, keyword, `*args`, `**kwargs`. */
export function evalArgs(call: Args, s: Scope): [unknown[], Map<string, unknown>] {
  const args = call.args.map((a) => evaluate(a, s));
  const kwargs = new Map<string, unknown>();
  for (const [k, e] of call.kwargs) kwargs.set(k, evaluate(e, s));
  if (call.dynArgs) args.push(...toList(evaluate(call.dynArgs, s)));
  if (call.dynKwargs) {
    const d = evaluate(call.dynKwargs, s);
    if (!isDict(d)) fail("TypeError", `argument after ** must be a mapping, not ${typeName(d)}`);
    for (const [k, v] of dictEntries(d)) {
      if (!isStr(k)) fail("TypeError", "keywords must be strings");
      if (kwargs.has(strOf(k))) fail("TypeError", `got multiple values for keyword argument '${strOf(k)}'`);
      kwargs.set(strOf(k), v);
    }
  }
  return [args, kwargs];
}

function sliceIndex(v: unknown): number | null {
  if (v === null) return null;
  if (isIndex(v)) return num(v);
  return fail("TypeError", "slice indices must be integers or None or have an __index__ method");
}

function getItem(e: Extract<Expr, { k: "getitem" }>, s: Scope): unknown {
  const obj = evaluate(e.obj, s);
  const a = e.arg;
  if (a.k !== "slice") return envGetitem(obj, evaluate(a, s));
  const bound = (x: Expr | null) => (x ? evaluate(x, s) : null);
  const start = bound(a.start), stop = bound(a.stop), step = bound(a.step);
  if (obj instanceof Undefined) return obj.raise();
  const st = sliceIndex(step) ?? 1;
  const [lo, hi] = [sliceIndex(start), sliceIndex(stop)];
  if (st === 0) fail("ValueError", "slice step cannot be zero");
  return sliceOf(obj, lo, hi, st);
}

function call(e: Extract<Expr, { k: "call" }>, s: Scope): unknown {
  const fn = evaluate(e.fn, s);
  const [args, kwargs] = evalArgs(e.call, s);
  if (!s.frame) throw new Impossible();
  if (fn instanceof Undefined) return fn.raise();
  if (!(fn instanceof PyFunction)) return fail("TypeError", `'${typeName(fn)}' object is not callable`);
  return fn.call(args, kwargs, s);
}

const NO_ARGS: unknown[] = [];
const NO_KWARGS: Map<string, unknown> = new Map();

function hasArgs(a: Args): boolean {
  return a.args.length > 0 || a.kwargs.length > 0 || a.dynArgs !== null || a.dynKwargs !== null;
}

function applyNamed(e: Extract<Expr, { k: "filter" | "test" }>, value: unknown, s: Scope): unknown {
  const [args, kwargs] = hasArgs(e.call) ? evalArgs(e.call, s) : [NO_ARGS, NO_KWARGS];
  const b = (e.k === "filter" ? FILTERS : TESTS).get(e.name);
  if (!b) {
    if (!s.frame) throw new Impossible();
    return fail("TemplateRuntimeError", `No ${e.k} named '${e.name}' found.`);
  }
  if (!s.frame && (b.context || s.volatile)) throw new Impossible();
  return applyBuiltin(b, s.autoescape ? ESCAPING_ENV : PLAIN_ENV, value, args, kwargs);
}

function concat(items: Expr[], s: Scope): unknown {
  const parts = items.map((x) => evaluate(x, s));
  // Folded at parse time, Jinja2 joins with str() even where it autoescapes.
  if (!s.autoescape || !s.frame) return parts.map(pyStr).join("");
  const strs = parts.map(softStr);
  if (!strs.some((x) => x instanceof Markup)) return strs.join("");
  return new Markup(strs.map(markupEscape).join(""));
}

function compare(op: CompareOp, a: unknown, b: unknown): boolean {
  switch (op) {
    case "==":
      return pyEq(a, b);
    case "!=":
      return !pyEq(a, b);
    case "in":
      return pyIn(a, b);
    case "notin":
      return !pyIn(a, b);
    default:
      return pyCompare(op, a, b);
  }
}

function compareChain(e: Extract<Expr, { k: "compare" }>, s: Scope): boolean {
  let left = evaluate(e.first, s);
  for (const { op, expr } of e.ops) {
    const right = evaluate(expr, s);
    if (!compare(op, left, right)) return false;
    left = right;
  }
  return true;
}

function condExpr(e: Extract<Expr, { k: "cond" }>, s: Scope): unknown {
  if (truthy(evaluate(e.test, s))) return evaluate(e.then, s);
  if (e.else) return evaluate(e.else, s);
  if (!s.frame) throw new Impossible();
  return new Undefined(
    `the inline if-expression on line ${e.line} evaluated to false and no else section was defined.`,
    false,
  );
}

/** Evaluates an expression. Throws RenderFailure (and Impossible while folding). */
export function evaluate(e: Expr, s: Scope): unknown {
  switch (e.k) {
    case "const":
      if (e.bad !== undefined && s.frame) fail("NameError", `name '${e.bad}' is not defined`);
      return e.fresh ? copyValue(e.value) : e.value;
    case "name":
      return s.lookup(e.name);
    case "getattr":
      return envGetattr(evaluate(e.obj, s), e.attr);
    case "getitem":
      return getItem(e, s);
    case "call":
      return call(e, s);
    case "filter":
      if (!e.node) throw new Impossible();
      return applyNamed(e, evaluate(e.node, s), s);
    case "test":
      return applyNamed(e, evaluate(e.node, s), s);
    case "binop":
      return binop(e.op, evaluate(e.left, s), evaluate(e.right, s));
    case "concat":
      return concat(e.items, s);
    case "and": {
      const left = evaluate(e.left, s);
      return truthy(left) ? evaluate(e.right, s) : left;
    }
    case "or": {
      const left = evaluate(e.left, s);
      return truthy(left) ? left : evaluate(e.right, s);
    }
    case "not":
      return !truthy(evaluate(e.node, s));
    case "neg":
    case "pos":
      return unary(e.k === "neg" ? "-" : "+", evaluate(e.node, s));
    case "compare":
      return compareChain(e, s);
    case "cond":
      return condExpr(e, s);
    case "list":
      return e.items.map((x) => evaluate(x, s));
    case "tuple":
      return new PyTuple(e.items.map((x) => evaluate(x, s)));
    case "dict":
      return PyDict.from(e.pairs.map(([k, v]) => [evaluate(k, s), evaluate(v, s)]));
    case "slice":
      return fail("TypeError", "a slice outside of a subscript");
  }
}

/** A copy of a folded constant's containers, so a render cannot change what the next one sees. */
function copyValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(copyValue);
  if (v instanceof PyTuple) return new PyTuple(v.items.map(copyValue), v.names);
  if (v instanceof PyDict) return PyDict.from(v.entries().map(([k, x]) => [k, copyValue(x)]));
  return v;
}

/** Evaluates a filter whose subject is a body's text (`{% filter %}`, `{% set x | f %}`). */
export function applyFilterChain(e: Expr, subject: unknown, s: Scope): unknown {
  if (e.k !== "filter") return evaluate(e, s);
  const value = e.node ? applyFilterChain(e.node, subject, s) : subject;
  return applyNamed(e, value, s);
}

function unpack(value: unknown, n: number): unknown[] {
  if (value instanceof Undefined && value.strict) value.raise();
  let it: Iterator<unknown>;
  try {
    it = iterate(value);
  } catch (e) {
    if (e instanceof RenderFailure && e.kind === "TypeError") {
      fail("TypeError", `cannot unpack non-iterable ${typeName(value)} object`);
    }
    throw e;
  }
  const items: unknown[] = [];
  for (let r = it.next(); !r.done; r = it.next()) {
    items.push(r.value);
    if (items.length > n) fail("ValueError", `too many values to unpack (expected ${n})`);
  }
  if (items.length < n) {
    fail("ValueError", `not enough values to unpack (expected ${n}, got ${items.length})`);
  }
  return items;
}

/** Assigns a value to a target in a scope. */
export function assign(target: Target, value: unknown, s: Scope): void {
  if (target.k === "name") {
    s.vars.set(target.name, value);
  } else if (target.k === "nsref") {
    const ns = s.lookup(target.name);
    if (!(ns instanceof Namespace)) {
      fail("TemplateRuntimeError", "cannot assign attribute on non-namespace object");
    }
    ns.attrs.set(target.attr, value);
  } else {
    const items = unpack(value, target.items.length);
    target.items.forEach((t, i) => assign(t, items[i], s));
  }
}
