/**
 * The read-only view of the loop that hooks are given ({@link LoopView}), made from the agent's
 * public API: its counters and messages read live, and the few things a hook may do (append, run a
 * command, call the model through the one place that counts and bills).
 *
 * @module
 */
import type { Action, AssistantMessage, Environment, LoopView, Message, Model, Vars } from "./types.ts";

/** What the view reads from the loop (the agent's public members). */
export interface ViewedLoop<C> {
  /** The trajectory so far. */
  readonly messages: readonly Message[];
  /** Model calls so far. */
  readonly nCalls: number;
  /** Dollars spent so far. */
  readonly cost: number;
  /** The variables the run was given. */
  readonly runVars: Readonly<Vars>;
  /** The resolved `agent` section. */
  readonly config: C;
  /** The model the loop queries. */
  readonly model: Model;
  /** The environment commands run in. */
  readonly env: Environment;
  /** Every template variable as the loop renders them now. */
  templateVars(): Vars;
  /** Whole seconds since the run began. */
  elapsedSeconds(): number;
  /** Throws the ending a reached limit asks for. */
  checkLimits(): void;
  /** Appends messages to the trajectory (and shows them). */
  addMessages(...messages: Message[]): unknown;
  /** Calls the model, counting and billing the call (see {@link LoopView.call}). */
  call(messages: readonly Message[], kind: "tools" | "prose"): Promise<AssistantMessage>;
}

/**
 * A frozen view of `loop`.
 * @param loop the agent
 * @param signal what aborts the loop's current step (a command run through the view stops with it)
 */
export function loopView<C>(loop: ViewedLoop<C>, signal: () => AbortSignal | undefined): LoopView<C> {
  return Object.freeze({
    get messages() {
      return loop.messages;
    },
    get nCalls() {
      return loop.nCalls;
    },
    get cost() {
      return loop.cost;
    },
    get runVars() {
      return loop.runVars;
    },
    config: loop.config,
    model: loop.model,
    env: loop.env,
    vars: () => loop.templateVars(),
    elapsedSeconds: () => loop.elapsedSeconds(),
    checkLimits: () => loop.checkLimits(),
    execute: (action: Action) => loop.env.execute(action, signal()),
    append: (...messages: Message[]) => void loop.addMessages(...messages),
    call: (messages: readonly Message[], kind: "tools" | "prose") => loop.call(messages, kind),
  });
}
