/**
 * The terminal of a run that asks a person (the interactive agent, a task typed at the prompt, the
 * dangerous-command gate): its session and its signals. Loaded only for such a run.
 *
 * @module
 */
import { type EndingSignal, SIGNAL_STATUSES } from "../core/errors.ts";
import type { Host } from "../core/host.ts";
import type { Interrupts } from "../features/interactive/user_io.ts";
import { claudiusConfigDir } from "../core/user_dirs.ts";
import { secretValues } from "../core/redact.ts";

/** The session {@link openTerminal} opens. */
export type TerminalSession = Awaited<ReturnType<typeof openTerminal>>;

/** The terminal session of a run that asks a person (its screen, prompt and history). */
export async function openTerminal(host: Host, canAsk: boolean) {
  const { openSession } = await import("../features/interactive/session.ts");
  const hostEnv = host.env;
  const live = host.terminal.stdout;
  const configDir = claudiusConfigDir(hostEnv);
  return openSession({
    stdin: host.stdin,
    stdout: host.stdout,
    canAsk,
    live,
    color: live && !hostEnv.NO_COLOR,
    columns: () => host.consoleSize().columns,
    ...(configDir ? { historyPath: `${configDir}/history.jsonl` } : {}),
    secrets: secretValues(hostEnv),
  });
}

/**
 * Signals of an interactive run: Ctrl-C interrupts the step (the agent stops the model call or the
 * command and asks for a comment); another before that question is answered (a double press) ends
 * the run; any signal after the run was ended forces the exit. SIGTERM, SIGHUP and SIGQUIT end the
 * run.
 */
export function onInteractiveSignals(
  host: Host,
  interrupts: Interrupts,
  ended: AbortSignal,
  end: (name: EndingSignal, status: string) => void,
  again: (name: EndingSignal, status: string) => void,
): () => void {
  const listeners = (Object.keys(SIGNAL_STATUSES) as EndingSignal[]).map((name) => {
    const status = SIGNAL_STATUSES[name];
    const listener = () => {
      if (ended.aborted) return again(name, status);
      if (name === "SIGINT" && !interrupts.pending) return interrupts.fire();
      end(name, status);
      interrupts.fire(); // ending the run also cancels a prompt that is waiting for input
    };
    return host.onSignal(name, listener);
  });
  return () => listeners.forEach((stop) => stop());
}
