/**
 * The one place where a Responses API body from the wire becomes our own types (the Responses classes
 * are in `extra/`; this loads at the first such response).
 *
 * @module
 */
import type { Json } from "../../types.ts";
import { isPlainObject } from "../../../lib/json.ts";
import { MalformedBodyError, oneLine, parseJson, snippet } from "../_wire.ts";

/** A Responses API body, checked: the response object and what the clients read from it. */
export interface ParsedResponse {
  /** The whole response object (`object: "response"`, `output`, `status`, `usage`, ...). */
  body: { [key: string]: Json };
  /** The output items (messages, reasoning, function calls), as returned. */
  output: { [key: string]: Json }[];
  /** `status`, or `length` when it is `incomplete` for `max_output_tokens`, as upstream derives it. */
  finish_reason: string | null;
  /** Token counts as the provider reported them, if it did. */
  usage: { [key: string]: Json } | undefined;
}

/**
 * Parse and check a Responses API body: an object whose `output` is a list of items.
 *
 * @param text the body text
 * @throws {MalformedBodyError} when it is not JSON or not a response
 */
export function parseResponsesBody(text: string): ParsedResponse {
  let data: Json;
  try {
    data = parseJson(text);
  } catch {
    throw new MalformedBodyError(`Cannot parse response: body is not JSON (${snippet(text)})`);
  }
  if (!isPlainObject(data) || !Array.isArray(data.output) || !data.output.every(isPlainObject)) {
    const error = isPlainObject(data) && isPlainObject(data.error) ? data.error.message : undefined;
    const why = typeof error === "string" ? `: provider error: ${oneLine(error)}` : "";
    throw new MalformedBodyError(`Cannot parse response: body has no output list${why}`);
  }
  const status = typeof data.status === "string" ? data.status : null;
  const details = data.incomplete_details;
  const finish = status === "incomplete" && isPlainObject(details) && details.reason === "max_output_tokens"
    ? "length"
    : status;
  return {
    body: data,
    output: data.output as { [key: string]: Json }[],
    finish_reason: finish,
    usage: isPlainObject(data.usage) ? data.usage : undefined,
  };
}
