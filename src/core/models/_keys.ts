/**
 * The `model:` keys of the model classes beyond the chat model's own (`CHAT_MODEL_KEYS` in
 * `model.ts`): the HTTP client's, the scripted classes', Portkey's and the meta models', in one file
 * the registry (`classes.ts`) reads at start-up without loading the classes in `extra/`. One
 * definition each: type, default, doc.
 *
 * @module
 */
import type { ConfigOf, Keys } from "../config/keys.ts";
import { CHAT_MODEL_KEYS } from "./model.ts";
import { isPlainObject } from "../../lib/json.ts";

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

/** The `model:` keys of `scripted` and `scripted_textbased`. */
export const SCRIPTED_KEYS = {
  model_name: { type: "string", default: "scripted", doc: "Echoed as the responses' `model`." },
  script: { type: "string", doc: "Scripted models: a YAML or JSON file of replies (see `examples/`)." },
  replies: { type: "list", doc: "Scripted models: the replies inline." },
} as const satisfies Keys;

/** The `model:` keys of `model_class: portkey` beyond the HTTP client's. */
export const PORTKEY_KEYS = {
  provider: {
    type: "string",
    default: "",
    doc: "Sent as `x-portkey-provider` (e.g. `@openai`) when `PORTKEY_VIRTUAL_KEY` is not set.",
  },
} as const satisfies Keys;

const ENTRIES = {
  type: "list",
  nonEmpty: true,
  required: "list the models to choose from, one model config each: [{model_name: ...}, ...]",
  check: (v: unknown[]) =>
    v.every((e) => isPlainObject(e))
      ? undefined
      : "must be a list of model configs (mappings with model_name, ...)",
  doc: "The models to choose from, each a model config of its own (`model_name`, `model_class`, " +
    "`model_kwargs`, ...); the templates set beside this list are each entry's defaults.",
} as const;

/** The `model:` keys of `model_class: roulette`. */
export const ROULETTE_KEYS = {
  ...CHAT_MODEL_KEYS,
  model_kwargs: ENTRIES,
  model_name: { type: "string", default: "roulette", doc: "Recorded as the model's name." },
} as const satisfies Keys;

/** The `model:` keys of `model_class: interleaving`. */
export const INTERLEAVING_KEYS = {
  ...ROULETTE_KEYS,
  model_name: { type: "string", default: "interleaving", doc: "Recorded as the model's name." },
  sequence: {
    type: "list",
    check: (v) =>
      v.every((i) => Number.isInteger(i) && Number(i) >= 0) ? undefined : "must list model indices",
    doc: "The order the models answer in, as indices into `model_kwargs` (`[0, 0, 1]`: the first twice, " +
      "then the second, then again); default: each in turn.",
  },
} as const satisfies Keys;
