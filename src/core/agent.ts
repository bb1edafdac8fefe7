/**
 * The agent loop: `run -> step -> query / execute -> save`, as upstream mini-swe-agent's
 * DefaultAgent, and its seven config keys, as upstream's `AgentConfig` sits beside it. Ending a run
 * is an exception that carries the exit message to append.
 *
 * @module
 */
import { errorExitMessage, exitMessage, FormatError, InterruptAgentFlow } from "./errors.ts";
import { LimitsExceeded, TimeExceeded } from "./errors.ts";
import { type ConfigOf, type Keys, mergeTrees } from "./config/keys.ts";
import { pyFloat, renderTemplate } from "../lib/python/template/template.ts";
import { asError } from "../lib/errors.ts";
import { redactSecrets } from "./redact.ts";
import { SecretRedactor } from "./secret_redactor.ts";
import { checkSubmission } from "./submission.ts";
import type { Action, AssistantMessage, Environment, ExecOutput, ExitExtra, Hooks } from "./types.ts";
import type { LoopDeps, LoopView, Message, Model, Vars } from "./types.ts";

const PROMPTS_HINT = "no config sets it; add -c default for the built-in prompts";
/** A prompt template key: a Jinja2 string every run needs (the built-in config sets both). */
const template = (doc: string) => ({ type: "string", template: true, required: PROMPTS_HINT, doc }) as const;

/** The `agent` config keys of the default agent: upstream's `AgentConfig`, one definition each. */
export const AGENT_KEYS = {
  system_template: template("Jinja2 template of the system message."),
  instance_template: template("Jinja2 template of the first user message (sees `task`)."),
  step_limit: {
    type: "int",
    default: 0,
    min: 0,
    doc: "Stop before model call N+1 (`LimitsExceeded`); 0 = none.",
  },
  cost_limit: {
    type: "number",
    default: 3.0,
    defaultDoc: "`3.0` (upstream's; `default.yaml` sets 0)",
    min: 0,
    doc: "Stop once the cost reaches this many dollars (`LimitsExceeded`); 0 = none.",
  },
  wall_time_limit_seconds: {
    type: "int",
    default: 0,
    min: 0,
    doc: "Stop (`TimeExceeded`) once this many whole seconds have passed; 0 = none.",
  },
  max_consecutive_format_errors: {
    type: "int",
    default: 3,
    min: 0,
    doc: "End with `RepeatedFormatError` after this many malformed replies in a row; 0 = unlimited.",
  },
  output_path: { type: "string|null", default: null, doc: "Trajectory path (`-o` wins)." },
} as const satisfies Keys;

/** The resolved `agent` section. */
export type AgentConfig = ConfigOf<typeof AGENT_KEYS>;

/** One agent class, as configs name it by `agent.agent_class` (the command layer lists them: `cli/classes.ts`). */
export interface AgentRow {
  /** Recorded as `info.config.agent_type`. */
  type: string;
  /** The `agent:` keys the class reads. */
  keys: Keys;
  /** One line for `--help` and the config reference. */
  doc: string;
}

/** What the default agent needs besides model and environment (see {@link LoopDeps}). */
export type AgentDeps = LoopDeps<DefaultAgent, AgentConfig>;

/** The status and submission a run ended with (the exit message's `extra`). */
export type RunResult = ExitExtra;

/**
 * The frozen view of `agent` that hooks are given ({@link LoopView}): its counters and messages read
 * live, and the few things a hook may do (append, run a command, call the model through the one
 * place that counts and bills).
 * @param signal what aborts the loop's current step (a command run through the view stops with it)
 */
function viewOf(agent: DefaultAgent, signal: () => AbortSignal | undefined): LoopView<AgentConfig> {
  return Object.freeze({
    get messages() {
      return agent.messages;
    },
    get nCalls() {
      return agent.nCalls;
    },
    get cost() {
      return agent.cost;
    },
    get runVars() {
      return agent.runVars;
    },
    config: agent.config,
    model: agent.model,
    env: agent.env,
    vars: () => agent.templateVars(),
    elapsedSeconds: () => agent.elapsedSeconds(),
    checkLimits: () => agent.checkLimits(),
    execute: (action: Action) => agent.env.execute(action, signal()),
    append: (...messages: Message[]) => void agent.addMessages(...messages),
    call: (messages: readonly Message[], kind: "tools" | "prose") => agent.call(messages, kind),
  });
}

/** Upstream's DefaultAgent: the loop, its counters, and the message list that is the trajectory. */
export class DefaultAgent {
  /** Recorded as `info.config.agent_type`. */
  readonly type: string = "claudius.agent.DefaultAgent";
  /** The resolved `agent` section. */
  readonly config: AgentConfig;
  /** The model the loop queries. */
  readonly model: Model;
  /** The environment the actions run in (started). */
  readonly env: Environment;
  /** The mechanisms' hooks (`deps.hooks`). */
  readonly hooks: Hooks<AgentConfig> | undefined;
  /** What the hooks see (see {@link LoopView}). */
  readonly view: LoopView<AgentConfig>;
  #messages: Message[] = [];
  #cost = 0;
  #nCalls = 0;
  #formatErrors = 0;
  #runVars: Vars = {};
  readonly #now: () => number;
  readonly #deps: AgentDeps;
  readonly #start: number;
  readonly #redactor: SecretRedactor;

  /** An agent with an empty history, or `deps.initial`'s. */
  constructor(config: AgentConfig, model: Model, env: Environment, deps: AgentDeps = {}) {
    this.config = config;
    this.model = model;
    this.env = env;
    this.#deps = deps;
    this.hooks = deps.hooks;
    this.#now = deps.now ?? Date.now;
    this.#start = deps.startedAt ?? this.#now();
    this.#redactor = new SecretRedactor(deps.secrets ?? []);
    this.view = viewOf(this, () => this.signal());
    if (deps.initial) {
      this.#messages = [...deps.initial.messages];
      this.#nCalls = deps.initial.nCalls;
      this.#cost = deps.initial.cost;
      this.#formatErrors = deps.initial.formatErrors;
      this.hooks?.resume?.(this.#messages);
    }
  }

  /** The trajectory so far. */
  get messages(): readonly Message[] {
    return this.#messages;
  }
  /** Dollars spent so far. */
  get cost(): number {
    return this.#cost;
  }
  /** Model calls so far. */
  get nCalls(): number {
    return this.#nCalls;
  }
  /** The variables the run was given (`task`, `instance`, ...). */
  get runVars(): Readonly<Vars> {
    return this.#runVars;
  }

  /** Seconds since the run began, floored like Python's `int()`. */
  elapsedSeconds(): number {
    return Math.floor((this.#now() - this.#start) / 1000);
  }

  /** All template variables: config fields, environment (uname), model, counters, run variables. */
  templateVars(extra: Vars = {}): Vars {
    const counters = { n_model_calls: this.#nCalls, model_cost: pyFloat(this.#cost) };
    return mergeTrees(
      redactSecrets({ ...this.config, cost_limit: pyFloat(this.config.cost_limit) }),
      redactSecrets(this.env.templateVars()),
      redactSecrets(this.model.templateVars()),
      { ...counters, elapsed_seconds: this.elapsedSeconds() },
      this.#runVars,
      extra,
    );
  }

  /** Append messages (and show them). */
  addMessages(...messages: Message[]): Message[] {
    for (const m of messages) {
      this.#messages.push(m);
      this.#deps.onMessage?.(m);
    }
    return messages;
  }

  /**
   * Run until an exit message. Unexpected errors are recorded as an exit message, saved, then rethrown.
   * @param vars extra template variables besides `task` (e.g. `instance`)
   */
  async run(task: string, vars: Vars = {}): Promise<RunResult> {
    this.#runVars = { ...this.#runVars, task, ...vars };
    this.#messages = [];
    const start = this.hooks?.start ? await this.hooks.start(this.view) : undefined;
    if (start) this.#runVars = { ...this.#runVars, ...start.vars };
    const format = (role: "system" | "user", content: string) =>
      this.model.formatMessage?.(role, content) ?? { role, content };
    const render = (key: "system_template" | "instance_template") =>
      renderTemplate(this.config[key], this.templateVars(), `agent.${key}`);
    this.addMessages(
      format("system", render("system_template")),
      format("user", render("instance_template") + (start?.append ?? "")),
    );
    return await this.continue();
  }

  /**
   * Run until an exit message from the current messages and counters (a resumed run's). `vars` join
   * the run's variables; `first`, when given, replaces the first step (the actions of a step cut short).
   */
  async continue(vars: Vars = {}, first?: () => Promise<unknown>): Promise<RunResult> {
    this.#runVars = { ...this.#runVars, ...vars };
    while (true) {
      const step = first ?? (() => this.step());
      first = undefined;
      try {
        await step();
        this.#formatErrors = 0;
      } catch (e) {
        this.#handle(this.#deps.signal?.aborted ? this.#deps.signal.reason : e);
      } finally {
        await this.#deps.save?.(this);
      }
      const last = this.#messages.at(-1);
      if (last?.role === "exit") return last.extra;
    }
  }

  #handle(e: unknown): void {
    if (e instanceof FormatError) {
      this.#formatErrors++;
      const max = this.config.max_consecutive_format_errors;
      this.addMessages(...e.messages);
      if (0 < max && max <= this.#formatErrors) this.addMessages(exitMessage("RepeatedFormatError"));
    } else if (e instanceof InterruptAgentFlow) {
      this.addMessages(...e.messages);
    } else {
      const err = asError(e);
      this.addMessages(errorExitMessage(err));
      throw err;
    }
  }

  /** Query the model, then execute its actions. */
  async step(): Promise<Message[]> {
    return await this.executeActions(await this.query());
  }

  /** Check limits, then query the model, append its message and save. */
  async query(): Promise<AssistantMessage> {
    this.signal()?.throwIfAborted();
    if (this.hooks?.beforeQuery) await this.hooks.beforeQuery(this.view);
    const message = await this.call(this.hooks?.context?.(this.#messages) ?? this.#messages, "tools");
    this.addMessages(message);
    // The paid reply is on disk before its commands run: a kill meanwhile (SIGKILL, OOM) loses no call,
    // and `claudius resume` runs its actions. The saved file at the end of the step is upstream's.
    await this.#deps.save?.(this);
    return message;
  }

  /** Every model call, the loop's and the mechanisms': see {@link LoopView.call}. */
  async call(messages: readonly Message[], kind: "tools" | "prose"): Promise<AssistantMessage> {
    this.checkLimits();
    this.#nCalls++;
    try {
      const reply = kind === "tools"
        ? await this.model.query(messages, this.signal())
        : await this.#ask(messages);
      this.#cost += reply.extra.cost;
      return reply;
    } catch (e) {
      if (e instanceof FormatError) this.#cost += Number(e.messages[0]?.extra?.cost ?? 0);
      throw e;
    }
  }

  #ask(messages: readonly Message[]): Promise<AssistantMessage> {
    if (!this.model.ask) throw new Error(`Cannot ask ${this.model.type} for prose: it has no ask()`);
    return this.model.ask(messages, this.signal());
  }

  /** Before every model call: throw the ending a limit reached asks for, then run `deps.beforeCall`. */
  checkLimits(): void {
    const c = this.config;
    const steps = 0 < c.step_limit && c.step_limit <= this.#nCalls;
    if (steps || (0 < c.cost_limit && c.cost_limit <= this.#cost)) {
      throw new LimitsExceeded(exitMessage("LimitsExceeded"));
    }
    if (0 < c.wall_time_limit_seconds && c.wall_time_limit_seconds <= this.elapsedSeconds()) {
      throw new TimeExceeded(exitMessage("TimeExceeded"));
    }
    this.#deps.beforeCall?.();
  }

  /** Change config keys during the run (the interactive agent's new limits and modes). */
  protected updateConfig(patch: Partial<AgentConfig> & Record<string, unknown>): void {
    Object.assign(this.config, patch);
  }

  /** What aborts the model call and the commands (the run's signal; a subclass may add its own). */
  protected signal(): AbortSignal | undefined {
    return this.#deps.signal;
  }

  /** Run the message's actions in order; a submission ends the run before later actions. */
  async executeActions(message: AssistantMessage): Promise<Message[]> {
    const outputs: ExecOutput[] = [];
    for (const action of message.extra.actions) {
      const output = await this.runAction(action);
      checkSubmission(output);
      outputs.push(output);
    }
    return this.addMessages(...this.model.formatObservations(message, outputs, this.templateVars()));
  }

  /** Run one action (a mechanism's, else the environment's), then let the mechanisms see its output. */
  protected async runAction(action: Action): Promise<ExecOutput> {
    let output = (this.hooks?.execute && await this.hooks.execute(action, this.view)) ||
      await this.env.execute(action, this.signal());
    this.signal()?.throwIfAborted();
    if (this.hooks?.observe) output = await this.hooks.observe(action, output, this.view);
    const shown = this.#redactor.text(output.output);
    return shown === output.output ? output : { ...output, output: shown };
  }
}
