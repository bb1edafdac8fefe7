/**
 * The providers a model name's prefix selects (as litellm spells them), in one table: where requests
 * go, which environment variables say otherwise (in litellm's order), which hold the key, and which
 * wire protocol is spoken. The help and the README's provider table are rendered from it
 * (`provider_docs.ts`).
 *
 * @module
 */
import type { Json } from "../types.ts";

/** Whether a provider puts the call's price in `usage.cost`. */
export type CostReporting = "yes" | "no" | "unknown";

/**
 * The wire protocol of a provider: OpenAI's chat completions, Anthropic's Messages API, Bedrock's
 * Converse API, or Vertex AI (Claude's Messages API at `:rawPredict`, the other models' OpenAI-compatible
 * chat completions).
 */
export type Protocol = "chat" | "anthropic" | "bedrock" | "vertex";

/** A setting other than the endpoint and the key that a provider reads from the environment. */
export interface ProviderSetting {
  /** What it sets (`api-version`, `region`, `project`). */
  what: string;
  /** The variables, the first one set winning. */
  env: readonly string[];
  /** The value when none is set (absent: it must be set). */
  default?: string;
}

/** One provider's defaults. */
export interface Provider {
  /** Where requests go when nothing else says. */
  baseUrl: string;
  /** Variables naming the base URL, the first one set winning (litellm's lookup order). */
  baseEnv: readonly string[];
  /**
   * Appended to a base URL taken from a variable when the variable names the server's root rather
   * than its OpenAI-compatible path (Ollama's and Gemini's variables do).
   */
  baseEnvPath?: string;
  /** Variables holding the key, the first one set winning; none for local servers that need none. */
  keyEnv: readonly string[];
  /**
   * After its own variables, the base URL may come from `OPENAI_BASE_URL` / `OPENAI_API_BASE` (litellm
   * falls back to them for OpenAI-compatible servers it knows no address of); the key then comes from
   * `OPENAI_API_KEY`, the variable that goes with them.
   */
  openaiFallback?: boolean;
  /** Which API the provider speaks. */
  protocol: Protocol;
  /** Whether the provider reports each call's cost (else prices must be configured to enforce a cost limit). */
  reportsCost: CostReporting;
  /** A server on the user's own machine or network (never costs money, whatever its address). */
  local?: boolean;
  /** Extra body fields the provider needs (OpenRouter: `usage: {include: true}` to report cost). */
  body?: { [key: string]: Json };
  /** The header the key goes in (`api-key` for Azure); default `Authorization: Bearer`. */
  keyHeader?: string;
  /** Key variables whose value is a bearer token whatever {@link keyHeader} says (`AZURE_AD_TOKEN`). */
  bearerEnv?: readonly string[];
  /** Prepended to the model name unless it already starts so (Fireworks' `accounts/fireworks/models/`). */
  modelPrefix?: { add: string; unless: string };
  /** Requests go under `<base>/openai/deployments/<name>` with an `api-version` (Azure OpenAI). */
  azure?: boolean;
  /** Credentials that are no key (SigV4, Google's OAuth): what to set, in one sentence. */
  credentials?: string;
  /** Other settings read from the environment. */
  settings?: readonly ProviderSetting[];
  /** The endpoint as a pattern, for the help (`https://bedrock-runtime.REGION.amazonaws.com`). */
  shownUrl?: string;
}

/** What to set for Bedrock's credentials (the error when none are found says it too). */
export const AWS_CREDENTIALS: string =
  "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for " +
  "temporary credentials), or AWS_PROFILE naming a profile of ~/.aws/credentials or ~/.aws/config (static " +
  "keys or credential_process), or AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key)";

/** What to set for Google's application default credentials (the error when none are found says it too). */
export const GOOGLE_CREDENTIALS: string =
  "GOOGLE_APPLICATION_CREDENTIALS (or VERTEXAI_CREDENTIALS) naming a " +
  "service-account or authorized-user JSON file, or run 'gcloud auth application-default login' (the file " +
  "~/.config/gcloud/application_default_credentials.json)";

/** litellm's default Azure `api-version` for chat completions (its `AZURE_DEFAULT_API_VERSION`). */
export const AZURE_API_VERSION = "2025-02-01-preview";

/** The variables litellm falls back to for the base URL of an OpenAI-compatible server (see {@link Provider.openaiFallback}). */
export const OPENAI_BASE_ENV: readonly string[] = ["OPENAI_BASE_URL", "OPENAI_API_BASE"];

/**
 * A local OpenAI-compatible server (no cost, a key only when a variable gives one); `openaiFallback`
 * for those litellm reads as OpenAI-compatible servers of no fixed address.
 */
function local(
  baseUrl: string,
  env: { base?: string[]; key?: string[]; path?: string; openaiFallback?: boolean } = {},
): Provider {
  return {
    baseUrl,
    baseEnv: env.base ?? [],
    keyEnv: env.key ?? [],
    protocol: "chat",
    reportsCost: "no",
    local: true,
    ...(env.path ? { baseEnvPath: env.path } : {}),
    ...(env.openaiFallback ? { openaiFallback: true } : {}),
  };
}

/** The providers, by model-name prefix. */
export const PROVIDERS: Readonly<Record<string, Provider>> = {
  openai: {
    baseUrl: "https://api.openai.com/v1",
    baseEnv: OPENAI_BASE_ENV,
    keyEnv: ["OPENAI_API_KEY"],
    protocol: "chat",
    reportsCost: "no",
  },
  anthropic: {
    baseUrl: "https://api.anthropic.com",
    baseEnv: ["ANTHROPIC_API_BASE", "ANTHROPIC_BASE_URL"],
    keyEnv: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
    protocol: "anthropic",
    reportsCost: "no",
  },
  openrouter: {
    baseUrl: "https://openrouter.ai/api/v1",
    baseEnv: ["OPENROUTER_API_BASE"],
    keyEnv: ["OPENROUTER_API_KEY", "OR_API_KEY"],
    protocol: "chat",
    reportsCost: "yes",
    body: { usage: { include: true } },
  },
  deepseek: {
    baseUrl: "https://api.deepseek.com/v1",
    baseEnv: ["DEEPSEEK_API_BASE"],
    keyEnv: ["DEEPSEEK_API_KEY"],
    protocol: "chat",
    reportsCost: "no",
  },
  moonshot: {
    baseUrl: "https://api.moonshot.ai/v1",
    baseEnv: ["MOONSHOT_API_BASE"],
    keyEnv: ["MOONSHOT_API_KEY"],
    protocol: "chat",
    reportsCost: "no",
  },
  gemini: {
    baseUrl: "https://generativelanguage.googleapis.com/v1beta/openai",
    baseEnv: ["GEMINI_API_BASE"],
    baseEnvPath: "/v1beta/openai",
    keyEnv: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    protocol: "chat",
    reportsCost: "no",
  },
  groq: {
    baseUrl: "https://api.groq.com/openai/v1",
    baseEnv: ["GROQ_API_BASE"],
    keyEnv: ["GROQ_API_KEY"],
    protocol: "chat",
    reportsCost: "no",
  },
  xai: {
    baseUrl: "https://api.x.ai/v1",
    baseEnv: ["XAI_API_BASE"],
    keyEnv: ["XAI_API_KEY"],
    protocol: "chat",
    reportsCost: "no",
  },
  azure: {
    baseUrl: "",
    baseEnv: ["AZURE_API_BASE", "AZURE_OPENAI_ENDPOINT"],
    keyEnv: ["AZURE_OPENAI_API_KEY", "AZURE_API_KEY", "AZURE_AD_TOKEN"],
    protocol: "chat",
    reportsCost: "no",
    keyHeader: "api-key",
    bearerEnv: ["AZURE_AD_TOKEN"],
    azure: true,
    settings: [{ what: "api-version", env: ["AZURE_API_VERSION"], default: AZURE_API_VERSION }],
    shownUrl: "https://RESOURCE.openai.azure.com/openai/deployments/DEPLOYMENT",
  },
  bedrock: {
    baseUrl: "https://bedrock-runtime.us-west-2.amazonaws.com",
    baseEnv: ["AWS_BEDROCK_RUNTIME_ENDPOINT"],
    keyEnv: [],
    protocol: "bedrock",
    reportsCost: "no",
    credentials: AWS_CREDENTIALS,
    settings: [{
      what: "region",
      env: ["AWS_REGION_NAME", "AWS_REGION", "AWS_DEFAULT_REGION"],
      default: "the profile's region, else us-west-2",
    }],
    shownUrl: "https://bedrock-runtime.REGION.amazonaws.com",
  },
  vertex_ai: {
    baseUrl: "https://us-central1-aiplatform.googleapis.com",
    baseEnv: ["VERTEXAI_API_BASE"],
    keyEnv: [],
    protocol: "vertex",
    reportsCost: "no",
    credentials: GOOGLE_CREDENTIALS,
    settings: [
      {
        what: "project",
        env: ["VERTEXAI_PROJECT", "VERTEX_PROJECT", "GOOGLE_CLOUD_PROJECT"],
        default: "the credentials file's project",
      },
      { what: "location", env: ["VERTEXAI_LOCATION", "VERTEX_LOCATION"], default: "us-central1" },
    ],
    shownUrl: "https://LOCATION-aiplatform.googleapis.com",
  },
  together_ai: {
    baseUrl: "https://api.together.xyz/v1",
    baseEnv: ["TOGETHER_AI_API_BASE"],
    keyEnv: ["TOGETHER_API_KEY", "TOGETHER_AI_API_KEY", "TOGETHERAI_API_KEY", "TOGETHER_AI_TOKEN"],
    protocol: "chat",
    reportsCost: "no",
  },
  mistral: {
    baseUrl: "https://api.mistral.ai/v1",
    baseEnv: ["MISTRAL_AZURE_API_BASE"],
    baseEnvPath: "/v1",
    keyEnv: ["MISTRAL_AZURE_API_KEY", "MISTRAL_API_KEY"],
    protocol: "chat",
    reportsCost: "no",
  },
  fireworks_ai: {
    baseUrl: "https://api.fireworks.ai/inference/v1",
    baseEnv: ["FIREWORKS_API_BASE"],
    keyEnv: ["FIREWORKS_API_KEY", "FIREWORKS_AI_API_KEY", "FIREWORKSAI_API_KEY", "FIREWORKS_AI_TOKEN"],
    protocol: "chat",
    reportsCost: "no",
    modelPrefix: { add: "accounts/fireworks/models/", unless: "accounts/" },
  },
  hosted_vllm: local("http://127.0.0.1:8000/v1", {
    base: ["HOSTED_VLLM_API_BASE"],
    key: ["HOSTED_VLLM_API_KEY"],
    openaiFallback: true,
  }),
  vllm: local("http://127.0.0.1:8000/v1"),
  ollama: local("http://127.0.0.1:11434/v1", { base: ["OLLAMA_API_BASE"], path: "/v1" }),
  ollama_chat: local("http://127.0.0.1:11434/v1", { base: ["OLLAMA_API_BASE"], path: "/v1" }),
  llamacpp: local("http://127.0.0.1:8080/v1"),
  lm_studio: local("http://127.0.0.1:1234/v1", {
    base: ["LM_STUDIO_API_BASE"],
    key: ["LM_STUDIO_API_KEY"],
    openaiFallback: true,
  }),
};
