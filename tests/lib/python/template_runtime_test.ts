/**
 * What the golden file cannot pin: costs (a lazy range, bounded caches), values Python prints
 * with memory addresses or chooses at random, and the shape of TemplateError.
 */
import { assert, assertEquals, assertMatch, assertThrows } from "../../_support/assert.ts";
import { checkTemplate, renderTemplate, TemplateError } from "../../../src/lib/python/template/template.ts";

function heapGrowth(fn: () => void): number {
  const before = Deno.memoryUsage().heapUsed;
  fn();
  return Deno.memoryUsage().heapUsed - before;
}

Deno.test("renderTemplate() keeps range() lazy: range(10**8) costs neither memory nor time", () => {
  const src = "{{ range(10**8) | length }} {{ range(10**8)[-2:] | list }} {{ 99999999 in range(10**8) }} " +
    "{{ range(10**8) | last }} {{ range(0, 10**9, 7) | length }} {{ range(10**8) | first }}";
  renderTemplate(src, {});
  const t0 = performance.now();
  let out = "";
  const grown = heapGrowth(() => out = renderTemplate(src, {}));
  assertEquals(out, "100000000 [99999998, 99999999] True 99999999 142857143 0");
  assert(grown < 8e6, `heap grew ${grown} bytes`);
  assert(performance.now() - t0 < 200, "a lazy range took too long");
});

Deno.test("renderTemplate() iterates a large range in a loop without materialising it", () => {
  let out = "";
  const grown = heapGrowth(() =>
    out = renderTemplate("{% for i in range(300000) %}{% if loop.last %}{{ i }}{% endif %}{% endfor %}", {})
  );
  assertEquals(out, "299999");
  assert(grown < 16e6, `heap grew ${grown} bytes`);
  assertEquals(renderTemplate("{{ range(10**6) | sum }}", {}), "499999500000");
});

Deno.test("renderTemplate() prints generators as Python does, and they are used up once", () => {
  assertMatch(
    renderTemplate("{{ [1] | map('string') }}", {}),
    /^<generator object sync_do_map at 0x[0-9a-f]+>$/,
  );
  assertMatch(
    renderTemplate("{{ [1] | select }}", {}),
    /^<generator object select_or_reject at 0x[0-9a-f]+>$/,
  );
  assertMatch(renderTemplate("{{ [1, 2] | reverse }}", {}), /^<list_reverseiterator object at 0x[0-9a-f]+>$/);
  assertEquals(
    renderTemplate("{% set g = [1, 2] | map('string') %}{{ g | list }}{{ g | list }}", {}),
    "['1', '2'][]",
  );
  // A generator runs only when iterated: an unknown filter inside map() does not fail until then.
  assertMatch(renderTemplate("{{ [1] | map('nosuch') }}", {}), /^<generator object/);
});

Deno.test("renderTemplate() picks random items from the sequence and lipsum within its bounds", () => {
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) seen.add(renderTemplate("{{ [1, 2, 3] | random }}", {}));
  assertEquals([...seen].sort(), ["1", "2", "3"]);
  for (let i = 0; i < 20; i++) {
    const words = Number(renderTemplate("{{ lipsum(1, false, 5, 9) | wordcount }}", {}));
    assert(words >= 5 && words < 9, `lipsum gave ${words} words`);
  }
  assertMatch(
    renderTemplate("{{ lipsum(2, true, 3, 4) }}", {}),
    /^<p>[A-Z][a-z, ]+\.<\/p>\n<p>[A-Z][a-z, ]+\.<\/p>$/,
  );
});

Deno.test("renderTemplate() fails a runaway macro recursion as Python's RecursionError", () => {
  const e = assertThrows(
    () =>
      renderTemplate("{% macro r(n) %}{{ r(n + 1) }}{% endmacro %}{{ r(0) }}", {}, "agent.system_template"),
    TemplateError,
  );
  assertEquals([e.kind, e.name, e.detail], [
    "RecursionError",
    "RecursionError",
    "maximum recursion depth exceeded",
  ]);
  assertEquals(
    e.message,
    "Cannot render agent.system_template: RecursionError: maximum recursion depth exceeded",
  );
  // The limit is per render: the next render starts from zero.
  assertEquals(
    renderTemplate(
      "{% macro r(n) %}{% if n %}{{ r(n - 1) }}{% else %}ok{% endif %}{% endmacro %}{{ r(200) }}",
      {},
    ),
    "ok",
  );
});

Deno.test("renderTemplate() reports a string too large as MemoryError, not a crash", () => {
  const e = assertThrows(() => renderTemplate("{{ 'x' * n }}", { n: 2 ** 31 }), TemplateError);
  assertEquals(e.kind, "MemoryError");
});

Deno.test("TemplateError carries Jinja2's exception class, its message and the line of a syntax error", () => {
  const syntax = assertThrows(
    () => checkTemplate("ok\n{% for x in l %}\n{{ x", "model.observation_template"),
    TemplateError,
  );
  assertEquals([syntax.kind, syntax.lineno], ["TemplateSyntaxError", 3]);
  assertEquals(syntax.detail, "unexpected end of template, expected 'end of print statement'.");
  assertEquals(syntax.message, `Cannot parse model.observation_template: ${syntax.detail} (line 3)`);
  const assertion = assertThrows(() => checkTemplate("\n{{ x | nosuch }}"), TemplateError);
  assertEquals([assertion.kind, assertion.detail, assertion.lineno], [
    "TemplateAssertionError",
    "No filter named 'nosuch'.",
    2,
  ]);
  const undef = assertThrows(() => renderTemplate("{{ d.a.b }}", { d: { a: {} } }), TemplateError);
  assertEquals([undef.kind, undef.name, undef.lineno], ["UndefinedError", "UndefinedError", undefined]);
  assertEquals(undef.message, "Cannot render template: 'dict object' has no attribute 'b'");
  const type = assertThrows(() => renderTemplate("{{ 1 + 'a' }}", {}), TemplateError);
  assertEquals(
    type.message,
    "Cannot render template: TypeError: unsupported operand type(s) for +: 'int' and 'str'",
  );
});

Deno.test("renderTemplate() fails {% include %} as upstream's loader-less Template does", () => {
  for (
    const src of [
      "{% include 'other.txt' %}",
      "{% include 'x' ignore missing %}",
      "{% import 'm' as m %}",
      "{% extends 'base' %}",
    ]
  ) {
    const e = assertThrows(() => renderTemplate(src, {}), TemplateError);
    assertEquals([e.kind, e.detail], ["TypeError", "no loader for this environment specified"], src);
  }
  assertEquals(renderTemplate("{% if false %}{% include 'x' %}{% endif %}ok", {}), "ok");
  const empty = assertThrows(() => renderTemplate("{% include [] %}", {}), TemplateError);
  assertEquals([empty.kind, empty.detail], [
    "TemplatesNotFound",
    "Tried to select from an empty list of templates.",
  ]);
});

Deno.test("renderTemplate() leaves the variables it was given as Python would, mutating only what the template mutates", () => {
  const vars = { l: [1], d: { a: 1 } };
  assertEquals(
    renderTemplate("{% set _ = l.append(2) %}{% set _ = d.update(b=2) %}{{ l }} {{ d }}", vars),
    "[1, 2] {'a': 1, 'b': 2}",
  );
  assertEquals(vars, { l: [1, 2], d: { a: 1, b: 2 } });
  // A folded constant is a new list on every render, as Python's generated code builds it anew.
  const src = "{% set l = [1, 1e400 > 0] %}{% set _ = l.append(3) %}{{ l }}";
  assertEquals(renderTemplate(src, {}), "[1, True, 3]");
  assertEquals(renderTemplate(src, {}), "[1, True, 3]");
});

Deno.test("renderTemplate() renders many distinct templates with a bounded parse cache", () => {
  for (let i = 0; i < 2000; i++) assertEquals(renderTemplate(`{{ ${i} + 1 }}`, {}), String(i + 1));
});

Deno.test("renderTemplate() rsplit with maxsplit 0 strips the right end only, as Python's str.rsplit(None, 0)", () => {
  // The whitespace split from the right read past its words and failed with a TypeError before.
  assertEquals(
    renderTemplate("{{ ' a b '.rsplit(None, 0) }}|{{ '  a  b  '.rsplit(maxsplit=0) }}", {}),
    "[' a b']|['  a  b']",
  );
});
