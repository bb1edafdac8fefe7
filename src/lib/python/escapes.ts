/**
 * Python's one-character string escapes (`\n`, `\t`, `\\`, ...), as its `unicode-escape` codec decodes
 * them: shared by the template engine's string literals and the `.env` reader's double-quoted values.
 *
 * @module
 */

/** The character after the backslash, and what the escape stands for. */
export const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};
