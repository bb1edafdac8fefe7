/**
 * The `mechanisms` config section: one `section` key per opt-in mechanism of the rich harness
 * (SPEC section 15), each off by default, with its parameters and our own prompt prose. A small
 * file: it is read at start-up (the loader checks every key); the mechanisms themselves are loaded
 * only when one is enabled.
 *
 * @module
 */
import { errorMessage } from "../../lib/errors.ts";
import type { ConfigOf, Keys } from "../../core/config/keys.ts";

function regexCheck(source: string): string | undefined {
  try {
    new RegExp(source, "m");
  } catch (e) {
    return `is not a valid regular expression: ${errorMessage(e)}`;
  }
}

const enabled = { type: "bool", default: false, doc: "Turn the mechanism on." } as const;
const ours = "our prose (src/features/mechanisms/keys.ts)";

/** Verification gate: a submission is refused until a check has passed. */
const VERIFY_KEYS = {
  enabled,
  mode: {
    type: "string",
    default: "declared",
    values: ["declared", "observed", "harness"],
    doc: "`declared` (Daemon's): the first submission is refused, the next one is accepted. `observed`: " +
      "refused until a command matching `check_regex` exited 0 after the last command matching " +
      "`write_regex`. `harness`: at each submission the harness runs `test_command`; refused unless it exits 0.",
  },
  message: {
    type: "string",
    template: true,
    defaultDoc: ours,
    default: "Submission refused: run the tests first.\n" +
      '{%- if mode == "harness" %}\n\n' +
      "The harness ran `{{ test_command }}`; it exited with {{ test_returncode }}:\n\n{{ test_output }}\n" +
      '{%- elif mode == "observed" %}\n\n' +
      "No test command has passed since you last changed files. Run the tests, fix what fails, then " +
      "submit again.\n" +
      "{%- else %}\n\n" +
      "Check that your work does what the task asks (build it, run its tests), then submit again.\n" +
      "{%- endif %}",
    doc: "The output the model sees instead of its submission (sees `mode`, `refusals`, `test_command`, " +
      "`test_returncode`, `test_output`: the last 5,000 characters).",
  },
  check_regex: {
    type: "string",
    defaultDoc:
      "common test runners (`pytest`, `go test`, `cargo test`, `npm test`, `make test`, `./test*`, ...)",
    default: "(^|[\\s;&|(])(pytest|py\\.test|python3? -m (pytest|unittest)|tox|nox|go test|cargo test|" +
      "(npm|yarn|pnpm|bun)( run)? test|deno test|make (test|check)|ctest|mvn test|gradle test|" +
      "\\./(run_)?tests?\\S*)",
    check: regexCheck,
    doc: "`observed`: a command matching this (JavaScript syntax) that exits 0 is a passing check.",
  },
  write_regex: {
    type: "string",
    defaultDoc:
      "file-changing commands (`sed -i`, `tee`, `mv`, `cp`, `rm`, `touch`, `patch`, `git apply`/`checkout`/..., " +
      "`write`, redirections other than to `/dev/null`)",
    default: "(^|[\\s;&|(])(sed\\s+-i|tee|mv|cp|rm|touch|patch|git\\s+(apply|am|checkout|restore|reset|" +
      "stash|merge|rebase|cherry-pick)|write)\\b|>>?\\s*(?!&|/dev/null\\b)\\S",
    check: regexCheck,
    doc: "`observed`: a command matching this invalidates an earlier passing check.",
  },
  test_command: {
    type: "string",
    default: "",
    doc: "`harness`: the command the harness runs in the environment at each submission (required there).",
  },
  max_refusals: {
    type: "int",
    default: 0,
    min: 0,
    doc: "Accept the submission anyway after this many refusals; 0 = never.",
  },
} as const satisfies Keys;

/** Context compression at a prompt-token threshold. */
const COMPRESSION_KEYS = {
  enabled,
  prompt_tokens: {
    type: "int",
    default: 50000,
    min: 1,
    doc: "Compress before the next query once the last response's `usage.prompt_tokens` reaches this.",
  },
  max_compactions: {
    type: "int",
    default: 1,
    min: 0,
    doc: "How many times per run (Daemon: once); 0 = every time the threshold is reached.",
  },
  request_template: {
    type: "string",
    template: true,
    defaultDoc: ours,
    default: "Your conversation has grown long ({{ prompt_tokens }} prompt tokens). Before you go on, " +
      "write an account of it that will replace it: after your reply the conversation restarts from " +
      "the task and your account, and everything else is dropped.\n\n" +
      "Write prose and lists, and call no tool:\n" +
      "- What the user asked, in their own words: quote every requirement and constraint exactly.\n" +
      "- What you learned that you will need again: files, functions, commands that work, commands " +
      "that fail and why.\n" +
      "- What you changed and the state it left: files edited, tests run and their results.\n" +
      "- Your reasoning: the approach you are following, ideas you ruled out, and your next step.\n" +
      "Shorten command outputs to the lines that matter and leave out what you will not need.",
    doc: "The user message asking the model to compress its transcript (sees `prompt_tokens`, " +
      "`compactions`, and every template variable).",
  },
  summary_template: {
    type: "string",
    template: true,
    defaultDoc: ours,
    default: "Your conversation was compressed to save space. This is the account you wrote of the " +
      "work so far; continue the task from where it stands.\n\n<summary>\n{{ summary }}\n</summary>",
    doc: "The user message that follows the copied task after the restart (sees `summary`, `compactions`).",
  },
} as const satisfies Keys;

/** Sub-agents: the model runs claudius itself on a task file and gets a patch back. */
const SUBAGENT_KEYS = {
  enabled,
  command: {
    type: "string",
    default: "claudius",
    check: (v) => /^[\w.-]+$/.test(v) ? undefined : `must be one word, got ${JSON.stringify(v)}`,
    doc: "The command the model runs, alone, as `<command> TASK_FILE` (or `--task-file TASK_FILE`).",
  },
  max_depth: {
    type: "int",
    default: 1,
    min: 1,
    doc: "How deep sub-agents nest (1: the main agent's sub-agents cannot start their own).",
  },
  max_count: { type: "int", default: 3, min: 0, doc: "Sub-agents one agent may start; 0 = unlimited." },
  step_limit: {
    type: "int",
    default: 0,
    min: 0,
    doc:
      "A sub-agent's own step limit; 0 = what is left of its parent's (the parent's limits always cap it).",
  },
  instructions: {
    type: "string",
    template: true,
    defaultDoc: ours,
    default: "# Sub-agents\n\n" +
      "You can hand a self-contained piece of the work to a sub-agent: write its task to a file, then " +
      "run `{{ command }} TASK_FILE` as a command on its own. The sub-agent works in this same working " +
      "directory with the same tools; it does not see this conversation, so the task file must say " +
      "everything it needs. When it ends you get its exit status, its final output and a patch of the " +
      "changes it made.{% if max_count %} You can start at most {{ max_count }}.{% endif %}",
    doc: "Appended to the first user message when the agent may start sub-agents (sees the keys above).",
  },
} as const satisfies Keys;

/** Project context files preloaded into the first user message. */
const PROJECT_CONTEXT_KEYS = {
  enabled,
  files: {
    type: "string[]",
    default: ["AGENTS.md", "DAEMON.md"],
    doc: "Files looked for in the working directory (read inside the environment), in this order.",
  },
  max_chars: { type: "int", default: 20000, min: 1, doc: "Each file is cut to this many characters." },
  template: {
    type: "string",
    template: true,
    defaultDoc: ours,
    default: "# Project context\n\nThe working directory holds notes for agents working on this project." +
      "{% for f in files %}\n\n## {{ f.name }}\n\n{{ f.content }}{% endfor %}",
    doc: "Renders the template variable `project_context` from `files` (a list of `name`, `content`); " +
      "appended to the first user message unless `agent.instance_template` uses `project_context`.",
  },
} as const satisfies Keys;

/** Structured file actions handled by the harness. */
const FILE_ACTION_KEYS = {
  enabled,
  fence: {
    type: "string",
    default: "",
    doc: "Text mode: the action block's fence name (Daemon: `bash-action`) replaces `model.action_regex`; " +
      "empty keeps the model's.",
  },
  max_results: { type: "int", default: 100, min: 1, doc: "`search` shows at most this many lines." },
  instructions: {
    type: "string",
    template: true,
    defaultDoc: ours,
    default: "# File actions\n\n" +
      "Besides shell commands, these actions are carried out by the harness (each must be the whole " +
      "command):\n\n" +
      "- `read FILE A-B`: lines A to B of FILE, numbered; `read FILE` shows all of it.\n" +
      "- `write FILE` and, on the following lines, the content: replaces the whole file (creating it and " +
      "its directories).\n" +
      "- `write FILE N` + content: inserts the content before line N; `write FILE A-B` + content: replaces " +
      "lines A to B.\n" +
      "- `search KEYWORD DIR`: every line containing KEYWORD (a plain string; quote it if it has spaces) " +
      "in the files under DIR, as `path:line:text`.\n\n" +
      "Anything else runs as a shell command." +
      "{% if fence %} Write each action in a ```{{ fence }} block.{% endif %}",
    doc: "Appended to the first user message (sees `fence`: set in text mode only).",
  },
} as const satisfies Keys;

/** Routing and planning with the user (interactive runs only). */
const PLANNING_KEYS = {
  enabled,
  routing_template: {
    type: "string",
    template: true,
    defaultDoc: ours,
    default: "Before any work starts, decide how to approach this task:\n\n<task>\n{{ task }}\n</task>\n\n" +
      "Reply with one word: PLAN if it is large or unclear enough that a plan agreed with the user should " +
      "come first, DIRECT if it can be carried out straight away. Call no tool.",
    doc: "The classification call's user message (sent with the system message only).",
  },
  plan_regex: {
    type: "string",
    default: "\\bPLAN\\b",
    check: regexCheck,
    doc: "A classification reply matching this asks for a plan.",
  },
  plan_template: {
    type: "string",
    template: true,
    defaultDoc: ours,
    default: "Propose a plan for this task: the steps you will take, in order, and how you will check the " +
      "result. Run no command yet. The user will review it; once the user accepts it, reply with the final " +
      "plan followed by the line {{ finish_marker }}.",
    doc: "Asks for the plan (sees `finish_marker`).",
  },
  question_template: {
    type: "string",
    template: true,
    defaultDoc: ours,
    default: "{{ plan }}\n\nAccept this plan? Press Enter to accept it, or type what to change:",
    doc: "The question put to the user after each plan (sees `plan`, `round`).",
  },
  go_template: {
    type: "string",
    template: true,
    defaultDoc: ours,
    default: "The plan is agreed. Carry it out now.",
    doc: "The user message that ends planning.",
  },
  finish_marker: {
    type: "string",
    default: "PLAN_FINISHED",
    doc: "A plan reply containing this ends the planning.",
  },
  max_rounds: { type: "int", default: 20, min: 1, doc: "Plan replies at most (Daemon: 20)." },
} as const satisfies Keys;

/** Reroll on an empty submission (best-of-k; not pass@1). */
const REROLL_KEYS = {
  enabled,
  k: { type: "int", default: 2, min: 2, doc: "Attempts at most (Daemon: 2)." },
  empty: {
    type: "string",
    default: "submission",
    values: ["submission", "diff"],
    doc: "What counts as empty: the submitted text (whitespace only), or `diff`: `git status --porcelain` " +
      "in the working directory prints nothing (Daemon: an empty patch).",
  },
} as const satisfies Keys;

/** Anti-flailing nudge. */
const NUDGE_KEYS = {
  enabled,
  after: {
    type: "int",
    default: 3,
    min: 1,
    doc: "Nudge after this many commands in a row that failed (returncode not 0) or repeated the one before.",
  },
  message: {
    type: "string",
    template: true,
    defaultDoc: ours,
    default: "Your last {{ streak }} commands failed or repeated the one before. Step back instead of " +
      "trying variations: read the last error again, check your assumptions (paths, names, versions), " +
      "and change your approach.",
    doc: "The user message added before the next query (sees `streak`).",
  },
} as const satisfies Keys;

/** The `mechanisms` keys: every switch of the rich harness, each off by default. */
export const MECHANISM_KEYS = {
  verify: {
    type: "section",
    keys: VERIFY_KEYS,
    doc: "Verification gate: the submission is refused until a check has passed.",
  },
  compression: {
    type: "section",
    keys: COMPRESSION_KEYS,
    doc: "Context compression: the model summarises its own transcript; the run restarts from the summary.",
  },
  subagents: {
    type: "section",
    keys: SUBAGENT_KEYS,
    doc: "Sub-agents: the model runs claudius on a task file and gets a patch back.",
  },
  project_context: {
    type: "section",
    keys: PROJECT_CONTEXT_KEYS,
    doc: "Project context files (`AGENTS.md`, ...) added to the first user message.",
  },
  file_actions: {
    type: "section",
    keys: FILE_ACTION_KEYS,
    doc: "Structured file actions (`read`, `write`, `search`) handled by the harness.",
  },
  planning: {
    type: "section",
    keys: PLANNING_KEYS,
    doc: "Routing and planning with the user (interactive runs only; off headless).",
  },
  reroll: {
    type: "section",
    keys: REROLL_KEYS,
    doc: "Reroll on an empty submission (best-of-k: not pass@1).",
  },
  nudge: {
    type: "section",
    keys: NUDGE_KEYS,
    doc: "Anti-flailing nudge after repeated failing or repeated commands.",
  },
} as const satisfies Keys;

/** The resolved `mechanisms` section. */
export type MechanismsConfig = ConfigOf<typeof MECHANISM_KEYS>;

/** The names of the switches, in the order the loop applies them. */
export type MechanismName = keyof MechanismsConfig;

/** The switches that are on, with their resolved parameters, in the table's order (what a trajectory records). */
export function enabledMechanisms(config: MechanismsConfig | undefined): Record<string, unknown> {
  const on: Record<string, unknown> = {};
  for (const name of Object.keys(MECHANISM_KEYS) as MechanismName[]) {
    if (config?.[name]?.enabled) on[name] = config[name];
  }
  return on;
}
