/**
 * Upstream's multimodal content (`model.multimodal_regex`): with a pattern set, the text of the
 * first messages and of every observation is split at each match into OpenAI-style content parts,
 * a match whose group 1 (stripped) is `image_url` becoming an image part with group 2 (stripped) as
 * its URL, as upstream's `expand_multimodal_content` does it. A command that prints
 * `<MSWEA_MULTIMODAL_CONTENT><CONTENT_TYPE>image_url</CONTENT_TYPE>data:image/png;base64,...</MSWEA_MULTIMODAL_CONTENT>`
 * (upstream's tags, {@link UPSTREAM_MULTIMODAL_REGEX}) shows the model that image.
 *
 * @module
 */
import { ConfigError } from "../../errors.ts";
import { expandText } from "../model.ts";
import type * as PyRegexModule from "../../../lib/python/pyregex/pyregex.ts";
import type { PyRegex } from "../../../lib/python/pyregex/pyregex.ts";

/** Upstream's `DEFAULT_MULTIMODAL_REGEX`: the tags its docs tell a command to print around an image. */
export const UPSTREAM_MULTIMODAL_REGEX =
  "(?s)<MSWEA_MULTIMODAL_CONTENT><CONTENT_TYPE>(.+?)</CONTENT_TYPE>(.+?)</MSWEA_MULTIMODAL_CONTENT>";

/**
 * Compile `model.multimodal_regex` (Python syntax, used as upstream's `re.finditer(pattern, text)`).
 * @param pattern the configured pattern ("" turns the expansion off: undefined)
 * @param re the Python-regex translator (loaded by the command layer when a config sets a pattern)
 * @throws {ConfigError} naming the key when Python would reject the pattern, claudius cannot
 *   translate it exactly, or it has fewer than the two groups the expansion reads
 */
export function compileMultimodalRegex(pattern: string, re: typeof PyRegexModule): PyRegex | undefined {
  if (pattern === "") return undefined;
  const { compilePyRegex, PyRegexError } = re;
  let regex: PyRegex;
  try {
    regex = compilePyRegex(pattern, { where: "model.multimodal_regex", flags: 0 });
  } catch (e) {
    if (e instanceof PyRegexError) throw new ConfigError(e.message, { cause: e });
    throw e;
  }
  if (regex.groups < 2) {
    throw new ConfigError(
      `Cannot use model.multimodal_regex ${JSON.stringify(pattern)}: it has ${regex.groups} capturing ` +
        "group(s), but each match is read as group 1 (the content type, e.g. image_url) and group 2 (the " +
        "content); upstream fails on its first match",
    );
  }
  return regex;
}

/**
 * Content expanded as upstream's `expand_multimodal_content` expands it: a string becomes its parts
 * (one text part when nothing matches), a list each of its items, a mapping its `content` (the rest
 * unchanged, key order kept), anything else its Python `str()`. The value given is not changed.
 *
 * @example
 * ```ts ignore
 * const re = await import("../../../lib/python/pyregex/pyregex.ts");
 * const regex = compileMultimodalRegex(UPSTREAM_MULTIMODAL_REGEX, re)!;
 * expandMultimodal("see <MSWEA_MULTIMODAL_CONTENT><CONTENT_TYPE>image_url</CONTENT_TYPE>https://x/a.png</MSWEA_MULTIMODAL_CONTENT>", regex);
 * // [{ type: "text", text: "see " }, { type: "image_url", image_url: { url: "https://x/a.png" } }]
 * ```
 */
export function expandMultimodal(content: unknown, regex: PyRegex): unknown {
  if (typeof content === "string") return expandText(content, regex);
  if (Array.isArray(content)) return content.map((item) => expandMultimodal(item, regex));
  if (typeof content === "object" && content !== null) {
    if (!("content" in content)) return structuredClone(content);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(content)) {
      out[k] = k === "content" ? expandMultimodal(v, regex) : structuredClone(v);
    }
    return out;
  }
  return pythonStr(content);
}

/** Python's `str()` of a scalar as JSON carries it (JSON does not tell `1.0` from `1`). */
function pythonStr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  return String(value);
}
