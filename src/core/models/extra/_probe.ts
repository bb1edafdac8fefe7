/**
 * Checking an endpoint without a paid call: `GET` its model list (`<base>/models`, Anthropic's
 * `<base>/v1/models`) with the key a run would send, and say in one line what it answered or what is
 * wrong and what to check.
 *
 * @module
 */
import { ApiError } from "../../errors.ts";
import type { Endpoint } from "../_presets.ts";
import { TransientError } from "./_retry.ts";
import type { Transport } from "../_transport.ts";
import { retryAdvice } from "../_http.ts";
import type { EndpointCheck } from "../model_class.ts";
import { isPlainObject } from "../../../lib/json.ts";

export type { EndpointCheck };

/** How long a check waits for the answer, ms. */
export const CHECK_TIMEOUT_MS = 10_000;

/** What the check needs from the client. */
export interface ProbeTarget {
  transport: Transport;
  endpoint: Endpoint;
  /** `GET` this. */
  url: string;
  /** What to do about a refused key (`set OPENAI_API_KEY`, `check OPENAI_API_KEY`). */
  authHint: string;
  keyFrom: string | undefined;
  /** The list names what the model name does not (Azure lists models, not deployments): any list is ok. */
  unrelatedList?: boolean;
}

/** The model ids of a list answer (`{data: [{id}]}`, OpenAI's and Anthropic's shape), or undefined. */
function modelIds(text: string): string[] | undefined {
  try {
    const data = JSON.parse(text);
    const list = isPlainObject(data) && Array.isArray(data.data) ? data.data : undefined;
    return list?.flatMap((m) => (isPlainObject(m) && typeof m.id === "string" ? [m.id] : []));
  } catch {
    return undefined;
  }
}

/**
 * Ask the endpoint for its models, once, within `timeoutMs`.
 * @param ids reads the model ids of another API's list (Bedrock's `modelSummaries`); default OpenAI's shape
 * @returns what it answered; never throws for what the endpoint did (an abort is rethrown)
 */
export async function probeEndpoint(
  target: ProbeTarget,
  signal?: AbortSignal,
  timeoutMs = CHECK_TIMEOUT_MS,
  readIds: (text: string) => string[] | undefined = modelIds,
): Promise<EndpointCheck> {
  const { url, endpoint, keyFrom } = target;
  const check = (level: EndpointCheck["level"], text: string): EndpointCheck => ({
    url,
    level,
    text,
    keyFrom,
  });
  let answer: { status: number; text: string };
  try {
    answer = await target.transport.get(url, timeoutMs, signal);
  } catch (e) {
    if (signal?.aborted) throw e;
    const error = e instanceof TransientError
      ? e
      : new TransientError(e instanceof Error ? e.message : String(e));
    const what = e instanceof ApiError ? e.message : `${error.message}; ${retryAdvice(error, endpoint)}`;
    // No server there is certain; a slow answer or a cut connection may pass.
    return check(error.unreachable ? "error" : "warning", `GET ${url}: ${what}`);
  }
  const { status, text } = answer;
  const head = `GET ${url}: HTTP ${status}`;
  if (status === 401) return check("error", `${head}, the key was refused (${target.authHint})`);
  if (status === 403) return check("warning", `${head}: this key may not list models (a restricted key?)`);
  if (status === 404) {
    return check(
      "warning",
      `${head}: a server answers, without a model list there; check that the base URL ends where the ` +
        `API starts (often .../v1), from ${endpoint.baseFrom}`,
    );
  }
  if (status < 200 || status > 299) return check("warning", head);
  let ids: string[] | undefined;
  try {
    ids = readIds(text);
  } catch {
    ids = undefined;
  }
  if (ids === undefined) {
    return check("warning", `${head}, but not a model list: is this the API's base URL?`);
  }
  if (target.unrelatedList) {
    return check(
      "ok",
      `${head}, the key is accepted (the list is of the resource's models, not its deployments)`,
    );
  }
  const listed = ids.includes(endpoint.model) || ids.some((id) => id.endsWith(`/${endpoint.model}`));
  const count = `${ids.length} model${ids.length === 1 ? "" : "s"}`;
  if (ids.length === 0) return check("ok", `${head}, an empty model list`);
  if (listed) return check("ok", `${head}, ${count}, ${endpoint.model} among them`);
  const near = ids.filter((id) => id.includes(endpoint.model.split(/[-:]/)[0] ?? "")).slice(0, 3);
  const hint = near.length ? ` (${near.join(", ")}, ...)` : "";
  return check("warning", `${head}, ${count}, ${endpoint.model} not among them${hint}`);
}
