/**
 * The shape holds: over the import graph `deno info --json main.ts` reports (code and type imports,
 * dynamic ones included), no cycle (between files, nor between the folders one level down), no import against the layer order (lib <- core <- features |
 * batch | tools <- cli <- main.ts; features, batch and tools never import each other), no import of
 * another folder's `_private` file (a folder's `extra/` is part of it), `import()` only in `src/cli/` and,
 * in core, for what a config chooses (a registry's class, an `extra/` module, a part of `lib/`), and no
 * static import of an `extra/` module from the rest of core.
 */
import { assertEquals } from "./_support/assert.ts";

interface Module {
  specifier: string;
  dependencies?: { code?: { specifier: string }; type?: { specifier: string }; isDynamic?: boolean }[];
}

const ROOT = new URL("..", import.meta.url).href;

/** The project's modules and, for each, the project modules it imports (with whether dynamically). */
async function graph(): Promise<Map<string, { to: string; dynamic: boolean; typeOnly: boolean }[]>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "main.ts"],
    cwd: new URL(ROOT).pathname,
    stdout: "piped",
  }).output();
  const info: { modules: Module[] } = JSON.parse(new TextDecoder().decode(out.stdout));
  const own = (s: string | undefined) => s?.startsWith(ROOT) ? s.slice(ROOT.length) : undefined;
  const edges = new Map<string, { to: string; dynamic: boolean; typeOnly: boolean }[]>();
  for (const m of info.modules) {
    const from = own(m.specifier);
    if (!from) continue;
    const deps = (m.dependencies ?? []).flatMap((d) => {
      const code = own(d.code?.specifier);
      const type = own(d.type?.specifier);
      const dynamic = d.isDynamic === true;
      return [
        ...(code ? [{ to: code, dynamic, typeOnly: false }] : []),
        ...(type && type !== code ? [{ to: type, dynamic, typeOnly: code === undefined }] : []),
      ];
    });
    edges.set(from, deps);
  }
  return edges;
}

/** The layer a file is in: main, or its folder under src/. */
function room(path: string): string {
  if (path === "main.ts") return "main";
  return path.split("/")[1] ?? "";
}

/** What each layer may import besides itself. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  lib: [],
  core: ["lib"],
  features: ["core", "lib"],
  batch: ["core", "lib"],
  tools: ["core", "lib"],
  cli: ["features", "batch", "tools", "core", "lib"],
  main: ["cli", "core", "lib"],
};

/** The strongly connected components of more than one module (Tarjan's). */
function cycles(edges: Map<string, { to: string }[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    on.add(v);
    for (const { to } of edges.get(v) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(v, Math.min(low.get(v)!, low.get(to)!));
      } else if (on.has(to)) low.set(v, Math.min(low.get(v)!, index.get(to)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = ""; w !== v;) {
      w = stack.pop()!;
      on.delete(w);
      component.push(w);
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

const edges = await graph();

/**
 * The unit one level down a layer: a folder (`core/config`, `tools/report`; an `extra/` inside it is
 * part of it) or a file directly in the layer (`core/agent.ts`).
 */
function unit(path: string): string {
  if (path === "main.ts") return path;
  const [, layer = "", second = ""] = path.split("/");
  return `${layer}/${second}`;
}

Deno.test("the import graph has no cycle", () => {
  assertEquals(cycles(edges), []);
});

Deno.test("no cycle between the folders one level down (core/config, core/models, tools/report, ...)", () => {
  const between = new Map<string, { to: string }[]>();
  for (const [from, deps] of edges) {
    const list = between.get(unit(from)) ?? [];
    for (const { to } of deps) if (unit(to) !== unit(from)) list.push({ to: unit(to) });
    between.set(unit(from), list);
  }
  assertEquals(cycles(between), []);
});

Deno.test("imports follow the layer order: lib <- core <- features | batch | tools <- cli <- main.ts", () => {
  const wrong = [...edges].flatMap(([from, deps]) =>
    deps.flatMap(({ to }) => {
      const [a, b] = [room(from), room(to)];
      return a === b || MAY_IMPORT[a]?.includes(b) ? [] : [`${from} -> ${to}`];
    })
  );
  assertEquals([...new Set(wrong)], []);
  assertEquals([...edges.keys()].filter((f) => f !== "main.ts" && !MAY_IMPORT[room(f)]), []);
});

Deno.test("no file imports another folder's _private file (a folder's extra/ is part of it)", () => {
  const dir = (p: string) => p.slice(0, p.lastIndexOf("/")).replace(/\/extra$/, "");
  const wrong = [...edges].flatMap(([from, deps]) =>
    deps.flatMap(({ to }) =>
      to.slice(to.lastIndexOf("/") + 1).startsWith("_") && dir(to) !== dir(from) ? [`${from} -> ${to}`] : []
    )
  );
  assertEquals([...new Set(wrong)], []);
});

/** A core file's dynamic import is of what a config chooses: a class (from its registry), an extra, a lib part. */
function choiceLoad(from: string, to: string): boolean {
  const dir = (p: string) => p.slice(0, p.lastIndexOf("/"));
  const registry = from.endsWith("/classes.ts") && to.startsWith(`${dir(from)}/`);
  return registry || to.includes("/extra/") || room(to) === "lib";
}

Deno.test("import() only in src/cli/ (the one place that composes), and in core for what a config chooses", () => {
  const wrong = [...edges].flatMap(([from, deps]) =>
    deps.flatMap(({ to, dynamic }) => {
      if (!dynamic || room(from) === "cli") return [];
      return room(from) === "core" && choiceLoad(from, to) ? [] : [`${from} -> ${to}`];
    })
  );
  assertEquals([...new Set(wrong)], []);
});

Deno.test("core reaches an extra/ module only by import(): no static import of one from outside extra/", () => {
  const wrong = [...edges].flatMap(([from, deps]) =>
    deps.flatMap(({ to, dynamic, typeOnly }) =>
      room(from) === "core" && !from.includes("/extra/") && to.includes("/extra/") && !dynamic && !typeOnly
        ? [`${from} -> ${to}`]
        : []
    )
  );
  assertEquals([...new Set(wrong)], []);
});
