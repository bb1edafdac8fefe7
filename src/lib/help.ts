/**
 * Help text, shell completions and Markdown flag lists, all generated from a command's
 * {@link CommandSpec}: nothing about a flag is written twice.
 *
 * @module
 */
import type { CommandSpec, FlagDef } from "./flags.ts";

/** The width help is wrapped to: it fits an 80-column terminal. */
export const HELP_WIDTH = 80;

/** Where a flag's description starts. */
const DOC_COLUMN = 26;

/** `text` wrapped to `width`, every line after the first indented by `indent` spaces. */
export function wrap(text: string, width: number, indent = 0, first = indent): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    let room = width - (lines.length === 0 ? first : indent);
    for (const word of paragraph.split(/ +/)) {
      if (line && line.length + 1 + word.length > room) {
        lines.push(line);
        line = word;
        room = width - indent;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(line);
  }
  return lines.map((l, i) => (i === 0 ? l : " ".repeat(indent) + l));
}

/** `-c, --config SPEC` as help shows it. */
export function flagLabel(name: string, def: FlagDef): string {
  const value = def.type === "boolean" ? "" : ` ${def.value ?? (def.type === "string" ? "VALUE" : "N")}`;
  return `${def.short ? `-${def.short}, ` : "    "}--${name}${value}`;
}

/** A flag's whole description: its doc, its allowed values, its other names. */
export function flagDoc(def: FlagDef): string {
  let doc = def.doc;
  if (def.choices && !def.choices.every((c) => doc.includes(c))) doc += `: ${def.choices.join(" | ")}`;
  if (def.aliases?.length) doc += ` (also ${def.aliases.map((a) => `--${a}`).join(", ")})`;
  return doc;
}

/** The options section: one entry per flag, descriptions aligned and wrapped to `width`. */
function options(spec: CommandSpec, width: number): string[] {
  const out: string[] = [];
  for (const [name, def] of Object.entries(spec.flags)) {
    const label = `  ${flagLabel(name, def)}`;
    const doc = wrap(flagDoc(def), width, DOC_COLUMN);
    if (label.length + 2 <= DOC_COLUMN) out.push(label.padEnd(DOC_COLUMN) + doc[0], ...doc.slice(1));
    else out.push(label, " ".repeat(DOC_COLUMN) + doc[0], ...doc.slice(1));
  }
  return out;
}

/**
 * The help of a command: what it does, usage, examples first, then its options and sections, wrapped
 * to {@link HELP_WIDTH} columns.
 */
export function renderHelp(spec: CommandSpec, width = HELP_WIDTH): string {
  const out = [...wrap(`${spec.name}: ${spec.summary}`, width, 2), "", "Usage:"];
  for (const u of spec.usage) {
    out.push(...wrap(`${spec.name} ${u}`, width, 4, 2).map((l, i) => (i ? l : `  ${l}`)));
  }
  if (spec.examples.length) {
    out.push("", "Examples:");
    for (const [command, what] of spec.examples) {
      out.push(
        `  ${command}`,
        ...wrap(what, width, 6, 6).map((l) => `    ${l.trimStart()}`),
      );
    }
  }
  if (spec.description) out.push("", ...wrap(spec.description, width));
  out.push("", "Options:", ...options(spec, width));
  for (const [title, text] of spec.sections ?? []) {
    out.push("", `${title}:`, ...wrap(text, width, 2, 2).map((l, i) => (i ? l : `  ${l}`)));
  }
  return out.join("\n");
}
