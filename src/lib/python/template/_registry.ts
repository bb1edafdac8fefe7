/**
 * The built-in filters and tests by name, and Jinja2's `call_filter` / `call_test`.
 * @module
 */
import type { Builtin, Env } from "./_builtin.ts";
import { hashKey } from "./_dict.ts";
import { fail } from "./_error.ts";
import { HTML_FILTERS } from "./_filters_html.ts";
import { SEQ_FILTERS } from "./_filters_seq.ts";
import { TEXT_FILTERS } from "./_filters_text.ts";
import { pyRepr } from "./_format.ts";
import { bind } from "./_signature.ts";
import { TESTS } from "./_tests.ts";
import { isStr, strOf, Undefined } from "./_values.ts";

/** The filters by name. */
export const FILTERS: Map<string, Builtin> = new Map([...TEXT_FILTERS, ...SEQ_FILTERS, ...HTML_FILTERS]);
const defaultFilter = FILTERS.get("default");
if (!defaultFilter) throw new Error("Cannot alias the default filter: it is not defined");
FILTERS.set("d", defaultFilter);

export { TESTS };

/** Calls a builtin with the value and the call's arguments. */
export function applyBuiltin(
  b: Builtin,
  env: Env,
  value: unknown,
  args: unknown[],
  kwargs: Map<string, unknown>,
): unknown {
  const bound = bind(b.sig, [value, ...args], kwargs);
  return b.run(env, bound.values, bound.rest, bound.extra);
}

function lookup(kind: "filter" | "test", name: unknown): Builtin {
  if (name instanceof Undefined) name.raise();
  hashKey(name);
  const b = isStr(name) ? (kind === "filter" ? FILTERS : TESTS).get(strOf(name)) : undefined;
  return b ?? fail("TemplateRuntimeError", `No ${kind} named ${pyRepr(name)}.`);
}

/** An Env for the given autoescape state. */
export function makeEnv(autoescape: boolean): Env {
  const env: Env = {
    autoescape,
    callFilter: (name, value, args, kwargs) => applyBuiltin(lookup("filter", name), env, value, args, kwargs),
    callTest: (name, value, args, kwargs) => applyBuiltin(lookup("test", name), env, value, args, kwargs),
    has: (kind, name) => (kind === "filter" ? FILTERS : TESTS).has(name),
  };
  return env;
}

/** The shared Envs (filters only read them). */
export const PLAIN_ENV: Env = makeEnv(false);
export const ESCAPING_ENV: Env = makeEnv(true);
