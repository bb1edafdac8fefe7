/**
 * The faces of the one program: `claudius`, and upstream's console scripts `mini`, `mini-swe-agent`
 * and `mini-extra` (`mini-e`), which claudius behaves as when started under their names. `main.ts`
 * reads the name (a wrapper's `CLAUDIUS_FACE`, else the program name the process was started as) and
 * hands it to the dispatcher.
 *
 * @module
 */

/** Every face: claudius's own, and upstream's console scripts. */
export const FACES = ["claudius", "mini", "mini-swe-agent", "mini-extra", "mini-e"] as const;

/** One face's name. */
export type Face = typeof FACES[number];

/** The variable an installed wrapper sets to choose a face (`deno install` shims cannot rename argv[0]). */
export const FACE_VARIABLE = "CLAUDIUS_FACE";

/**
 * The face a process was started as: `CLAUDIUS_FACE` when it names one, else the last path segment of
 * the program name (a compiled binary started through a symlink `mini`), else `claudius`.
 *
 * @example
 * ```ts
 * import { faceOf } from "./face_names.ts";
 * faceOf("/usr/local/bin/mini-swe-agent", undefined); // "mini-swe-agent"
 * faceOf("deno", "mini"); // "mini"
 * faceOf("deno", undefined); // "claudius"
 * ```
 * @throws {TypeError} when `CLAUDIUS_FACE` is set to a name that is no face
 */
export function faceOf(argv0: string, variable: string | undefined): Face {
  if (variable) {
    if (isFace(variable)) return variable;
    throw new TypeError(`${FACE_VARIABLE}=${variable} names no face (one of ${FACES.join(", ")})`);
  }
  const name = argv0.slice(argv0.lastIndexOf("/") + 1);
  return isFace(name) ? name : "claudius";
}

function isFace(name: string): name is Face {
  return (FACES as readonly string[]).includes(name);
}

/**
 * Whether `execPath` is the `deno` executable (a `deno run` process: a checkout's or an install's)
 * rather than a compiled binary of claudius.
 *
 * @example
 * ```ts
 * import { isDenoExecutable } from "./face_names.ts";
 * isDenoExecutable("/usr/bin/deno"); // true
 * isDenoExecutable("/usr/local/bin/claudius"); // false
 * ```
 */
export function isDenoExecutable(execPath: string): boolean {
  return /(^|\/)deno$/.test(execPath);
}

/**
 * The name a process was started as, when it can differ from Deno's: a `deno run` process is always
 * `deno` (its wrapper sets {@link FACE_VARIABLE}); a compiled binary, perhaps started through a symlink
 * `mini`, is asked (Node's `process.argv0`, loaded only then: it costs ~3 MB of memory).
 *
 * @param execPath `Deno.execPath()`
 */
export async function programName(execPath: string): Promise<string> {
  if (isDenoExecutable(execPath)) return "deno";
  const { default: process } = await import("node:process");
  return process.argv0;
}

/** Upstream's faces: the mini-swe-agent console scripts (`mini-e` is `mini-extra`). */
export function isUpstreamFace(face: Face): boolean {
  return face !== "claudius";
}
