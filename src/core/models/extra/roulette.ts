/**
 * Upstream's "meta" models (`minisweagent.models.extra.roulette`): `roulette` asks a model picked at
 * random from `model_kwargs` (a list of model configs) at every call, `interleaving` takes them in turn
 * (or in the order `sequence` gives). Each reply records which model wrote it (`extra.model_name`).
 *
 * @module
 */
import { type Keys, resolveKeys } from "../../config/keys.ts";
import { ConfigError } from "../../errors.ts";
import type {
  AssistantMessage,
  ExecOutput,
  Message,
  Model,
  ToolMessage,
  UserMessage,
  Vars,
} from "../../types.ts";
import { CHAT_MODEL_KEYS } from "../model.ts";
import type { ModelContext } from "../model_class.ts";
import { isPlainObject } from "../../../lib/json.ts";

/** Which of `n` models answers call number `calls` (0-based). */
export type Pick = (n: number, calls: number) => number;

/** A random model at every call (upstream's `random.choice`). */
export const randomPick = (random: () => number = Math.random): Pick => (n) => Math.floor(random() * n) % n;

/** The models in turn, or in the order of `sequence` (indices are checked against the list). */
export function sequencePick(sequence: readonly number[] | undefined): Pick {
  return (n, calls) => (sequence?.length ? sequence[calls % sequence.length]! : calls % n);
}

/**
 * A model that hands each call to one of its models.
 *
 * @example
 * ```ts ignore
 * const model = new MetaModel(config, [first, second], sequencePick(undefined), "claudius.models.InterleavingModel");
 * await model.query(messages); // first answers, then second, then first, ...
 * ```
 */
export class MetaModel implements Model {
  readonly #models: readonly Model[];
  readonly #pick: Pick;
  #calls = 0;
  /** The model of the latest reply: its observations are shaped for that model's format. */
  #last: Model;

  /**
   * A model that hands each call to the one of `models` that `pick` names.
   * @param config the resolved `model` section (recorded in the trajectory, exposed to templates)
   * @param models one built model per entry of `model_kwargs`
   * @param pick which model answers each call
   * @param type recorded as `info.config.model_type`
   */
  constructor(
    readonly config: Record<string, unknown>,
    models: readonly Model[],
    pick: Pick,
    readonly type: string,
  ) {
    if (models.length === 0) throw new TypeError("MetaModel: no models to choose from");
    this.#models = models;
    this.#pick = pick;
    this.#last = models[0]!;
  }

  #next(): Model {
    const i = this.#pick(this.#models.length, this.#calls++);
    const model = this.#models[i];
    if (!model) {
      throw new RangeError(`model.sequence names model ${i}, but model_kwargs lists ${this.#models.length}`);
    }
    return (this.#last = model);
  }

  async query(messages: readonly Message[], signal?: AbortSignal): Promise<AssistantMessage> {
    const model = this.#next();
    return named(await model.query(messages, signal), model);
  }

  async ask(messages: readonly Message[], signal?: AbortSignal): Promise<AssistantMessage> {
    const model = this.#next();
    return named(await (model.ask ?? model.query).call(model, messages, signal), model);
  }

  formatObservations(
    message: Parameters<Model["formatObservations"]>[0],
    outputs: ExecOutput[],
    vars: Vars,
  ): (ToolMessage | UserMessage)[] {
    return this.#last.formatObservations(message, outputs, vars);
  }

  templateVars(): Vars {
    return { ...this.config };
  }

  formatMessage(role: "system" | "user", content: string): Message {
    const first = this.#models[0]!;
    return first.formatMessage ? first.formatMessage(role, content) : { role, content };
  }
}

/** The reply, marked with the name of the model that wrote it. */
function named(reply: AssistantMessage, model: Model): AssistantMessage {
  const name = model.config.model_name;
  if (typeof name === "string") reply.extra = { ...reply.extra, model_name: name };
  return reply;
}

/**
 * `roulette` / `interleaving`: one model per entry of `model_kwargs`, each built by `build` as its own
 * config says (the templates set beside the list are its defaults).
 * @param random `roulette`'s random numbers (default `Math.random`)
 * @throws {ConfigError} for a bad entry (naming its index) or a `sequence` index out of range
 */
export async function metaModel(
  cls: string,
  spec: { keys: Keys; type: string },
  own: Record<string, unknown>,
  build: (entry: Record<string, unknown>) => Promise<Model>,
  random?: () => number,
): Promise<Model> {
  const c: Record<string, unknown> = resolveKeys(spec.keys, own, "model");
  const shared = Object.fromEntries(
    Object.keys(CHAT_MODEL_KEYS).flatMap((k) => (own[k] === undefined ? [] : [[k, own[k]]])),
  );
  const entries = Array.isArray(c.model_kwargs) ? c.model_kwargs.filter(isPlainObject) : [];
  const models: Model[] = [];
  for (const [i, entry] of entries.entries()) {
    try {
      models.push(await build({ ...shared, ...entry }));
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      throw new ConfigError(`model.model_kwargs[${i}] of model_class ${cls}: ${e.message}`, { cause: e });
    }
  }
  const sequence = cls === "interleaving" && Array.isArray(c.sequence) ? c.sequence.map(Number) : undefined;
  const outside = sequence?.find((n) => n >= models.length);
  if (outside !== undefined) {
    throw new ConfigError(
      `model.sequence names model ${outside}, but model.model_kwargs lists ${models.length}`,
    );
  }
  const pick = cls === "interleaving" ? sequencePick(sequence) : randomPick(random);
  return new MetaModel({ ...own, ...c }, models, pick, spec.type);
}

/** The registry's constructor of `model_class: roulette` and `interleaving` (see `classes.ts`). */
export function createModel({ name, row, own, deps, build }: ModelContext): Promise<Model> {
  return metaModel(name, row, own, build, deps.random);
}
