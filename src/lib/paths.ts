/**
 * Paths as claudius resolves them: relative to a working directory it is given, never to the process's.
 *
 * @module
 */

/**
 * `path` against `cwd` unless absolute.
 *
 * @example
 * ```ts
 * import { resolvePath } from "./paths.ts";
 * resolvePath("runs/a.json", "/home/me"); // "/home/me/runs/a.json"
 * ```
 */
export function resolvePath(path: string, cwd: string): string {
  return path.startsWith("/") ? path : `${cwd}/${path}`;
}
