/**
 * `.env` files: `KEY=value` lines as dotenv reads them (comments, `export`, single, double and
 * backtick quotes, `\n` in double quotes, inline ` #` comments after unquoted values).
 *
 * @module
 */

const LINE =
  /^\s*(?:export\s+)?([\w.-]+)\s*=\s*(?:'([^']*)'|"((?:[^"\\]|\\[\s\S])*)"|`([^`]*)`|([^\n]*?))\s*(?:#.*)?$/;

/**
 * Parse `.env` text into variables (later lines win); lines that are not assignments are skipped.
 *
 * @example
 * ```ts
 * import { parseDotEnv } from "./dotenv.ts";
 * parseDotEnv('A=1\n# note\nexport B="two\\nlines"\nC=x # comment'); // { A: "1", B: "two\nlines", C: "x" }
 * ```
 */
export function parseDotEnv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.replace(/\r\n?/g, "\n").split("\n")) {
    const m = LINE.exec(line);
    if (!m) continue;
    const [, key, single, double, backtick, bare] = m;
    out[key!] = single ?? backtick ??
      (double !== undefined ? double.replace(/\\n/g, "\n").replace(/\\(["\\])/g, "$1") : bare!.trim());
  }
  return out;
}
