/**
 * Template syntax tree, shaped after Jinja2's nodes.
 * @module
 */

/** Call arguments: positional, keyword, and `*args` / `**kwargs`. */
export interface Args {
  args: Expr[];
  kwargs: [string, Expr][];
  dynArgs: Expr | null;
  dynKwargs: Expr | null;
}

/** A comparison operator of a chain (`not in` is `notin`). */
export type CompareOp = "==" | "!=" | "<" | "<=" | ">" | ">=" | "in" | "notin";

/** An expression. `line` is kept where a message or check needs it. */
export type Expr =
  | { k: "const"; value: unknown; bad?: string; fresh?: boolean }
  | { k: "name"; name: string }
  | { k: "getattr"; obj: Expr; attr: string }
  | { k: "getitem"; obj: Expr; arg: Expr }
  | { k: "slice"; start: Expr | null; stop: Expr | null; step: Expr | null }
  | { k: "call"; fn: Expr; call: Args }
  | { k: "filter"; node: Expr | null; name: string; call: Args; line: number; unknown?: boolean }
  | { k: "test"; node: Expr; name: string; call: Args; line: number; unknown?: boolean }
  | { k: "binop"; op: string; left: Expr; right: Expr }
  | { k: "concat"; items: Expr[] }
  | { k: "and" | "or"; left: Expr; right: Expr }
  | { k: "not" | "neg" | "pos"; node: Expr }
  | { k: "compare"; first: Expr; ops: { op: CompareOp; expr: Expr }[] }
  | { k: "cond"; test: Expr; then: Expr; else: Expr | null; line: number }
  | { k: "list" | "tuple"; items: Expr[] }
  | { k: "dict"; pairs: [Expr, Expr][] };

/** An assignment target: a name, a namespace attribute, or a tuple of targets. */
export type Target =
  | { k: "name"; name: string }
  | { k: "nsref"; name: string; attr: string }
  | { k: "tuple"; items: Target[] };

/** A macro or call-block signature and what its body reads. */
export interface Signature {
  params: string[];
  defaults: Expr[];
  /** The body reads `caller` / `kwargs` / `varargs` without declaring them. */
  caller: boolean;
  kwargs: boolean;
  varargs: boolean;
}

/** A statement. */
export type Node =
  | { k: "data"; text: string }
  | { k: "output"; expr: Expr }
  | { k: "if"; branches: { test: Expr; body: Node[] }[]; else: Node[] }
  | {
    k: "for";
    target: Target;
    iter: Expr;
    filter: Expr | null;
    body: Node[];
    else: Node[];
    recursive: boolean;
    /** The body reads `loop` (Jinja2's "extended loop"). */
    usesLoop: boolean;
    line: number;
  }
  | { k: "set"; target: Target; expr: Expr }
  | { k: "setblock"; target: Target; filter: Expr | null; body: Node[] }
  | { k: "macro"; name: string; sig: Signature; body: Node[]; line: number }
  | { k: "callblock"; sig: Signature; call: Extract<Expr, { k: "call" }>; body: Node[]; line: number }
  | { k: "filterblock"; filter: Expr; body: Node[] }
  | { k: "with"; targets: Target[]; values: Expr[]; body: Node[] }
  | { k: "scope"; autoescape: Expr; body: Node[] }
  | { k: "block"; name: string; scoped: boolean; required: boolean; body: Node[]; line: number }
  | { k: "include"; template: Expr; ignoreMissing: boolean }
  | { k: "import"; template: Expr }
  | { k: "extends"; template: Expr; line: number };

/** A parsed template: its statements and its blocks by name. */
export interface Template {
  body: Node[];
  blocks: Map<string, Extract<Node, { k: "block" }>>;
}
