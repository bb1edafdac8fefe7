/**
 * Statement execution with Jinja2's scoping: the template's top level, a new frame for each loop
 * iteration, macro call, `with`, `filter`, set block and block; `if` opens none.
 * @module
 */
import type { Expr, Node, Template } from "./_ast.ts";
import { type Frame, renderFrame, Scope, topScope } from "./_context.ts";
import { fail } from "./_error.ts";
import { applyFilterChain, assign, evalArgs, evaluate } from "./_eval.ts";
import { pyStr } from "./_format.ts";
import { LoopContext } from "./_loop.ts";
import { Macro } from "./_macro.ts";
import { markupEscape } from "./_markup.ts";
import { iterate, truthy } from "./_ops.ts";
import { type CallSite, isStr, Markup, PyFunction, PyObject, strOf, typeName, Undefined } from "./_values.ts";

/** Macro calls nested deeper than this fail as Python's recursion limit does (about 250 in Jinja2). */
const MAX_DEPTH = 240;

/** Renders a parsed template. */
export function renderTree(template: Template, vars: Record<string, unknown>): string {
  const frame: Frame = {
    root: vars,
    template,
    top: null,
    depth: 0,
    self: () => new TemplateReference(frame),
  };
  const top = new Scope(null, frame, false);
  frame.top = top;
  const out: string[] = [];
  execBody(template.body, top, out);
  return out.join("");
}

function print(v: unknown, s: Scope): string {
  return s.autoescape ? markupEscape(v) : pyStr(v);
}

function text(body: Node[], s: Scope): string {
  const out: string[] = [];
  execBody(body, s, out);
  return out.join("");
}

function bodyValue(body: Node[], s: Scope): string | Markup {
  const t = text(body, s);
  return s.autoescape ? new Markup(t) : t;
}

/** A yielded value must be a str, as Jinja2's `concat` requires. */
function yielded(v: unknown, out: string[]): string {
  if (isStr(v)) return strOf(v);
  return fail("TypeError", `sequence item ${out.length}: expected str instance, ${typeName(v)} found`);
}

/** Executes statements, appending output to `out`. */
export function execBody(nodes: Node[], s: Scope, out: string[]): void {
  for (const node of nodes) {
    switch (node.k) {
      case "data":
        out.push(node.text);
        break;
      case "output":
        out.push(print(evaluate(node.expr, s), s));
        break;
      case "if": {
        const branch = node.branches.find((b) => truthy(evaluate(b.test, s)));
        execBody(branch ? branch.body : node.else, s, out);
        break;
      }
      case "for":
        execFor(node, s, out);
        break;
      default:
        execOther(node, s, out);
    }
  }
}

function execOther(node: Node, s: Scope, out: string[]): void {
  switch (node.k) {
    case "set":
      return assign(node.target, evaluate(node.expr, s), s);
    case "setblock": {
      const inner = s.child();
      const v = bodyValue(node.body, inner);
      return assign(node.target, node.filter ? applyFilterChain(node.filter, v, inner) : v, s);
    }
    case "macro":
      s.vars.set(node.name, makeMacro(node.name, node.sig, node.body, s));
      return;
    case "callblock":
      return void out.push(yielded(callWithCaller(node, s), out));
    case "filterblock": {
      const inner = s.child();
      return void out.push(yielded(applyFilterChain(node.filter, bodyValue(node.body, inner), inner), out));
    }
    case "with": {
      const inner = s.child();
      const values = node.values.map((v) => evaluate(v, s));
      node.targets.forEach((t, i) => assign(t, values[i], inner));
      return execBody(node.body, inner, out);
    }
    case "scope":
      return execBody(node.body, s.child(truthy(evaluate(node.autoescape, s))), out);
    case "block":
      return void out.push(renderBlock(node, node.scoped ? s : null, s));
    case "include":
      return include(evaluate(node.template, s));
    case "import":
    case "extends":
      evaluate(node.template, s);
      return fail("TypeError", "no loader for this environment specified");
  }
}

function include(t: unknown): void {
  if (!(t instanceof Undefined) && !isStr(t)) {
    if (!truthy(t)) fail("TemplatesNotFound", "Tried to select from an empty list of templates.");
    if (iterate(t).next().done) fail("TemplatesNotFound", "none of the templates given were found: ");
  }
  fail("TypeError", "no loader for this environment specified");
}

function execFor(node: Extract<Node, { k: "for" }>, s: Scope, out: string[]): void {
  const run = (iterable: unknown, depth0: number, into: string[]) => {
    let it = iterate(iterable);
    if (node.filter) it = filtered(it, node, node.filter, s);
    const loop = node.usesLoop || node.recursive
      ? new LoopContext(it, node.filter ? null : iterable, node.recursive ? recurse : null, depth0)
      : null;
    let any = false;
    for (;;) {
      const r = loop ? loop.advance() : it.next();
      if (r.done) break;
      any = true;
      const inner = s.child();
      assign(node.target, r.value, inner);
      if (loop) inner.vars.set("loop", loop);
      execBody(node.body, inner, into);
    }
    if (!any) execBody(node.else, s.child(), into);
  };
  const recurse = (iterable: unknown, depth0: number): unknown => {
    const buf: string[] = [];
    run(iterable, depth0, buf);
    return s.autoescape ? new Markup(buf.join("")) : buf.join("");
  };
  run(evaluate(node.iter, s), 0, out);
}

function* filtered(
  it: Iterator<unknown>,
  node: Extract<Node, { k: "for" }>,
  test: Expr,
  s: Scope,
): Generator<unknown> {
  for (let r = it.next(); !r.done; r = it.next()) {
    const inner = s.child();
    assign(node.target, r.value, inner);
    if (truthy(evaluate(test, inner))) yield r.value;
  }
}

function makeMacro(
  name: string | null,
  sig: Extract<Node, { k: "macro" }>["sig"],
  body: Node[],
  s: Scope,
): Macro {
  const frame = renderFrame(s);
  return new Macro(
    { name, params: sig.params, caller: sig.caller, kwargs: sig.kwargs, varargs: sig.varargs },
    (bound) => {
      const inner = s.child();
      const firstDefault = sig.params.length - sig.defaults.length;
      sig.params.forEach((p, i) => {
        const fallback = i >= firstDefault ? sig.defaults[i - firstDefault] : undefined;
        if (bound.has(p)) inner.vars.set(p, bound.get(p));
        else if (fallback) inner.vars.set(p, evaluate(fallback, inner));
        else inner.vars.set(p, new Undefined(`parameter '${p}' was not provided`));
      });
      for (const special of ["caller", "kwargs", "varargs"]) {
        if (bound.has(special)) {
          inner.vars.set(special, bound.get(special));
        }
      }
      if (++frame.depth > MAX_DEPTH) {
        frame.depth = 0;
        fail("RecursionError", "maximum recursion depth exceeded");
      }
      try {
        return text(body, inner);
      } finally {
        frame.depth = Math.max(0, frame.depth - 1);
      }
    },
  );
}

function callWithCaller(node: Extract<Node, { k: "callblock" }>, s: Scope): unknown {
  const caller = makeMacro(null, node.sig, node.body, s);
  const fn = evaluate(node.call.fn, s);
  const [args, kwargs] = evalArgs(node.call.call, s);
  kwargs.set("caller", caller);
  if (fn instanceof Undefined) return fn.raise();
  if (!(fn instanceof PyFunction)) return fail("TypeError", `'${typeName(fn)}' object is not callable`);
  return fn.call(args, kwargs, s);
}

function renderBlock(node: Extract<Node, { k: "block" }>, scope: Scope | null, s: Scope): string {
  const frame = renderFrame(s);
  if (node.required) fail("TemplateRuntimeError", `Required block '${node.name}' not found`);
  const inner = new Scope(scope ?? frame.top ?? s, frame, false);
  inner.vars.set("super", new Undefined(`there is no parent block called '${node.name}'.`));
  return text(node.body, inner);
}

/** Jinja2's `self`: renders a block of this template again (`{{ self.name() }}`). */
class TemplateReference extends PyObject {
  readonly pyType = "TemplateReference";
  override readonly pyModule = "jinja2.runtime";

  constructor(readonly frame: Frame) {
    super();
  }

  override getAttr(name: string): unknown {
    const block = this.frame.template.blocks.get(name);
    if (!block) return undefined;
    return new PyFunction(name, (_a, _k, site: CallSite) => {
      const t = renderBlock(block, null, topScope(this.frame));
      return site.autoescape ? new Markup(t) : t;
    });
  }

  override repr(): string {
    return "<TemplateReference None>";
  }
}
