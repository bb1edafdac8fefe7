/**
 * The model classes, one row each: the name a config gives as `model.model_class` (upstream's names
 * included), the type its trajectories record, the keys it reads, one line of documentation, how it
 * writes its actions and the loader of its module (the classes in `extra/` are loaded only when a
 * config picks them); and the factory that builds the model a config names. Construction,
 * `claudius resume` and `replay` (recorded type -> class), `--help` and the config reference all read
 * these rows. A new class is its module and its row.
 *
 * @module
 */
import { ConfigError } from "../errors.ts";
import type { Model } from "../types.ts";
import { CHAT_MODEL_KEYS } from "./model.ts";
import { INTERLEAVING_KEYS, OPENAI_KEYS, PORTKEY_KEYS, ROULETTE_KEYS, SCRIPTED_KEYS } from "./_keys.ts";
import type { ModelContext, ModelDeps, ModelRow } from "./model_class.ts";

export type {
  HttpModelClient,
  ModelClients,
  ModelContext,
  ModelDeps,
  ModelModule,
  ModelRow,
} from "./model_class.ts";

const HTTP_KEYS = { ...CHAT_MODEL_KEYS, ...OPENAI_KEYS };
const SCRIPTED_MODEL_KEYS = { ...CHAT_MODEL_KEYS, ...SCRIPTED_KEYS };
const TOOLCALL = "claudius.models.OpenAIModel";
const TEXT = "claudius.models.OpenAITextbasedModel";
const RESPONSE = "claudius.models.ResponsesModel";
const HTTP = "HTTP classes";

const chat = () => import("./chat.ts");
const responses = () => import("./extra/responses.ts");
const scripted = () => import("./extra/scripted.ts");
const meta = () => import("./extra/roulette.ts");

const http = (format: "toolcall" | "text", type: string, doc: string): ModelRow => ({
  type,
  keys: HTTP_KEYS,
  doc,
  group: HTTP,
  format,
  load: chat,
});
const response = (type: string, doc: string): ModelRow => ({
  type,
  keys: HTTP_KEYS,
  doc,
  group: HTTP,
  format: "response",
  load: responses,
});

/** Every model class, by the name a config gives it (upstream's names are aliases of claudius's HTTP classes). */
export const MODEL_CLASSES: Readonly<Record<string, ModelRow>> = {
  openai: http("toolcall", TOOLCALL, "any OpenAI-compatible endpoint, tool calls"),
  litellm: http("toolcall", TOOLCALL, "upstream's name: `openai`"),
  openrouter: http("toolcall", TOOLCALL, "upstream's name: `openai` with OpenRouter's dialect"),
  openai_textbased: http("text", TEXT, "the same, one fenced block per reply"),
  litellm_textbased: http("text", TEXT, "upstream's name: `openai_textbased`"),
  openrouter_textbased: http("text", TEXT, "upstream's name: `openai_textbased` with OpenRouter's dialect"),
  openai_response: response(
    RESPONSE,
    "any endpoint of the Responses API (`<base_url>/responses`), tool calls",
  ),
  litellm_response: response(RESPONSE, "upstream's name: `openai_response`"),
  openrouter_response: {
    ...response(
      "claudius.models.OpenRouterResponsesModel",
      "upstream's name: `openai_response` with OpenRouter's message shapes",
    ),
    style: "typed",
  },
  portkey: {
    ...http(
      "toolcall",
      "claudius.models.PortkeyModel",
      "upstream's Portkey gateway: `openai` at `https://api.portkey.ai/v1` with Portkey's headers",
    ),
    keys: { ...HTTP_KEYS, ...PORTKEY_KEYS },
    gateway: "portkey",
  },
  requesty: {
    ...http(
      "toolcall",
      "claudius.models.RequestyModel",
      "upstream's Requesty gateway: `openai` at `https://router.requesty.ai/v1`",
    ),
    gateway: "requesty",
  },
  portkey_response: {
    ...response(
      "claudius.models.PortkeyResponsesModel",
      "upstream's Portkey gateway over the Responses API: `openai_response` at `https://api.portkey.ai/v1` " +
        "with Portkey's headers",
    ),
    keys: { ...HTTP_KEYS, ...PORTKEY_KEYS },
    gateway: "portkey",
  },
  roulette: {
    type: "claudius.models.RouletteModel",
    keys: ROULETTE_KEYS,
    doc: "upstream's `RouletteModel`: each call goes to a model picked at random from `model_kwargs`, " +
      "a list of model configs",
    group: "meta models",
    format: "toolcall",
    load: meta,
  },
  interleaving: {
    type: "claudius.models.InterleavingModel",
    keys: INTERLEAVING_KEYS,
    doc:
      "upstream's `InterleavingModel`: the models of `model_kwargs` answer in turn (or as `sequence` orders)",
    group: "meta models",
    format: "toolcall",
    load: meta,
  },
  scripted: {
    type: "claudius.models.ScriptedModel",
    keys: SCRIPTED_MODEL_KEYS,
    doc: "replays `script` or `replies`, for tests and demos; tool calls",
    group: "scripted",
    format: "toolcall",
    load: scripted,
  },
  scripted_textbased: {
    type: "claudius.models.ScriptedTextbasedModel",
    keys: SCRIPTED_MODEL_KEYS,
    doc: "the same, text mode",
    group: "scripted",
    format: "text",
    load: scripted,
  },
};

/** The class used when no config sets `model.model_class`. */
export const DEFAULT_MODEL_CLASS = "openai";

/**
 * What building the model a config names is given (its row looked up in `classes`).
 * @throws {ConfigError} for an unknown class
 */
export function modelContext(
  config: Record<string, unknown>,
  costLimit: number,
  deps: ModelDeps,
  priorCalls = 0,
  classes: Readonly<Record<string, ModelRow>> = MODEL_CLASSES,
): ModelContext {
  const { model_class: cls = DEFAULT_MODEL_CLASS, ...own } = config;
  const name = String(cls);
  const row = Object.hasOwn(classes, name) ? classes[name] : undefined;
  if (!row) {
    throw new ConfigError(
      `Unknown model.model_class '${cls}' (known: ${Object.keys(classes).join(", ")})`,
    );
  }
  const build = (entry: Record<string, unknown>) => makeModel(entry, costLimit, deps, 0, classes);
  return { name, row, own, costLimit, deps, priorCalls, build };
}

/**
 * Build the model named by `model.model_class` (`priorCalls`: model calls of the run before this
 * process, where a scripted model's script goes on).
 * @param classes the registry (default: claudius's; a test adds its own rows)
 * @throws {ConfigError} for an unknown class or missing model name / script
 */
export async function makeModel(
  config: Record<string, unknown>,
  costLimit: number,
  deps: ModelDeps,
  priorCalls = 0,
  classes: Readonly<Record<string, ModelRow>> = MODEL_CLASSES,
): Promise<Model> {
  const context = modelContext(config, costLimit, deps, priorCalls, classes);
  return await (await context.row.load()).createModel(context);
}
