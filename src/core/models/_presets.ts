/**
 * Where one configured model's requests go: the provider its name's prefix selects (see
 * `providers.ts`), the endpoint (config, then `model_kwargs.api_base`, then the provider's variables,
 * then its default) and the variables its key may be in. Another provider is another base URL, not
 * another class.
 *
 * @module
 */
import { ConfigError } from "../errors.ts";
import type { Json } from "../types.ts";
import {
  AZURE_API_VERSION,
  type CostReporting,
  OPENAI_BASE_ENV,
  type Protocol,
  type Provider,
  PROVIDERS,
} from "./providers.ts";

export type { CostReporting } from "./providers.ts";

/** Where and how to send requests for one configured model. */
export interface Endpoint {
  /** Base URL without a trailing slash; requests go to `routeUrl(baseUrl, route)`. */
  baseUrl: string;
  /** What chose the base URL, for messages: `model.base_url`, `$OPENAI_API_BASE`, `the openai default`. */
  baseFrom: string;
  /** The model name sent in the body (a known provider prefix removed). */
  model: string;
  /** The provider prefix that picked the defaults (`openai` for a bare name), undefined for other servers. */
  provider: string | undefined;
  /** The variables the key may be in, the first one set winning (empty: no key). */
  keyEnv: readonly string[];
  /** Which API the provider speaks. */
  protocol: Protocol;
  /** Whether the provider reports each call's cost. */
  reportsCost: CostReporting;
  /** Extra body fields the provider needs (see {@link Provider.body}). */
  body: { [key: string]: Json };
  /** Whole URLs of routes that are not `<baseUrl>/<route>` (Azure's); `models: null` is never asked. */
  routes?: { chat?: string; responses?: string; models?: string };
  /** The header the key goes in, and the variables whose value is a bearer token (see {@link Provider.keyHeader}). */
  keyHeader?: { name: string; bearerEnv: readonly string[] };
}

/** What decides a model's endpoint. */
export interface EndpointInput {
  /** `model.model_name`. */
  modelName: string;
  /** `model.base_url` (or `--base-url`). */
  baseUrl?: string | undefined;
  /** `model.model_kwargs.api_base` (or `base_url`). */
  kwargBaseUrl?: string | undefined;
  /** `model.api_key_env`. */
  apiKeyEnv?: string | undefined;
  /** `model.model_kwargs.custom_llm_provider`: the provider, whatever the name's prefix says. */
  provider?: string | undefined;
  /** The environment (the provider's variables). */
  env?: Readonly<Record<string, string | undefined>>;
  /** `model.model_kwargs.api_version` (Azure). */
  apiVersion?: string | undefined;
}

/**
 * Resolve the endpoint of a model, as litellm resolves it. The provider is `custom_llm_provider` when
 * set (litellm prefixes the name with it unless it already starts so), else the name's prefix, which
 * is stripped before sending; a name without one is Anthropic's when it starts with `claude-` and
 * OpenAI's otherwise. The base URL is the first of: `model.base_url`, `model_kwargs.api_base`, the
 * provider's variables (see `PROVIDERS`), its default. A name whose first segment is no provider (e.g.
 * `Qwen/Qwen3-8B`) is sent whole and needs a base URL; it gets no key unless `api_key_env` names one.
 *
 * @throws {ConfigError} when no base URL can be found or it is not an http(s) URL
 */
export function resolveEndpoint(input: EndpointInput): Endpoint {
  const env = input.env ?? {};
  let name = input.modelName;
  if (input.provider !== undefined && name.split("/")[0] !== input.provider) {
    name = `${input.provider}/${name}`;
  }
  const slash = name.indexOf("/");
  const prefix = slash > 0 ? name.slice(0, slash) : "";
  let provider = Object.hasOwn(PROVIDERS, prefix) ? prefix : undefined;
  if (input.provider !== undefined && provider === undefined) {
    throw new ConfigError(
      `Cannot configure model: model.model_kwargs.custom_llm_provider ${JSON.stringify(input.provider)} is ` +
        `not a provider claudius knows (${Object.keys(PROVIDERS).join(", ")})`,
    );
  }
  const prefixed = provider ? PROVIDERS[provider]!.modelPrefix : undefined;
  const bare = provider ? name.slice(slash + 1) : name;
  const model = prefixed && !bare.startsWith(prefixed.unless) ? `${prefixed.add}${bare}` : bare;
  const explicit = input.baseUrl !== undefined
    ? { url: input.baseUrl, from: "model.base_url" }
    : input.kwargBaseUrl !== undefined
    ? { url: input.kwargBaseUrl, from: "model.model_kwargs.api_base" }
    : undefined;
  // No prefix and no URL: litellm's own model lists (Claude's names are Anthropic's, the rest OpenAI's).
  // No prefix with a URL is an unknown server: no default key (an OpenAI key must not leak to it).
  if (provider === undefined && explicit === undefined && slash < 0) {
    provider = /^claude-/.test(name) ? "anthropic" : "openai";
  }
  const preset: Provider | undefined = provider === undefined ? undefined : PROVIDERS[provider];
  const found = explicit ?? (preset ? fromEnv(preset, env) : undefined);
  const base = found ??
    (preset && preset.baseUrl !== "" ? { url: preset.baseUrl, from: `the ${provider} default` } : undefined);
  if (base === undefined && preset !== undefined) {
    throw new ConfigError(
      `Cannot configure model: "${input.modelName}" needs the endpoint of your resource: set ` +
        `${preset.baseEnv.join(" or ")} (e.g. https://RESOURCE.openai.azure.com), or model.base_url`,
    );
  }
  if (base === undefined) {
    throw new ConfigError(
      `Cannot configure model: "${input.modelName}" has no known provider prefix (${
        Object.keys(PROVIDERS).join(", ")
      }); set model.base_url to the server's OpenAI-compatible URL (e.g. http://127.0.0.1:8000/v1)`,
    );
  }
  checkUrl(base.url, base.from);
  const keyEnv = input.apiKeyEnv !== undefined
    ? [input.apiKeyEnv]
    : preset === undefined
    ? []
    : found !== undefined && OPENAI_BASE_ENV.includes(found.from.slice(1)) && preset.openaiFallback
    ? [...preset.keyEnv, "OPENAI_API_KEY"]
    : preset.keyEnv;
  const endpoint: Endpoint = {
    baseUrl: base.url.replace(/\/+$/, ""),
    baseFrom: base.from,
    model,
    provider,
    keyEnv,
    protocol: preset?.protocol ?? "chat",
    // Another server behind a paid provider's name (a proxy, a test server) may well report cost.
    reportsCost: found !== undefined && preset && !preset.local && !preset.azure
      ? "unknown"
      : preset?.reportsCost ?? "unknown",
    body: preset?.body ?? {},
  };
  if (preset?.keyHeader) endpoint.keyHeader = { name: preset.keyHeader, bearerEnv: preset.bearerEnv ?? [] };
  if (preset?.azure) {
    endpoint.routes = azureRoutes(endpoint.baseUrl, model, input.apiVersion ?? env.AZURE_API_VERSION);
  }
  return endpoint;
}

/**
 * Azure OpenAI's routes, as litellm builds them: chat completions under the deployment
 * (`<resource>/openai/deployments/<name>/chat/completions?api-version=...`, default
 * {@link AZURE_API_VERSION}), the Responses API at `<resource>/openai/responses` (default api-version
 * `preview`); the v1 versions (`preview`, `latest`) go under `/openai/v1`.
 */
function azureRoutes(base: string, deployment: string, version: string | undefined) {
  const url = new URL(base);
  const root = url.pathname.replace(/\/openai(\/.*)?$/, "").replace(/\/+$/, "");
  const query = (v: string) => {
    const q = new URLSearchParams(url.search);
    if (!q.has("api-version")) q.set("api-version", v);
    return `?${q}`;
  };
  const v1 = (v: string) => v === "preview" || v === "latest";
  const at = (path: string, v: string) =>
    `${url.origin}${root}/openai${v1(v) ? "/v1" : ""}${path}${query(v)}`;
  const chatVersion = version ?? AZURE_API_VERSION;
  const chat = v1(chatVersion)
    ? at("/chat/completions", chatVersion)
    : at(`/deployments/${encodeURIComponent(deployment)}/chat/completions`, chatVersion);
  return { chat, responses: at("/responses", version ?? "preview"), models: at("/models", chatVersion) };
}

/** The base URL a provider's variables give, and the variable (as `$NAME`), or undefined. */
function fromEnv(
  preset: Provider,
  env: Readonly<Record<string, string | undefined>>,
): { url: string; from: string } | undefined {
  for (const name of preset.baseEnv) {
    const value = env[name]?.trim();
    if (value) {
      const path = preset.baseEnvPath;
      const url = path && !value.replace(/\/+$/, "").endsWith(path)
        ? `${value.replace(/\/+$/, "")}${path}`
        : value;
      return { url, from: `$${name}` };
    }
  }
  if (!preset.openaiFallback) return undefined;
  for (const name of OPENAI_BASE_ENV) {
    const value = env[name]?.trim();
    if (value) return { url: value, from: `$${name}` };
  }
  return undefined;
}

function checkUrl(value: string, from: string): void {
  const where = from.startsWith("$") ? from.slice(1) : from;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`Cannot configure model: ${where} ${JSON.stringify(value)} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`Cannot configure model: ${where} must be an http(s) URL, got ${url.protocol}`);
  }
}

/**
 * The URL of an API route under a base URL: the route extends the path, before any query string.
 *
 * @example
 * ```ts
 * import { routeUrl } from "./_presets.ts";
 * routeUrl("https://gw.example/v1?api-version=1", "/chat/completions"); // "https://gw.example/v1/chat/completions?api-version=1"
 * ```
 */
export function routeUrl(baseUrl: string, route: string): string {
  const url = new URL(baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}${route}`;
  return url.href;
}
