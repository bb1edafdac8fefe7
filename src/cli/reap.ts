/**
 * `claudius reap`: remove the containers that runs of this machine left behind when they died.
 *
 * @module
 */
import { type CommandSpec, flag, parseCommandLine } from "../lib/flags.ts";
import { renderHelp } from "../lib/help.ts";
import type { Host } from "../core/host.ts";
import { reapContainers } from "../core/environments/extra/reap.ts";

/** The flags of `claudius reap`. */
export const REAP_FLAGS = {
  "docker-host": flag({
    type: "string",
    multiple: true,
    value: "H",
    doc: "the engine to look at (repeatable; default: the CLI's own)",
  }),
  executable: flag({
    type: "string",
    value: "PROGRAM",
    doc: "the engine's CLI (default docker; podman works)",
  }),
  "all-hosts": flag({
    type: "boolean",
    doc: "also remove the containers of runs on other machines, live or not",
  }),
  verbose: flag({ type: "boolean", short: "v", doc: "stacks on errors" }),
  help: flag({ type: "boolean", short: "h", doc: "print this help" }),
} as const;

/** `claudius reap`. */
export const SPEC: CommandSpec<typeof REAP_FLAGS> = {
  name: "claudius reap",
  summary: "remove containers left by this machine's dead runs",
  usage: ["[--docker-host H]... [--executable PROGRAM] [--all-hosts]"],
  examples: [
    ["claudius reap", "after a crash or a SIGKILL: remove what its runs left"],
    [
      "claudius reap --docker-host ssh://gpu1 --all-hosts",
      "clean another engine of every claudius container",
    ],
  ],
  description: "A container is this machine's when its labels name this machine; its run is dead when " +
    "its process is gone or the machine has rebooted since. Containers of live runs are kept, and so " +
    "are other machines' unless --all-hosts.",
  flags: REAP_FLAGS,
};

/**
 * `claudius reap [options]`.
 * @returns 0
 * @throws {UsageError} for bad flags
 */
export async function main(argv: string[], host: Host): Promise<number> {
  const { values } = parseCommandLine(REAP_FLAGS, argv);
  if (values.help) return (host.out(renderHelp(SPEC) + "\n"), 0);
  const hosts = values["docker-host"]?.length ? values["docker-host"] : [undefined];
  for (const dockerHost of hosts) {
    const { removed, otherHosts } = await reapContainers(values.executable ?? "docker", {
      hostEnv: host.env,
      allHosts: values["all-hosts"] === true,
      ...(dockerHost ? { dockerHost } : {}),
    });
    for (const id of removed) host.out(`removed ${id}\n`);
    const executable = values.executable ?? "docker";
    if (removed.length === 0) {
      host.err(
        `claudius reap: nothing to remove on ${dockerHost ?? `the default ${executable} engine`}` +
          (executable === "docker" ? " (podman's: --executable podman)" : ""),
      );
    }
    if (otherHosts.length) {
      host.err(
        `claudius reap: kept ${otherHosts.length} container(s) of runs on other machines on ` +
          `${dockerHost ?? "the default engine"} (--all-hosts removes them): ${otherHosts.join(", ")}`,
      );
    }
  }
  return 0;
}
