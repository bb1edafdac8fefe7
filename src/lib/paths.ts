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

/**
 * POSIX `path.resolve(cwd, path)` for an absolute `cwd`, without `node:path` (Node's compatibility
 * layer costs ~20 ms of start-up).
 */
export function absolutePath(path: string, cwd: string): string {
  const parts: string[] = [];
  for (const part of resolvePath(path, cwd).split("/")) {
    if (part === "..") parts.pop();
    else if (part !== "" && part !== ".") parts.push(part);
  }
  return `/${parts.join("/")}`;
}

/** POSIX `path.dirname()` of an absolute path. */
export function parentDir(path: string): string {
  return path.slice(0, path.lastIndexOf("/")) || "/";
}
