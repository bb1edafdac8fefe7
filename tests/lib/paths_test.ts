/**
 * lib/paths.ts's absolutePath() and parentDir() agree with Node's POSIX `path.resolve` and `path.dirname`
 * (the reference here; claudius itself does not load `node:path`, whose compatibility layer costs a
 * default run ~20 ms of start-up).
 */
import { assertEquals } from "../_support/assert.ts";
import { dirname, resolve } from "node:path";
import { absolutePath, parentDir, resolvePath } from "../../src/lib/paths.ts";

const CASES: [string, string][] = [
  ["a", "/w"],
  ["", "/w"],
  [".", "/w/x/"],
  ["..", "/w"],
  ["../../..", "/w/x"],
  ["./a//b/./c/", "/w"],
  ["a/../../b", "/w/x"],
  ["/abs/../y", "/w"],
  ["//double", "/w"],
  ["/", "/w"],
  ["...", "/w"],
  ["a/..b/.c", "/"],
];

Deno.test("absolutePath() is path.resolve(cwd, path) for an absolute cwd", () => {
  for (const [path, cwd] of CASES) {
    assertEquals(absolutePath(path, cwd), resolve(cwd, path), `${path} in ${cwd}`);
  }
});

Deno.test("parentDir() is path.dirname() of an absolute path, up to the root", () => {
  for (const [path, cwd] of CASES) {
    const abs = absolutePath(path, cwd);
    assertEquals(parentDir(abs), dirname(abs), abs);
  }
  assertEquals(parentDir("/"), "/");
});

Deno.test("resolvePath() joins without folding (what the trajectory and messages show)", () => {
  assertEquals(resolvePath("a/../b", "/w"), "/w/a/../b");
  assertEquals(resolvePath("/x", "/w"), "/x");
});
