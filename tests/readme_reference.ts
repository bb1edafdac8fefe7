/**
 * `deno task docs`: the generated blocks of the documentation, and the writer that puts them into the
 * files that hold them. A block sits between `<!-- generated: NAME ... -->` and `<!-- end: NAME -->`;
 * its text comes from the one table that defines the fact (the key definitions, each command's flag
 * table, `EXIT_CODES`, the class tables, the provider table, the built-in configs, each source file's
 * `@module` sentence). A file is written formatted as `deno fmt` formats it; tests/readme_test.ts
 * checks that every file equals what this writes.
 *
 * @module
 */
import { denoFmt } from "./_support/deno_fmt.ts";
import { configReference } from "../src/cli/config_reference.ts";
import { builtinConfigs } from "../src/cli/config.ts";
import { COMMANDS, RUN_COMMAND } from "../src/cli/commands.ts";
import type { CommandSpec, FlagDef } from "../src/lib/flags.ts";
import { flagLabel } from "../src/lib/help.ts";
import { EXIT_CODES } from "../src/core/host.ts";
import { PROVIDERS } from "../src/core/models/providers.ts";
import { providersMarkdown } from "../src/core/models/provider_docs.ts";
import { BUILTIN_PARSED_FILE, writeBuiltinParsed } from "./builtin_parsed_reference.ts";
import { INFRASTRUCTURE_STATUSES } from "../src/core/endings.ts";
import { CONTROL_BUDGET, CONTROL_TARGET, defaultRunLoads, PYTHON_BUDGET } from "./_support/default_run.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** The files that hold generated blocks, relative to the repository's root. */
export const DOC_FILES = ["README.md", "config/README.md", "src/README.md", "docs/statistics.md"] as const;

/** The spec of `claudius COMMAND` (`run`: a plain run). */
async function spec(command: string): Promise<CommandSpec> {
  const load = command === "run" ? RUN_COMMAND : COMMANDS[command]?.load;
  if (!load) throw new Error(`no command ${command}`);
  return (await load()).SPEC;
}

/**
 * A command's flags by name, as one paragraph (`claudius help COMMAND` describes them); the flags it
 * shares with a run (the same definition) are named at the end (as those it shares, or those it lacks,
 * whichever is shorter).
 */
async function flagBlock(command: string): Promise<string> {
  const own = await spec(command);
  const run = command === "run" ? undefined : (await spec("run")).flags;
  const name = (flag: string) => `\`${run?.[flag]?.short ? `-${run[flag]?.short}` : `--${flag}`}\``;
  const items = Object.entries(own.flags).flatMap(([flag, def]) =>
    flag === "help" || run?.[flag] === def ? [] : [`\`${flagLabel(flag, def).trim()}\``]
  );
  if (run) {
    const shared = Object.keys(run).filter((f) => f !== "help" && own.flags[f] === run[f]);
    const lacked = Object.keys(run).filter((f) => f !== "help" && own.flags[f] === undefined);
    const some = `and the run's ${shared.map(name).join(", ")}`;
    const all = `and the run's flags but ${lacked.map(name).join(", ")}`;
    if (shared.length) items.push(all.length < some.length && lacked.length ? all : some);
  }
  return items.join(", ");
}

/** The subcommands, each with its summary (the command table). */
function commandsBlock(): string {
  return Object.entries(COMMANDS).map(([name, c]) => `\`${name}\` ${c.summary}`).join(" · ");
}

/** The exit codes of a run: the table every ending maps through, and the two that are no ending. */
function exitCodesBlock(): string {
  const byCode = new Map<number, string[]>([[1, ["an error (its class is the exit status)"]], [2, [
    "a usage or config error",
  ]]]);
  for (const [status, code] of Object.entries(EXIT_CODES)) {
    byCode.set(code, [...(byCode.get(code) ?? []), status]);
  }
  return [...byCode].sort(([a], [b]) => a - b).map(([code, names]) => `\`${code}\` ${names.join(", ")}`)
    .join(" · ");
}

/** The provider prefixes and the variable each reads its key from (the README's short form). */
function providerKeysBlock(): string {
  // The prefixes; each one's variables, in order: `claudius help providers` and config/README.md.
  const prefixes = Object.keys(PROVIDERS).map((prefix) => `\`${prefix}/\``).join(", ");
  return `${prefixes}: \`claudius help providers\` names their variables`;
}

/** The exit statuses that end a run on the infrastructure (counted in no rate, run again by a rerun). */
function infrastructureBlock(): string {
  return [...INFRASTRUCTURE_STATUSES].map((s) => `\`${s}\``).join(", ");
}

/** The built-in configs: name and the first line of the file's comment. */
async function builtinsBlock(): Promise<string> {
  return (await builtinConfigs(`${ROOT}config`)).map(([name, about]) => `- \`${name}\`: ${about}`).join("\n");
}

/** The built-in configs' names, as `-c` takes them. */
async function builtinNamesBlock(): Promise<string> {
  return (await builtinConfigs(`${ROOT}config`)).map(([name]) => `\`${name}\``).join(", ");
}

/** The first sentence of a file's `@module` comment. */
export function moduleSentence(text: string): string {
  const doc = /\/\*\*([\s\S]*?)\*\//.exec(text)?.[1] ?? "";
  if (!doc.includes("@module")) return "";
  const prose = doc.split("\n").map((l) => l.replace(/^\s*\* ?/, "")).join(" ").replace(/@module.*/, "")
    .replace(/\{@link ([^}]+)\}/g, "$1").replace(/\s+/g, " ").trim();
  // The sentence ends at the first `.`, `:` or `;` before a space, outside parentheses and code.
  let depth = 0;
  let code = false;
  for (let i = 0; i < prose.length; i++) {
    const c = prose[i];
    if (c === "`") code = !code;
    else if (code) continue;
    else if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") depth = Math.max(0, depth - 1);
    else if (
      depth === 0 && ".:;".includes(c ?? "") && /\s/.test(prose[i + 1] ?? " ") && prose[i - 1] !== "."
    ) {
      return `${prose.slice(0, i)}.`;
    }
  }
  return prose;
}

/** Every `.ts` file under `dir`, sorted, relative to the root. */
async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(`${ROOT}${dir}`)) {
    if (e.isDirectory) out.push(...await sourceFiles(`${dir}/${e.name}`));
    else if (e.name.endsWith(".ts")) out.push(`${dir}/${e.name}`);
  }
  return out.sort();
}

/**
 * The source layout: per folder, each public file with its `@module` sentence, then its private
 * (`_`-prefixed) files by name.
 */
async function layoutBlock(): Promise<string> {
  const files = await sourceFiles("src");
  const folders = [...new Set(files.map((f) => f.slice(0, f.lastIndexOf("/"))))];
  const parts: string[] = [];
  for (const folder of folders) {
    const here = files.filter((f) => f.slice(0, f.lastIndexOf("/")) === folder);
    const name = (f: string) => f.slice(folder.length + 1);
    const lines = [`**${folder}/**`, ""];
    for (const f of here.filter((f) => !name(f).startsWith("_"))) {
      const sentence = moduleSentence(await Deno.readTextFile(`${ROOT}${f}`));
      lines.push(`- [\`${name(f)}\`](${f.slice(4)})${sentence ? `: ${sentence}` : ""}`);
    }
    const hidden = here.filter((f) => name(f).startsWith("_")).map((f) => `\`${name(f)}\``);
    if (hidden.length) lines.push(`- private: ${hidden.join(", ")}`);
    parts.push(lines.join("\n"));
  }
  return parts.join("\n\n");
}

/** The commands whose flags the README lists (the others take only `--help`, or a run's flags). */
const FLAG_LISTS = ["run", "resume", "batch", "reap"];

/** The commands that read results, whose flags the README lists together. */
const RESULT_COMMANDS = ["stats", "compare", "report", "inspect", "export", "replay"];

/**
 * The flags of the commands that read results, by name, each command's after its name; a flag several of them
 * share (the same definition) is named once, with the commands that take it.
 */
async function resultFlagsBlock(): Promise<string> {
  const specs = await Promise.all(RESULT_COMMANDS.map(spec));
  const users = new Map<FlagDef, string[]>();
  specs.forEach((s, i) => {
    for (const def of Object.values(s.flags)) {
      users.set(def, [...(users.get(def) ?? []), RESULT_COMMANDS[i] ?? ""]);
    }
  });
  const item = ([flag, def]: [string, FlagDef]) => `\`${flagLabel(flag, def).trim()}\``;
  const line = (names: string[], flags: [string, FlagDef][]) =>
    `${names.map((n) => `\`${n}\``).join(", ")}: ${flags.map(item).join(", ")}`;
  const out = specs.map((s, i) =>
    line(
      [RESULT_COMMANDS[i] ?? ""],
      Object.entries(s.flags).filter(([flag, def]) => flag !== "help" && (users.get(def)?.length ?? 0) === 1),
    )
  );
  const shared = new Map<FlagDef, string>();
  for (const s of specs) {
    for (const [flag, def] of Object.entries(s.flags)) {
      if ((users.get(def)?.length ?? 0) > 1) shared.set(def, flag);
    }
  }
  for (const [def, flag] of shared) if (flag !== "help") out.push(line(users.get(def) ?? [], [[flag, def]]));
  return out.join(" · ");
}

/**
 * The control: the files a default `claudius -t TASK -m openai/MODEL` run loads (as the budget test
 * measures them), by folder, and the budget it is held to. Names only: the line counts change with
 * every edit, the set of files only when the control does.
 */
async function controlBlock(): Promise<string> {
  const loaded = await defaultRunLoads();
  const folders = new Map<string, string[]>();
  let python = 0;
  for (const path of [...loaded.keys()].sort()) {
    if (path.startsWith("src/lib/python/")) {
      python++;
      continue;
    }
    const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/") + 1) : "";
    folders.set(dir, [...(folders.get(dir) ?? []), path.slice(dir.length)]);
  }
  const own = [...folders.values()].reduce((n, files) => n + files.length, 0);
  const lines = [...folders].map(([dir, files]) =>
    `- ${dir ? `\`${dir}\`` : "the top"} (${files.length}): ${files.map((f) => `\`${f}\``).join(", ")}`
  );
  const n = (x: number) => x.toLocaleString("en");
  return [
    `A default run loads ${own} files of claudius's own code outside \`src/lib/python\`, and ${python} of ` +
    `\`src/lib/python\`. \`tests/budget_test.ts\` holds it to at most ${CONTROL_BUDGET.files} files and ` +
    `${n(CONTROL_BUDGET.lines)} lines (issue 28's target: ${CONTROL_TARGET.files} files and ` +
    `${n(CONTROL_TARGET.lines)} lines) and the library to ${PYTHON_BUDGET.files} files and ` +
    `${n(PYTHON_BUDGET.lines)} lines, with no \`extra/\` module among them:`,
    "",
    ...lines,
  ].join("\n");
}

/** Every generated block, by name. */
export const BLOCKS: Record<string, () => string | Promise<string>> = {
  "commands": commandsBlock,
  "exit-codes": exitCodesBlock,
  "provider-keys": providerKeysBlock,
  "providers": providersMarkdown,
  "builtin-configs": builtinsBlock,
  "builtin-names": builtinNamesBlock,
  "config-reference": configReference,
  "src-layout": layoutBlock,
  "control": controlBlock,
  "flags-results": resultFlagsBlock,
  "infrastructure-statuses": infrastructureBlock,
  ...Object.fromEntries(
    FLAG_LISTS.map((c) => [`flags-${c}`, () => flagBlock(c)]),
  ),
};

const MARKER = /<!-- generated: ([a-z0-9-]+)[^>]*-->\n[\s\S]*?<!-- end: \1 -->/g;

/** The names of the blocks `text` holds, in order. */
export function blockNames(text: string): string[] {
  return [...text.matchAll(MARKER)].map((m) => m[1] ?? "");
}

/** `text` with every block filled from {@link BLOCKS}. @throws {Error} naming an unknown block */
export async function fillBlocks(text: string): Promise<string> {
  const filled = new Map<string, string>();
  for (const name of blockNames(text)) {
    const make = BLOCKS[name];
    if (!make) throw new Error(`unknown generated block '${name}'`);
    filled.set(name, await make());
  }
  return text.replace(
    MARKER,
    (_all, name: string) => `<!-- generated: ${name} -->\n\n${filled.get(name)}\n\n<!-- end: ${name} -->`,
  );
}

/** What the file at `path` (relative to the root) must hold: its blocks filled, formatted. */
export async function expectedFile(path: string): Promise<string> {
  return await denoFmt(await fillBlocks(await Deno.readTextFile(`${ROOT}${path}`)), "md");
}

/** The words of a shell line (quotes removed, a trailing `# comment` dropped). */
export function words(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/"([^"]*)"|'([^']*)'|(#.*)|(\S+)/g)) {
    if (m[3] !== undefined) break;
    out.push(m[1] ?? m[2] ?? m[4] ?? "");
  }
  return out;
}

/**
 * The `claudius ...` lines of a Markdown text's code blocks of the `fences` given (continuations joined).
 * Guides put what runs offline in `sh` blocks (tests/examples_test.ts runs those), the rest in `shell`.
 */
export function commandLines(text: string, fences: readonly string[] = ["sh", "shell"]): string[] {
  return [...text.matchAll(/```([a-z]*)\n([\s\S]*?)```/g)]
    .filter((m) => fences.includes(m[1] ?? ""))
    .flatMap((m) => (m[2] ?? "").replace(/\\\n\s*/g, " ").split("\n"))
    .filter((l) => /^claudius( |$)/.test(l));
}

if (import.meta.main) {
  for (const path of DOC_FILES) {
    const text = await expectedFile(path);
    await Deno.writeTextFile(`${ROOT}${path}`, text);
    console.log(`${path}: ${blockNames(text).join(", ")}`);
  }
  await writeBuiltinParsed();
  console.log(`${BUILTIN_PARSED_FILE}: every built-in config, parsed`);
}
