/**
 * `BASH_ENV` where the environment sources it: non-interactive bash sources the file it names before
 * every `bash -c`. Containers and bubblewrap run bash as upstream does, sourcing it (the local
 * environment keeps bash from it, as upstream's `/bin/sh -c` never reads it: `withoutBashEnv()` in
 * `local.ts`); there a slow or hanging file would make every command slow or time out, so a run that
 * sets it first times one empty command and says so. Loaded when `environment.env` sets `BASH_ENV`.
 *
 * @module
 */
import type { Environment } from "../../types.ts";
import { configuredBashEnv } from "../_keys.ts";

/**
 * Time one empty command when `environment.env` sets `BASH_ENV` and the environment sources it, and
 * warn when it hangs (every command would time out) or takes over 2 seconds (every command pays it).
 *
 * @param env the started environment
 * @param config its resolved config (`environment_class`, `env`, `timeout`)
 * @param log receives the warning
 * @param signal aborts the probe (Ctrl-C)
 */
export async function warnSlowBashEnv(
  env: Environment,
  config: Record<string, unknown>,
  log: (line: string) => void,
  signal?: AbortSignal,
): Promise<void> {
  const rc = configuredBashEnv(config);
  if (rc === undefined || (config.environment_class ?? "local") === "local") return;
  const timeout = Number(config.timeout) || 0;
  const limit = timeout > 0 ? Math.min(timeout, 15) : 15;
  const started = performance.now();
  const probe = AbortSignal.timeout(limit * 1000);
  const out = await env.execute({ command: "true" }, signal ? AbortSignal.any([signal, probe]) : probe);
  signal?.throwIfAborted();
  const seconds = (performance.now() - started) / 1000;
  const what = `environment.env.BASH_ENV=${rc}: bash sources it before every command`;
  const hung = probe.aborted || /timed out/.test(out.exception_info);
  if (hung) {
    log(
      `warning: ${what}, and an empty command did not finish within ${
        Math.min(limit, timeout || limit)
      } s: expect every command to time out; fix that file or unset BASH_ENV`,
    );
  } else if (out.returncode !== 0) {
    const why = out.output.trim().slice(0, 200) || out.exception_info;
    log(`warning: ${what}, and an empty command failed (${why}): expect every command to fail`);
  } else if (seconds > 2) {
    log(`warning: ${what}, which takes ${seconds.toFixed(1)} s: every command pays that`);
  }
}
