/**
 * Playing a recording back through claudius's own loop (`claudius replay`): a {@link ReplaySession}
 * answers every model call with the next recorded response and every command with the output its
 * observation recorded, and checks that the messages the loop sends with each call are the
 * recorded ones before that call. The model class still builds each message from the response and
 * renders each observation from the output, so what is compared is what claudius makes of them.
 *
 * Endings: Submitted, LimitsExceeded and RepeatedFormatError are the loop's own and must come out
 * again; the others (TimeExceeded, a signal, an error, none at all) came from outside, so the run
 * stops where the recording stops ({@link ReplayEnd}) and its ending is not compared.
 *
 * @module
 */
import { SUBMIT_SENTINEL } from "../../core/submission.ts";
import type { ModelClients } from "../../core/models/classes.ts";
import {
  RecordedChatClient,
  type RecordedReply,
  RecordedResponsesClient,
} from "../../core/models/extra/recorded.ts";
import type {
  Action,
  AssistantMessage,
  Environment,
  ExecOutput,
  Message,
  Model,
  Vars,
} from "../../core/types.ts";
import { comparable, type FieldDifference, firstDifference } from "./compare.ts";
import type { Recording } from "./recording.ts";

/** The endings a loop makes itself (a replay must reach them again). */
const LOOP_ENDINGS = new Set(["Submitted", "LimitsExceeded", "RepeatedFormatError"]);

/** The recording has nothing more to give (its ending came from outside the loop): the replay stops. */
export class ReplayEnd extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReplayEnd";
  }
}

/** claudius left the recording: it asked for more than the recording holds, or sent other messages. */
export class ReplayDivergence extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReplayDivergence";
  }
}

/** The first place the replay left the recording. */
export interface Divergence {
  /** Index of the first message that differs. */
  index: number;
  /** Where it showed: in the messages sent with call N, or in the messages claudius recorded. */
  where: string;
  /** The field difference, when both sides have a message there. */
  field?: FieldDifference;
  /** One line when there is no message to compare (an extra call, a missing output). */
  note?: string;
}

/** One replay of one recording. */
export class ReplaySession {
  readonly recording: Recording;
  /** Clients answering from the recording (give them to the model as `ModelDeps.clients`). */
  readonly clients: ModelClients;
  /** The first divergence found so far. */
  divergence: Divergence | undefined;
  #calls = 0;
  #outputs = 0;
  readonly #first: number;
  /** Each recorded message's JSON text, made once. */
  readonly #recordedText: string[] = [];
  /** Messages already found equal to the recorded one at their index. */
  readonly #checked = new WeakMap<object, number>();

  /**
   * @param recording what is played back
   * @param from the calls and outputs already played back before this session (a resumed run's later
   *   part starts where its predecessor's ended)
   */
  constructor(recording: Recording, from: { calls: number; outputs: number } = { calls: 0, outputs: 0 }) {
    this.recording = recording;
    this.#calls = from.calls;
    this.#outputs = from.outputs;
    this.#first = from.calls;
    const next = (): RecordedReply => this.#nextReply();
    this.clients = { chat: new RecordedChatClient(next), responses: new RecordedResponsesClient(next) };
  }

  /** Model calls answered so far (those before this session included). */
  get calls(): number {
    return this.#calls;
  }

  /** Model calls this session answered. */
  get answered(): number {
    return this.#calls - this.#first;
  }

  /** Whether the recording's ending is the loop's own (it must come out of the replay again). */
  get loopEnding(): boolean {
    return LOOP_ENDINGS.has(this.recording.exitStatus);
  }

  #stop(what: string): never {
    const r = this.recording;
    if (this.loopEnding) {
      const note = `claudius ${what}; the recording ended ${r.exitStatus} there`;
      this.#diverge({ index: r.exitIndex, where: "the run's course", note });
      throw new ReplayDivergence(note);
    }
    throw new ReplayEnd(`the recording ends here (${r.exitStatus || "no ending recorded"}): ${what}`);
  }

  #nextReply(): RecordedReply {
    const call = this.recording.calls[this.#calls];
    if (call === undefined) {
      this.#stop(`would ask the model again (call ${this.#calls + 1}; the recording has ${this.#calls})`);
    }
    this.#calls++;
    return { response: call.response, cost: call.cost };
  }

  #diverge(d: Divergence): void {
    if (this.divergence === undefined || d.index < this.divergence.index) this.divergence = d;
  }

  #text(i: number): string {
    return this.#recordedText[i] ??= JSON.stringify(this.recording.messages[i]);
  }

  /** Whether message `m` at index `i` is the recorded one (see `compare.ts`). */
  same(m: Message, i: number): boolean {
    if (this.#checked.get(m) === i) return true;
    const recorded = this.recording.messages[i];
    if (recorded === undefined || comparable(m, recorded) !== this.#text(i)) return false;
    this.#checked.set(m, i);
    return true;
  }

  /**
   * Check the messages sent with the next call: the recorded messages before that call's reply.
   * @throws {ReplayDivergence} at the first that differs (or when the count does)
   */
  checkSent(messages: readonly Message[]): void {
    const call = this.recording.calls[this.#calls];
    const expected = call?.index ?? this.recording.messages.length;
    const where = `the messages sent with model call ${this.#calls + 1}`;
    for (let i = 0; i < Math.min(messages.length, expected); i++) {
      if (this.same(messages[i]!, i)) continue;
      const field = firstDifference(this.recording.messages[i], messages[i]);
      this.#diverge({ index: i, where, ...(field ? { field } : {}) });
      throw new ReplayDivergence(`${where} differ from the recording at message ${i + 1}`);
    }
    if (messages.length !== expected && call !== undefined) {
      const note = `claudius sends ${messages.length} messages with model call ${this.#calls + 1}; ` +
        `the recording has ${expected} before its reply`;
      this.#diverge({ index: Math.min(messages.length, expected), where, note });
      throw new ReplayDivergence(note);
    }
  }

  /** The recorded output for `action` (of the reply last answered). */
  output(action: Action): ExecOutput {
    const r = this.recording;
    const next = r.outputs[this.#outputs];
    const call = this.#calls - 1;
    if (next !== undefined && next.call === call) {
      if (
        next.toolCallId !== undefined && action.tool_call_id !== undefined &&
        next.toolCallId !== action.tool_call_id
      ) {
        const note =
          `claudius runs the action of tool call ${action.tool_call_id}; the recording's next output ` +
          `answers ${next.toolCallId}`;
        this.#diverge({ index: next.index, where: "the commands run", note });
        throw new ReplayDivergence(note);
      }
      this.#outputs++;
      return next.output;
    }
    // The submitting command's output is in the ending, not in an observation.
    if (call === r.calls.length - 1 && r.exitStatus === "Submitted") {
      return { output: `${SUBMIT_SENTINEL}\n${r.submission}`, returncode: 0, exception_info: "" };
    }
    this.#stop(`would run \`${action.command.slice(0, 80)}\`, for which the recording has no output`);
  }

  /** Check the messages claudius recorded against the recording's (up to its ending when that is not the loop's). */
  checkRecorded(messages: readonly Message[]): void {
    const r = this.recording;
    const upTo = this.loopEnding || r.exitIndex < 0 ? r.messages.length : r.exitIndex;
    const ours = this.loopEnding ? messages.length : Math.min(messages.length, upTo);
    for (let i = 0; i < Math.min(ours, upTo); i++) {
      if (this.same(messages[i]!, i)) continue;
      const field = firstDifference(r.messages[i], messages[i]);
      this.#diverge({ index: i, where: "the messages claudius records", ...(field ? { field } : {}) });
      return;
    }
    if (ours !== upTo) {
      const note = `claudius records ${ours} messages; the recording has ${upTo}` +
        (ours < upTo ? "" : " (claudius's own ending is left out when the recording's came from outside)");
      this.#diverge({ index: Math.min(ours, upTo), where: "the messages claudius records", note });
    }
  }
}

/**
 * An environment that runs nothing: each command gets the output the recording kept for it. Its
 * config and template variables are the recorded environment's, with the uname fields given (the
 * trajectory does not record them; see `invert.ts`). Commands before the first reply (a startup
 * command, a probe) get an empty success.
 */
export class ReplayingEnvironment implements Environment {
  readonly config: Record<string, unknown>;
  readonly type: string;
  /** The uname fields the templates see (`system`, `node`, `release`, `version`, `machine`). */
  uname: Record<string, string>;
  readonly #session: ReplaySession;
  /**
   * A resumed part: true until the agent goes on (every command before is the episode's setup: a
   * probe, a new container's startup command); undefined: setup is what runs before the first call.
   */
  #setup: boolean | undefined;

  /**
   * @param config the environment section the run resolved (without its class)
   * @param type the recorded `environment_type`
   * @param session where the outputs come from
   * @param uname the uname fields
   * @param resumed a resumed part: commands are setup until {@link ReplayingEnvironment.agentGoesOn}
   */
  constructor(
    config: Record<string, unknown>,
    type: string,
    session: ReplaySession,
    uname: Record<string, string>,
    resumed = false,
  ) {
    this.config = config;
    this.type = type;
    this.#session = session;
    this.uname = uname;
    this.#setup = resumed ? true : undefined;
  }

  /** A resumed part's agent goes on: its commands get the recorded outputs from here. */
  agentGoesOn(): void {
    this.#setup = false;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  execute(action: Action): Promise<ExecOutput> {
    try {
      if (this.#setup ?? this.#session.calls === 0) {
        return Promise.resolve({ output: "", returncode: 0, exception_info: "" });
      }
      return Promise.resolve(this.#session.output(action));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  templateVars(): Vars {
    return { ...structuredClone(this.config), ...this.uname };
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The model, with each call's messages checked against the recording first (see {@link ReplaySession.checkSent}). */
export class CheckedModel implements Model {
  readonly #inner: Model;
  readonly #session: ReplaySession;
  readonly config: Record<string, unknown>;
  readonly type: string;
  readonly formatMessage?: NonNullable<Model["formatMessage"]>;
  readonly ask?: NonNullable<Model["ask"]>;

  constructor(inner: Model, session: ReplaySession) {
    this.#inner = inner;
    this.#session = session;
    this.config = inner.config;
    this.type = inner.type;
    const { formatMessage, ask } = inner;
    if (formatMessage) this.formatMessage = (role, content) => formatMessage.call(inner, role, content);
    if (ask) {
      this.ask = (messages, signal) => {
        session.checkSent(messages);
        return ask.call(inner, messages, signal);
      };
    }
  }

  query(messages: readonly Message[], signal?: AbortSignal): Promise<AssistantMessage> {
    try {
      this.#session.checkSent(messages);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.#inner.query(messages, signal);
  }

  formatObservations(
    message: { extra: { actions: Action[] } },
    outputs: ExecOutput[],
    vars: Vars,
  ): ReturnType<Model["formatObservations"]> {
    return this.#inner.formatObservations(message, outputs, vars);
  }

  templateVars(): Vars {
    return this.#inner.templateVars();
  }
}
