/**
 * Checks before anything is spent: the model a config names is built as a run builds it (an unknown
 * class, a missing model name or key is a config error now, not after the task was typed), and its
 * endpoint is asked for its model list (`GET <base>/models`, never a paid call).
 *
 * @module
 */
import type { ResolvedConfig } from "../core/config/load.ts";
import { ConfigError } from "../core/errors.ts";
import type { Host } from "../core/host.ts";
import { checkModelEndpoint, type ModelEndpoint } from "../core/models/check_endpoint.ts";

/** What the check found (undefined for a model with no endpoint: a scripted one). */
export type EndpointReport = ModelEndpoint | undefined;

/**
 * Build the config's model as a run would; with `probe`, ask its endpoint for its models.
 * @throws {ConfigError} for a model a run would refuse (unknown class, no name, no key, bad value)
 */
export async function checkEndpoint(
  config: ResolvedConfig,
  host: Host,
  probe?: { timeoutMs?: number },
): Promise<EndpointReport> {
  const deps = { hostEnv: host.env, log: () => {}, cwd: host.cwd };
  const costLimit = typeof config.agent.cost_limit === "number" ? config.agent.cost_limit : 0;
  return await checkModelEndpoint(config.model, costLimit, deps, probe);
}

/** How long the check before the task prompt waits for the endpoint, ms (a slow one is a warning). */
const BEFORE_PROMPT_MS = 5000;

/** `https://api.openai.com/v1 (from the openai default), key from OPENAI_API_KEY`. */
export function describeEndpoint(report: ModelEndpoint): string {
  const { endpoint, keyFrom } = report;
  const cloud = endpoint.protocol === "bedrock" || endpoint.protocol === "vertex";
  const key = keyFrom
    ? `${cloud ? "credentials" : "key"} from ${keyFrom}`
    : endpoint.keyEnv.length
    ? `no key (${endpoint.keyEnv.join(", ")} unset)`
    : "no key";
  return `${endpoint.baseUrl} (from ${endpoint.baseFrom}), ${key}`;
}

/**
 * Before the task prompt: the model, its key and its endpoint, so that what would end the run is said
 * before the task is typed. An endpoint where no server answers, or that refuses the key, ends it here;
 * an answer other than a model list is a warning.
 * @throws {ConfigError} naming what is wrong and what to check
 */
export async function checkBeforePrompt(config: ResolvedConfig, host: Host): Promise<void> {
  const check = (await checkEndpoint(config, host, { timeoutMs: BEFORE_PROMPT_MS }))?.check;
  if (!check || check.level === "ok") return;
  if (check.level === "warning") return host.err(`warning: ${check.text}`);
  throw new ConfigError(`Cannot start the run: ${check.text}`);
}
