/**
 * Structured file actions (`read FILE A-B`, `write FILE [N|A-B]` + content, `search KEYWORD DIR`):
 * parsing, and their shell form (POSIX sh with `awk`, `find`, `sort`, `xargs`, `mktemp`; busybox
 * works), run inside the environment for containers and sandboxes. `file_actions.ts` runs the same
 * actions in-process for the local environment, with the same output.
 *
 * @module
 */
import { shellQuote } from "./_window.ts";

/** A structured file action. */
export type FileAction =
  /** Numbered lines `from`..`to` (1-based, inclusive) of `path`; the whole file without a range. */
  | { kind: "read"; path: string; from?: number; to?: number }
  /**
   * `content` (newline-terminated lines) written to `path`: the whole file (no range), inserted
   * before line `from` (`to` = `from - 1`), or replacing lines `from`..`to`.
   */
  | { kind: "write"; path: string; from?: number; to?: number; content: string }
  /** Lines containing `keyword` (a plain string) in the files under `dir`. */
  | { kind: "search"; keyword: string; dir: string };

/** Words of a line, with `'...'` and `"..."` quoting (no escapes); undefined on an open quote. */
function words(line: string): string[] | undefined {
  const out: string[] = [];
  let word = "";
  let inWord = false;
  let quote = "";
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = "";
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) out.push(word);
      word = "";
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote) return undefined;
  if (inWord) out.push(word);
  return out;
}

const RANGE = /^(\d+)-(\d+)$/;

/**
 * The structured action a command is, or undefined for a shell command. `read` and `search` are one
 * line; `write FILE [N|A-B] [text]` takes the text after the range and every following line as the
 * content (newline-terminated). Anything that does not fit (e.g. `read -r x`) is a shell command.
 *
 * @example
 * ```ts
 * import { parseFileAction } from "./_file_commands.ts";
 * parseFileAction("read src/a.ts 10-20"); // { kind: "read", path: "src/a.ts", from: 10, to: 20 }
 * parseFileAction("ls -la"); // undefined
 * ```
 */
export function parseFileAction(command: string): FileAction | undefined {
  const text = command.replace(/^\s+/, "");
  const nl = text.indexOf("\n");
  const first = nl < 0 ? text : text.slice(0, nl);
  const verb = /^(read|write|search)\s/.exec(first)?.[1];
  if (!verb) return undefined;
  if (verb !== "write" && text.trimEnd().includes("\n")) return undefined;
  const w = words(first);
  const [, arg, third] = w ?? [];
  if (!w || arg === undefined || arg.startsWith("-") || arg === "") return undefined;
  if (verb === "read") {
    if (third === undefined) return { kind: "read", path: arg };
    const r = w.length === 3 ? RANGE.exec(third) : null;
    return r ? { kind: "read", path: arg, from: Number(r[1]), to: Number(r[2]) } : undefined;
  }
  if (verb === "search") {
    return w.length <= 3 ? { kind: "search", keyword: arg, dir: third ?? "." } : undefined;
  }
  // write: the range (if any) is the third word; inline text follows it on the first line.
  const head = /^write\s+(?:'[^']*'|"[^"]*"|\S+)(?:[ \t]+(\d+(?:-\d+)?)(?=[ \t]|$))?[ \t]?/.exec(first);
  if (!head) return undefined;
  const inline = first.slice(head[0].length);
  if (!head[1] && inline.trim() !== "") return undefined; // `write user tty`: the shell's write
  let content = (inline ? inline + "\n" : "") + (nl < 0 ? "" : text.slice(nl + 1));
  if (content && !content.endsWith("\n")) content += "\n";
  const action: FileAction = { kind: "write", path: arg, content };
  if (head[1]) {
    const r = RANGE.exec(head[1]);
    action.from = Number(r ? r[1] : head[1]);
    action.to = r ? Number(r[2]) : action.from - 1;
  }
  return action;
}

/** Lines in `content` (each newline-terminated). */
export function lineCount(content: string): number {
  return content.split("\n").length - 1;
}

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;

/** The one-line report of a successful write (the same for both forms). */
export function writeReport(a: Extract<FileAction, { kind: "write" }>): string {
  const lines = plural(lineCount(a.content), "line");
  if (a.from === undefined) return `write: ${a.path}: wrote ${lines}\n`;
  if (a.to !== undefined && a.to < a.from) {
    return `write: ${a.path}: inserted ${lines} before line ${a.from}\n`;
  }
  return `write: ${a.path}: replaced lines ${a.from}-${a.to} with ${lines}\n`;
}

/** A range the action cannot have, whatever the file: the error, or undefined. */
export function rangeError(a: FileAction): string | undefined {
  if (a.kind === "search" || a.from === undefined) return undefined;
  if (a.from < 1) return `${a.kind}: ${a.path}: lines are numbered from 1\n`;
  if (a.kind === "read" && a.to !== undefined && a.to < a.from) {
    return `read: ${a.path}: invalid range ${a.from}-${a.to}\n`;
  }
  if (a.kind === "write" && a.to !== undefined && a.to < a.from - 1) {
    return `write: ${a.path}: invalid range ${a.from}-${a.to}\n`;
  }
  return undefined;
}

/** A path as a shell word that no program takes for an option. */
const pathWord = (path: string) => shellQuote(path.startsWith("-") ? `./${path}` : path);
const say = (format: string, ...args: string[]) => `printf ${shellQuote(format)} ${args.join(" ")}`;

/**
 * The action as one shell command with the same output and return code as the in-process form.
 * @param maxResults `search`: lines shown at most
 */
export function fileActionCommand(a: FileAction, maxResults: number): string {
  const bad = rangeError(a);
  if (bad) return `${say("%s", shellQuote(bad))}; exit 1`;
  if (a.kind === "read") {
    const f = pathWord(a.path);
    const p = shellQuote(a.path);
    return [
      `if [ -d ${f} ]; then ${say("read: %s: Is a directory\\n", p)}; exit 1; fi`,
      `if [ ! -f ${f} ]; then ${say("read: %s: No such file or directory\\n", p)}; exit 1; fi`,
      `awk -v a=${a.from ?? 1} -v b=${a.to ?? 0} ` +
      `'NR>=a && (b==0 || NR<=b) {printf "%6d\\t%s\\n", NR, $0} b>0 && NR>b {exit}' ${f}`,
    ].join("\n");
  }
  if (a.kind === "write") {
    const f = pathWord(a.path);
    const p = shellQuote(a.path);
    const lines = [
      `if [ -d ${f} ]; then ${say("write: %s: Is a directory\\n", p)}; exit 1; fi`,
      `c="$(mktemp)" && t="$(mktemp)" || exit 1`,
      `trap 'rm -f "$c" "$t"' EXIT`,
      `printf '%s' ${shellQuote(a.content)} > "$c"`,
    ];
    if (a.from === undefined) {
      lines.push(`mkdir -p "$(dirname ${f})" && cat "$c" > ${f} || exit 1`);
    } else {
      const past = (n: string) =>
        `${say("write: %s: line %s is past the end (the file has %s lines)\\n", p, n, '"$n"')}; exit 1`;
      lines.push(
        `if [ ! -f ${f} ]; then ${say("write: %s: No such file or directory\\n", p)}; exit 1; fi`,
        `n="$(awk 'END {print NR}' ${f})"`,
        `if [ ${a.from} -gt $((n + 1)) ]; then ${past(String(a.from))}; fi`,
        ...(a.to !== undefined && a.to >= a.from
          ? [`if [ ${a.to} -gt "$n" ]; then ${past(String(a.to))}; fi`]
          : []),
        `awk -v a=${a.from} -v b=${a.to} -v cf="$c" ` +
          `'NR==a {while ((getline l < cf) > 0) print l} NR<a || NR>b {print} ` +
          `END {if (NR<a) while ((getline l < cf) > 0) print l}' ${f} > "$t" && cat "$t" > ${f} || exit 1`,
      );
    }
    lines.push(say("%s", shellQuote(writeReport(a))));
    return lines.join("\n");
  }
  const dir = a.dir.length > 1 ? a.dir.replace(/\/+$/, "") || "/" : a.dir;
  const d = pathWord(dir);
  return [
    `if [ ! -e ${d} ]; then ${say("search: %s: No such file or directory\\n", shellQuote(dir))}; exit 1; fi`,
    `export K=${shellQuote(a.keyword)} D=${shellQuote(dir)}`,
    `find ${d} -name .git -prune -o -type f -print | LC_ALL=C sort | tr '\\n' '\\0' | ` +
    `xargs -0 -r awk 'index($0, ENVIRON["K"]) {printf "%s:%d:%s\\n", FILENAME, FNR, $0}' | ` +
    `awk -v m=${maxResults} 'NR<=m {print} END {if (NR>m) printf "... %d more matching lines\\n", NR-m; ` +
    `if (NR==0) {printf "search: no line contains %s under %s\\n", ENVIRON["K"], ENVIRON["D"]; exit 1}}'`,
  ].join("\n");
}
