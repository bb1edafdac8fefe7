/**
 * Checking a model config before anything is spent: the model built as a run builds it, where its
 * requests go, and what its endpoint answers to `GET <base>/models` (never a paid call).
 *
 * @module
 */
import { makeModel, MODEL_CLASSES, modelContext, type ModelDeps, type ModelRow } from "./classes.ts";
import type { EndpointCheck } from "./extra/_probe.ts";
import type { Endpoint } from "./_presets.ts";

export type { EndpointCheck } from "./extra/_probe.ts";
export type { Endpoint } from "./_presets.ts";

/** Where a model's requests go, and what its endpoint answered when asked. */
export interface ModelEndpoint {
  /** Where requests go: the base URL, the model name sent, the provider whose defaults apply. */
  endpoint: Endpoint;
  /** Where the key comes from (a variable's name, `model.model_kwargs.api_key`), or undefined. */
  keyFrom: string | undefined;
  /** What `GET <base>/models` answered (when asked). */
  check?: EndpointCheck;
}

/**
 * Check, without a paid call, what a run would build from a model config: the model as a run builds it
 * (a config error, a missing key or a cost limit that cannot be enforced throws here) and, for an HTTP
 * class, where its requests go; with `probe`, the endpoint is asked for its models (`GET <base>/models`).
 *
 * @returns undefined for a scripted class (no endpoint)
 * @throws {ConfigError} as {@link makeModel} does
 */
export async function checkModelEndpoint(
  config: Record<string, unknown>,
  costLimit: number,
  deps: ModelDeps,
  probe?: { timeoutMs?: number; signal?: AbortSignal },
  classes: Readonly<Record<string, ModelRow>> = MODEL_CLASSES,
): Promise<ModelEndpoint | undefined> {
  const context = modelContext(config, costLimit, deps, 0, classes);
  const module = await context.row.load();
  if (!module.httpClient) {
    // A script has no endpoint; a roulette's models are each checked when built.
    await makeModel(config, costLimit, deps, 0, classes);
    return undefined;
  }
  const { client } = await module.httpClient(context);
  const found: ModelEndpoint = { endpoint: client.endpoint, keyFrom: client.keyFrom };
  if (probe) found.check = await client.probe(probe.signal, probe.timeoutMs);
  return found;
}
