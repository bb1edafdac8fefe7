/**
 * Render state: one {@linkcode Frame} per render, and {@linkcode Scope}s for the frames Jinja2
 * opens (the template's top level, each loop iteration, macro calls, `with`, blocks, ...).
 * @module
 */
import type { Template } from "./_ast.ts";
import { Impossible } from "./_error.ts";
import { reprStr } from "./_format.ts";
import { GLOBALS } from "./_globals.ts";
import { Undefined } from "./_values.ts";

/** One render: the variables passed in and the template's top-level scope. */
export interface Frame {
  readonly root: Record<string, unknown>;
  readonly template: Template;
  top: Scope | null;
  /** Makes Jinja2's `self` (the template reference), on first use. */
  readonly self: () => unknown;
  /** Nested macro calls, to fail like Python's recursion limit instead of overflowing the stack. */
  depth: number;
}

/** The render's top-level scope (set as the render begins). */
export function topScope(frame: Frame): Scope {
  if (!frame.top) throw new Error("Cannot render: the template's top-level scope is not set");
  return frame.top;
}

/** The render a scope belongs to; none while folding constants, which cannot do this then. */
export function renderFrame(s: Scope): Frame {
  if (!s.frame) throw new Impossible();
  return s.frame;
}

/** Variables of one Jinja2 frame; lookups fall through to the enclosing frame. */
export class Scope {
  readonly vars: Map<string, unknown> = new Map();

  /**
   * @param parent The enclosing scope (null at the top level).
   * @param frame The render this scope belongs to (null while folding constants at parse time).
   * @param autoescape Whether output here is escaped.
   * @param volatile While folding: autoescape is only known at run time, so filters and tests wait.
   */
  constructor(
    readonly parent: Scope | null,
    readonly frame: Frame | null,
    readonly autoescape: boolean,
    readonly volatile = false,
  ) {}

  /** A nested scope. */
  child(autoescape: boolean = this.autoescape): Scope {
    return new Scope(this, this.frame, autoescape);
  }

  /** Resolves a name: local scopes, then the render variables, then the globals. */
  lookup(name: string): unknown {
    const local = this.vars.get(name);
    if (local !== undefined || this.vars.has(name)) return local;
    if (this.parent) return this.parent.lookup(name);
    const frame = this.frame;
    if (!frame) throw new Impossible();
    const root = frame.root;
    const v = root[name];
    if (v !== undefined && Object.hasOwn(root, name)) return v;
    if (name === "self") {
      const self = frame.self();
      topScope(frame).vars.set("self", self);
      return self;
    }
    if (Object.hasOwn(GLOBALS, name)) return GLOBALS[name];
    return new Undefined(`${reprStr(name)} is undefined`);
  }
}
