/**
 * `claudius help TOPIC` beyond the commands: the config keys, the providers and the exit codes, each
 * rendered for an 80-column terminal from the table it is defined in (the key definitions, `PROVIDERS`,
 * `EXIT_CODES`), as the documentation is.
 *
 * @module
 */
import { HELP_WIDTH, wrap } from "../lib/help.ts";
import { UsageError } from "../lib/flags.ts";
import { EXIT_CODES } from "../core/host.ts";
import { PROVIDERS } from "../core/models/providers.ts";
import { providerText } from "../core/models/provider_docs.ts";

/** One help topic: a line about it, and its text. */
export interface Topic {
  summary: string;
  /** The text; `arg` narrows it (`claudius help keys model`). */
  render(arg?: string): Promise<string> | string;
}

/** What each exit status means (the codes are {@link EXIT_CODES}'). */
export const EXIT_MEANINGS: Record<string, string> = {
  Submitted: "the model said it was done (its submission is in the trajectory)",
  LimitsExceeded: "the step or cost limit was reached",
  TimeExceeded: "the wall-time limit was reached",
  RepeatedFormatError: "too many replies in a row without a valid command",
  EnvironmentLost: "the container or sandbox went away",
  Hangup: "SIGHUP (the terminal closed)",
  Interrupted: "SIGINT (Ctrl-C)",
  Quit: "SIGQUIT",
  Terminated: "SIGTERM",
};

/** Markdown of the config reference as terminal text: no backticks, items wrapped with a hanging indent. */
function terminalText(markdown: string, width: number): string {
  // A word longer than a line (a regex) is cut into pieces that fit.
  const room = width - 6;
  const plain = (s: string) =>
    s.replaceAll("`", "").split(" ").map((w) =>
      w.length <= room ? w : (w.match(new RegExp(`.{1,${room}}`, "g")) ?? [w]).join(" ")
    )
      .join(" ");
  const out: string[] = [];
  for (const line of markdown.split("\n")) {
    const heading = /^#+ (.*)$/.exec(line);
    const item = /^- (.*)$/.exec(line);
    if (heading) out.push(`${plain(heading[1] ?? "")}:`);
    else if (item) out.push(...wrap(plain(item[1] ?? ""), width, 6, 2).map((l, i) => (i ? l : `  ${l}`)));
    else if (line.trim()) out.push(...wrap(plain(line), width, 2, 2).map((l, i) => (i ? l : `  ${l}`)));
    else out.push("");
  }
  return out.join("\n").replace(/\n{3,}/g, "\n\n").trim();
}

async function keys(section?: string): Promise<string> {
  // The schema's every section, loaded only for this topic.
  const { configReference } = await import("./config_reference.ts");
  const markdown = await configReference();
  const parts = markdown.split(/^(?=### )/m);
  const names = parts.map((p) => /^### (\S+)/.exec(p)?.[1] ?? "").filter(Boolean);
  if (section === undefined) {
    const one = wrap(`One section: claudius help keys SECTION (${names.join(", ")}).`, HELP_WIDTH).join("\n");
    return `${terminalText(markdown, HELP_WIDTH)}\n\n${one}`;
  }
  const part = parts.find((p) => p.startsWith(`### ${section}\n`));
  if (!part) throw new UsageError(`no config section '${section}' (sections: ${names.join(", ")})`);
  return terminalText(part, HELP_WIDTH);
}

function providers(): string {
  const lines = [
    ...wrap(
      "Providers: the model name's prefix picks one (model.base_url or --base-url names any other " +
        "server):",
      HELP_WIDTH,
    ),
    "",
  ];
  const indent = " ".repeat(16);
  for (const [prefix, p] of Object.entries(PROVIDERS)) {
    const t = providerText(prefix);
    lines.push(
      `  ${`${prefix}/`.padEnd(14)}${t.endpoint === "-" ? "(no default: set the endpoint)" : t.endpoint}`,
    );
    const auth = p.credentials
      ? `credentials: ${t.auth}`
      : t.auth === "none"
      ? "no key"
      : `key from ${t.auth}`;
    const base = t.endpointEnv.length ? `; endpoint from ${t.endpointEnv.join(" or ")}` : "";
    const settings = t.settings.map((s) => `; ${s}`).join("");
    lines.push(
      ...wrap(
        `${t.protocol}, ${auth}${base}${settings}${p.local ? " (local: free)" : ""}`,
        HELP_WIDTH,
        16,
        16,
      )
        .map((l, i) => (i ? l : indent + l)),
    );
  }
  return lines.join("\n");
}

function exitCodes(): string {
  const rows: [number, string, string][] = [
    ...Object.entries(EXIT_CODES).map(([status, code]): [number, string, string] => [
      code,
      status,
      EXIT_MEANINGS[status] ?? "",
    ]),
    [1, "an error", "its class is the trajectory's exit status (an API error, ...)"],
    [2, "usage or config error", "nothing was run or paid for"],
  ];
  rows.sort((a, b) => a[0] - b[0]);
  const lines = ["Exit codes of a run (claudius, claudius resume):", ""];
  for (const [code, status, meaning] of rows) {
    const head = `  ${String(code).padEnd(5)}${status.padEnd(23)}`;
    lines.push(...wrap(meaning, HELP_WIDTH, head.length).map((l, i) => (i ? l : head + l)));
  }
  lines.push("", "A second signal ends the run at once.");
  return lines.join("\n");
}

/** The topics, by name. */
export const TOPICS: Readonly<Record<string, Topic>> = {
  keys: { summary: "every config key with its default (claudius help keys SECTION)", render: keys },
  providers: { summary: "model name prefixes, their endpoints and key variables", render: providers },
  "exit-codes": { summary: "what each exit code of a run means", render: exitCodes },
};
