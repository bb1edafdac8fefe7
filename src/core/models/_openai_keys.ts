/**
 * The `model:` keys of the HTTP model classes (one definition each: type, default, doc).
 *
 * @module
 */
import type { ConfigOf, Keys } from "../config/keys.ts";

/** Deadline of one request attempt when neither `request_timeout` nor `model_kwargs.timeout` is set. */
export const DEFAULT_REQUEST_TIMEOUT = 600;

/** The `model:` keys the HTTP client reads. */
export const OPENAI_KEYS = {
  model_name: {
    type: "string",
    required: "pass -m MODEL or set model.model_name",
    envVar: "MSWEA_MODEL_NAME",
    check: (v) => (v === "" ? "must not be empty" : undefined),
    doc: "Model id, optionally with a provider prefix that picks `base_url` and `api_key_env` when they " +
      "are unset (see Providers below); a known prefix is stripped before sending.",
  },
  model_kwargs: {
    type: "object",
    default: {},
    doc: "What upstream passes to `litellm.completion`: request parameters (`temperature`, `max_tokens`, " +
      "`reasoning_effort`, ...) are sent, translated for the API as litellm translates them; litellm's own " +
      "are interpreted and never sent: `api_key` (the key, or `os.environ/NAME` for a variable's value; " +
      "redacted wherever it is written), `api_base`/`base_url`, `custom_llm_provider` (the provider, whatever " +
      "the name's prefix), `drop_params` (drop parameters the model does not take instead of refusing them), " +
      "`allowed_openai_params` (send them anyway), `extra_headers` (they win over the key's header), " +
      "`extra_body` (merged into the body), `timeout`/`request_timeout`, `input_cost_per_token`/" +
      "`output_cost_per_token`; other litellm-only keys (`num_retries`, `caching`, ...) are ignored with a " +
      "warning.",
  },
  reasoning_effort: {
    type: "string|null",
    defaultDoc: "unset",
    doc: "How hard a reasoning model thinks (`minimal`, `low`, `medium`, `high`, ...), as " +
      "`model_kwargs.reasoning_effort` (which wins when both are set): chat completions get " +
      "`reasoning_effort`, the Responses API `reasoning: {effort}`, Anthropic a thinking budget (or " +
      "adaptive thinking and `output_config.effort` from Claude 4.6 on), as litellm maps it.",
  },
  base_url: {
    type: "string",
    defaultDoc: "from the prefix",
    check: (v) => (v === "" ? "must not be empty" : undefined),
    doc: "The endpoint (`--base-url`); requests go to `<base_url>/chat/completions` (Anthropic: " +
      "`<base_url>/v1/messages`; the path goes before a query string: `https://gw.example/v1?api-version=1` " +
      "works). Wins over `model_kwargs.api_base` and the provider's variables (see Providers).",
  },
  api_key_env: {
    type: "string",
    defaultDoc: "from the prefix",
    check: (v) => (v === "" ? "must not be empty" : undefined),
    doc: "Name of the variable holding the API key (instead of the provider's, see Providers); no key is " +
      "sent when it is unset or empty. `model_kwargs.api_key` wins over it.",
  },
  request_timeout: {
    type: "number",
    min: 0,
    defaultDoc: `\`model_kwargs.timeout\`, else ${DEFAULT_REQUEST_TIMEOUT}`,
    doc: "Deadline of one request attempt, seconds; 0 = none (also for `model_kwargs.timeout`).",
  },
  retry_attempts: {
    type: "int",
    default: 10,
    min: 1,
    envVar: "MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT",
    doc: "Attempts per query, the first included; retried: 408, 409, 429, 5xx, network errors, missed " +
      "deadlines, bodies that are not JSON, provider errors in a 200 body (unless their code is a 4xx); " +
      "never 400/401/403/404, never a served completion (an odd shape is a format error).",
  },
  retry_base_delay: {
    type: "number",
    default: 1,
    min: 0,
    doc: "First backoff, seconds (doubles, full jitter); `retry-after-ms`, else `Retry-After`, is honoured.",
  },
  retry_max_delay: {
    type: "number",
    default: 60,
    min: 0,
    doc: "Longest wait between attempts (also caps `retry-after-ms` and `Retry-After`), seconds.",
  },
  input_cost_per_token: {
    type: "number",
    min: 0,
    doc: "Dollars per prompt token, used when the provider reports no cost; configured prices win over " +
      "the price database (see Providers and cost).",
  },
  output_cost_per_token: { type: "number", min: 0, doc: "Dollars per completion token." },
  cache_read_input_token_cost: {
    type: "number",
    min: 0,
    defaultDoc: "`input_cost_per_token`",
    doc: "Dollars per prompt token read from the provider's cache.",
  },
  cache_creation_input_token_cost: {
    type: "number",
    min: 0,
    defaultDoc: "`input_cost_per_token`",
    doc: "Dollars per prompt token written to the provider's cache.",
  },
  litellm_model_registry: {
    type: "string|null",
    defaultDoc: "`$LITELLM_MODEL_REGISTRY_PATH`",
    doc: 'A litellm model-registry JSON file (`{"<model>": {"input_cost_per_token": ..., ' +
      '"output_cost_per_token": ...}}`, as upstream registers with litellm): the prices of `model_name` ' +
      "(the entry of the whole name, else of the name without its provider prefix) when " +
      "`input_cost_per_token` and `output_cost_per_token` are unset.",
  },
  stream: {
    type: "bool",
    default: false,
    doc: "Ask for a streamed reply (`stream: true`) and show it as it arrives at a terminal; the saved " +
      "message and response are those of a non-streamed request. Off: the request bytes stay upstream's.",
  },
  cost_tracking: {
    type: "string",
    default: "default",
    values: ["default", "ignore_errors"],
    envVar: "MSWEA_COST_TRACKING",
    doc: "`ignore_errors`: an unknown cost is 0, with no warning and no stop at a cost limit.",
  },
} as const satisfies Keys;

/** The resolved `model:` keys of the HTTP client. */
export type OpenAIClientConfig = ConfigOf<typeof OPENAI_KEYS>;
