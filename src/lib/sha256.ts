/**
 * The sha256 digest of bytes or of a text's UTF-8, as lower-case hex (config files are named by it).
 *
 * @module
 */

/**
 * The sha256 of bytes, as lower-case hex.
 *
 * @example
 * ```ts
 * import { sha256Hex } from "./sha256.ts";
 * await sha256Hex(new TextEncoder().encode("")); // "e3b0c442...b855"
 * ```
 */
export async function sha256Hex(bytes: Uint8Array | string): Promise<string> {
  const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", data as BufferSource));
  return Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
}
