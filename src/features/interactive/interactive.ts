/**
 * Upstream's InteractiveAgent: the default loop with a person in it. Three modes, switched at any
 * prompt: `confirm` (ask before running the model's commands unless every one is whitelisted),
 * `yolo` (never ask) and `human` (the person types the commands; the model is not queried). Ctrl-C
 * during a step asks for a comment; a submission asks whether to finish (`confirm_exit`); a step or
 * cost limit asks for new limits. Every prompt and every message the model sees is upstream's
 * (`_texts.ts`). All input and output goes through the injected {@link InteractiveIO}.
 *
 * @module
 */
import { type AgentDeps, DefaultAgent } from "../../core/agent.ts";
import { checkSubmission } from "../../core/submission.ts";
import type { InteractiveConfig } from "./keys.ts";
import {
  exitMessage,
  Interrupted,
  LimitsExceeded,
  SIGNAL_STATUSES,
  Submitted,
  TimeExceeded,
  UserInterruption,
} from "../../core/errors.ts";
import { type CommandPattern, compileCommandPattern } from "./command_patterns.ts";
import type { Screen } from "./screen.ts";
import { EndOfInput, type Interrupts, KeyboardInterrupt, type Prompter, TerminalGone } from "./user_io.ts";
import type {
  Action,
  AssistantMessage,
  Environment,
  ExecOutput,
  Message,
  Model,
  UserMessage,
} from "../../core/types.ts";
import { MODE_COMMANDS, SAY, TELL } from "./_texts.ts";

/** The person's side: what is shown, where answers come from, the Ctrl-C latch. */
export interface InteractiveIO {
  screen: Screen;
  input: Prompter;
  interrupts: Interrupts;
}

/** A command the person typed in human mode (upstream records it as a user message). */
type HumanMessage = UserMessage & { extra: { actions: Action[] } };

const userMessage = (content: string, interrupt_type: string): UserMessage => ({
  role: "user",
  content,
  extra: { interrupt_type },
});

/** Upstream's InteractiveAgent (see the module doc). */
export class InteractiveAgent extends DefaultAgent {
  declare readonly config: InteractiveConfig;
  override readonly type: string = "claudius.agents.InteractiveAgent";
  readonly #io: InteractiveIO;
  readonly #whitelist: CommandPattern[];
  #stepSignal: AbortSignal | undefined;
  #humanTurn = false;

  /**
   * @param config the resolved `agent` section (interactive defaults applied)
   * @param model the model
   * @param env the environment (already started)
   * @param deps clock, persistence, abort signal
   * @param io screen, input and Ctrl-C latch
   */
  constructor(
    config: InteractiveConfig,
    model: Model,
    env: Environment,
    deps: AgentDeps,
    io: InteractiveIO,
  ) {
    super(config, model, env, deps);
    this.#io = io;
    this.#whitelist = config.whitelist_actions.map((p) =>
      compileCommandPattern(p, "agent.whitelist_actions")
    );
  }

  /** Show each message as it is appended. */
  override addMessages(...messages: Message[]): Message[] {
    for (const m of messages) this.#io.screen.message(m, { step: this.nCalls, cost: this.cost });
    return super.addMessages(...messages);
  }

  /** One step; Ctrl-C during it asks for a comment, the end of input ends the run. */
  override async step(): Promise<Message[]> {
    this.#io.screen.rule();
    const run = super.signal();
    this.#stepSignal = run ? AbortSignal.any([run, this.#io.interrupts.signal]) : this.#io.interrupts.signal;
    try {
      const human = this.config.mode === "human" ? await this.#humanCommand() : undefined;
      return await this.executeActions(human ?? await this.query());
    } catch (e) {
      if (run?.aborted) throw e;
      if (e instanceof KeyboardInterrupt) return await this.#interrupted();
      throw this.#ended(e);
    } finally {
      this.#stepSignal = undefined;
    }
  }

  protected override signal(): AbortSignal | undefined {
    return this.#stepSignal ?? super.signal();
  }

  /** Query the model with a spinner; at a step or cost limit, ask for new limits. */
  override async query(): Promise<AssistantMessage> {
    try {
      return await this.#waitForModel();
    } catch (e) {
      if (!(e instanceof LimitsExceeded) || e instanceof TimeExceeded || !this.#io.input.canAsk) throw e;
      this.#io.screen.say(SAY.limits(this.config.step_limit, this.config.cost_limit, this.nCalls, this.cost));
      const steps = await this.#askLimit(SAY.newStepLimit, true, this.nCalls, e);
      const cost = await this.#askLimit(SAY.newCostLimit, false, this.cost, e);
      this.updateConfig({ step_limit: steps, cost_limit: cost });
      return await this.#waitForModel();
    }
  }

  /** Confirm (in confirm mode), run the actions, and on a submission ask whether to finish. */
  override async executeActions(message: AssistantMessage | HumanMessage): Promise<Message[]> {
    const actions = message.extra.actions;
    const outputs: ExecOutput[] = [];
    let added: Message[] = [];
    this.#humanTurn = message.role === "user";
    try {
      if (message.role === "assistant") await this.#confirm(actions.map((a) => a.command));
      for (const [i, action] of actions.entries()) {
        const done = this.#io.screen.busy(`Running command ${i + 1}/${actions.length}`, 250);
        let output: ExecOutput;
        try {
          output = await this.runAction(action); // throws the step's reason (Ctrl-C) when aborted
        } finally {
          done();
        }
        checkSubmission(output);
        outputs.push(output);
      }
    } catch (e) {
      if (e instanceof Submitted) await this.#finishOrContinue(e);
      throw e;
    } finally {
      this.#humanTurn = false;
      added = this.addMessages(...this.model.formatObservations(message, outputs, this.templateVars()));
    }
    return added;
  }

  /**
   * The dangerous-command gate's question (`agent.confirm_dangerous`): y/n, in every mode. A command
   * the person typed in human mode is not asked about.
   */
  async approveDangerous(action: Action, pattern: string): Promise<boolean> {
    if (this.#humanTurn) return true;
    this.#io.screen.say(SAY.dangerous(action.command, pattern));
    const answer = (await this.#io.input.read()).trim().toLowerCase();
    return answer === "y" || answer === "yes";
  }

  async #waitForModel(): Promise<AssistantMessage> {
    this.#io.screen.replyStart({ step: this.nCalls + 1, cost: this.cost });
    const done = this.#io.screen.busy("Waiting for the model");
    try {
      return await super.query();
    } finally {
      done();
    }
  }

  async #humanCommand(): Promise<HumanMessage | undefined> {
    const command = await this.#ask(SAY.human);
    if (command === "/y" || command === "/c") return undefined;
    const message: HumanMessage = {
      role: "user",
      content: TELL.humanCommand(command),
      extra: { actions: [{ command }] },
    };
    this.addMessages(message);
    return message;
  }

  async #confirm(commands: string[]): Promise<void> {
    if (this.config.mode !== "confirm" || commands.every((c) => this.#whitelist.some((p) => p.match(c)))) {
      return;
    }
    const answer = (await this.#ask(SAY.confirm(commands.length))).trim();
    if (answer === "" || answer === "/y") return;
    const text = answer === "/u" ? TELL.toHuman : TELL.rejected(answer);
    throw new UserInterruption(userMessage(text, "UserRejection"));
  }

  async #finishOrContinue(submitted: Submitted): Promise<never> {
    if (!this.config.confirm_exit || !this.#io.input.canAsk) throw submitted;
    let answer: string;
    try {
      answer = (await this.#ask(SAY.finish)).trim();
    } catch (e) {
      if (e instanceof EndOfInput) throw submitted;
      throw e;
    }
    if (answer === "/u") throw new UserInterruption(userMessage(TELL.switchedToHuman, "UserInterruption"));
    if (answer in MODE_COMMANDS) return await this.#finishOrContinue(submitted);
    if (answer) throw new UserInterruption(userMessage(TELL.newTask(answer), "UserNewTask"));
    throw submitted;
  }

  async #interrupted(): Promise<never> {
    let text: string;
    try {
      text = (await this.#ask(SAY.interrupted)).trim();
    } catch (e) {
      // Ctrl-C again before the comment is given ends the run (`main.ts` does the same for a SIGINT).
      if (e instanceof KeyboardInterrupt) throw new Interrupted(exitMessage("Interrupted"));
      throw this.#ended(e);
    }
    this.#io.interrupts.clear();
    if (!text || text in MODE_COMMANDS) text = TELL.temporary;
    throw new UserInterruption(userMessage(TELL.interruptedBy(text), "UserInterruption"));
  }

  /**
   * The end of input at a prompt ends the run (status `Interrupted`), a terminal that went away
   * (closed) as a hangup does (`Hangup`); other errors pass.
   */
  #ended(e: unknown): unknown {
    if (e instanceof TerminalGone) return new Interrupted(exitMessage(SIGNAL_STATUSES.SIGHUP));
    if (!(e instanceof EndOfInput)) return e;
    this.#io.screen.say(SAY.endOfInput);
    return new Interrupted(exitMessage("Interrupted"));
  }

  /** A new step or cost limit; a bad entry asks again, an empty one ends the run at the limit. */
  async #askLimit(prompt: string, whole: boolean, spent: number, limit: LimitsExceeded): Promise<number> {
    for (;;) {
      this.#io.screen.say(prompt);
      const text = (await this.#io.input.read()).trim();
      if (text === "") throw limit;
      const value = Number(text);
      if (!/^[+]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text) || !Number.isFinite(value)) {
        this.#io.screen.say(
          SAY.badLimit(`Not a ${whole ? "whole " : ""}number >= 0: ${JSON.stringify(text)}.`),
        );
      } else if (whole && !Number.isInteger(value)) {
        this.#io.screen.say(SAY.badLimit(`The step limit must be a whole number, got ${text}.`));
      } else if (value !== 0 && value <= spent) {
        const used = whole ? `${spent} steps` : `$${spent}`;
        this.#io.screen.say(SAY.badLimit(`${used} already used: enter more than that, or 0 for no limit.`));
      } else return value;
    }
  }

  /** Upstream's prompt handling: `/h` shows help and asks again, `/m` reads a multi-line entry, `/y /c /u` switch. */
  async #ask(prompt: string, multiline = false): Promise<string> {
    const { screen, input } = this.#io;
    screen.say(prompt);
    const text = await input.read({ multiline, history: true });
    if (multiline) return text;
    if (text === "/m") return await this.#ask(prompt, true);
    if (text === "/h") {
      screen.say(SAY.help(this.config.mode));
      return await this.#ask(prompt);
    }
    const mode = MODE_COMMANDS[text];
    if (mode !== undefined) {
      if (mode === this.config.mode) return await this.#ask(SAY.already(mode) + prompt);
      this.updateConfig({ mode });
      screen.say(SAY.switched(mode));
    }
    return text;
  }
}
