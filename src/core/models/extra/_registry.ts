/**
 * Prices from a litellm model-registry file (`model.litellm_model_registry`, else
 * `$LITELLM_MODEL_REGISTRY_PATH`), the file upstream hands to `litellm.register_model`.
 *
 * @module
 */
import { errorMessage } from "../../../lib/errors.ts";
import { ConfigError } from "../../errors.ts";
import { readUtf8File } from "../../../lib/text_file.ts";
import type { Prices } from "../_cost.ts";
import { isPlainObject } from "../../../lib/json.ts";

const PRICE_KEYS = [
  "input_cost_per_token",
  "output_cost_per_token",
  "cache_read_input_token_cost",
  "cache_creation_input_token_cost",
] as const;

/** What a registry gives a model: its prices, or a note saying why it gives none. */
export type RegistryResult = { prices: Prices } | { note: string };

/**
 * The registry's prices for `model` (its whole name, else the name after its provider prefix). A
 * path that is not a file (missing, a directory) is skipped, as upstream registers the file only
 * `if Path(registry).is_file()`.
 *
 * @param path the registry file (already resolved against the working directory)
 * @param from where the path came from, for messages (`model.litellm_model_registry`)
 * @returns the prices, or the note to log when the file is skipped or has no entry for the model
 * @throws {ConfigError} an unreadable file, not a JSON object, or an entry without both prices
 */
export async function registryPrices(path: string, from: string, model: string): Promise<RegistryResult> {
  let info: Deno.FileInfo | undefined;
  try {
    info = await Deno.stat(path);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) {
      throw new ConfigError(`Cannot read ${from} '${path}': ${errorMessage(e)}`);
    }
  }
  if (info === undefined || !info.isFile) {
    return {
      note: `note: ${from} '${path}' ${info === undefined ? "does not exist" : "is not a file"}; skipped, ` +
        "as upstream skips it (prices from the provider or the price database)",
    };
  }
  let data: unknown;
  try {
    data = JSON.parse(await readUtf8File(path));
  } catch (e) {
    throw new ConfigError(`Cannot read ${from} '${path}': ${errorMessage(e)}`);
  }
  if (!isPlainObject(data)) {
    throw new ConfigError(`Cannot use ${from} '${path}': it is not a JSON object of models`);
  }
  const registry = data;
  const name = Object.hasOwn(registry, model) ? model : model.slice(model.indexOf("/") + 1);
  if (!Object.hasOwn(registry, name)) {
    return { note: `note: ${from} has no entry for "${model}"; prices from the provider or database` };
  }
  const entry = registry[name];
  const prices: Partial<Record<(typeof PRICE_KEYS)[number], number>> = {};
  for (const key of PRICE_KEYS) {
    const v = isPlainObject(entry) ? entry[key] : undefined;
    if (v === undefined || v === null) continue;
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
      throw new ConfigError(`Cannot use ${from} '${path}': "${name}".${key} must be a number >= 0`);
    }
    prices[key] = v;
  }
  const { input_cost_per_token, output_cost_per_token } = prices;
  if (input_cost_per_token === undefined || output_cost_per_token === undefined) {
    throw new ConfigError(
      `Cannot use ${from} '${path}': "${name}" needs input_cost_per_token and output_cost_per_token`,
    );
  }
  return { prices: { ...prices, input_cost_per_token, output_cost_per_token } };
}
