/**
 * Every config key claudius knows, its type, default and meaning: this table is the YAML reference
 * (the README's config reference is generated from the same facts). Keys that upstream
 * mini-swe-agent defines but claudius does not act on are `inert`: accepted with a warning.
 *
 * @module
 */

/** The value types a key may hold. */
export type KeyType =
  | "string"
  | "int"
  | "number"
  | "bool"
  | "string[]"
  | "string-map"
  | "object"
  | "list"
  | "string|null";

/** One documented config key. */
export interface KeySpec {
  type: KeyType;
  /** Default when no config sets it; `undefined` means required or unset. */
  default?: unknown;
  doc: string;
  /** Upstream key that claudius accepts but does not act on (warns when set). */
  inert?: boolean;
}

/** The sections of a config file. */
export type Section = "agent" | "environment" | "model" | "run";

const OBSERVATION_TEMPLATE =
  "{% if output.exception_info %}<exception>{{output.exception_info}}</exception>\n{% endif %}" +
  "<returncode>{{output.returncode}}</returncode>\n<output>\n{{output.output}}</output>";

/** Upstream's default observation template (used when a config gives none). */
export const DEFAULT_OBSERVATION_TEMPLATE = OBSERVATION_TEMPLATE;
/** Upstream's default text-mode action regex. */
export const DEFAULT_ACTION_REGEX = "```mswea_bash_command\\s*\\n(.*?)\\n```";
/** Upstream's default text-mode format-error template. */
export const DEFAULT_TEXT_FORMAT_ERROR =
  "Please always provide EXACTLY ONE action in triple backticks, found {{actions|length}} actions.";

/** The schema: section -> key -> spec. */
export const SCHEMA: Record<Section, Record<string, KeySpec>> = {
  agent: {
    agent_class: { type: "string", default: "default", doc: "Agent class: `default` (the only one)." },
    system_template: { type: "string", doc: "Jinja2 template of the system message (required)." },
    instance_template: { type: "string", doc: "Jinja2 template of the first user message (required)." },
    step_limit: { type: "int", default: 0, doc: "Stop before model call N+1; 0 = no limit." },
    cost_limit: {
      type: "number",
      default: 3.0,
      doc: "Stop once cost reaches this many dollars; 0 = no limit.",
    },
    wall_time_limit_seconds: { type: "int", default: 0, doc: "Stop after this many seconds; 0 = no limit." },
    max_consecutive_format_errors: {
      type: "int",
      default: 3,
      doc: "End with `RepeatedFormatError` after this many format errors in a row; 0 = unlimited.",
    },
    output_path: { type: "string|null", default: null, doc: "Trajectory path (`-o` overrides)." },
    mode: { type: "string", inert: true, doc: "Upstream interactive agent: not implemented (always yolo)." },
    whitelist_actions: { type: "string[]", inert: true, doc: "Upstream interactive agent: not implemented." },
    confirm_exit: { type: "bool", inert: true, doc: "Upstream interactive agent: not implemented." },
  },
  environment: {
    environment_class: {
      type: "string",
      default: "local",
      doc: "`local`, `docker`, `podman` (docker with executable podman), `bubblewrap`.",
    },
    cwd: {
      type: "string",
      default: "",
      doc: "Working directory of every command (local: created if missing).",
    },
    env: {
      type: "string-map",
      default: {},
      doc: "Variables set for every command (win over forwarded ones).",
    },
    timeout: { type: "number", default: 30, doc: "Seconds one action may run before it is killed." },
    interpreter: {
      type: "string[]",
      doc: "Argv the command is appended to (local/bubblewrap `[bash, -c]`, docker `[bash, -lc]`).",
    },
    image: { type: "string", doc: "Container image (docker)." },
    forward_env: { type: "string[]", default: [], doc: "Host variables copied into the container when set." },
    executable: { type: "string", doc: "Container CLI (`docker` or `podman`) or `bwrap`." },
    run_args: { type: "string[]", doc: "Extra `docker run` args (default `[--rm]`)." },
    container_timeout: {
      type: "string",
      default: "2h",
      doc: "`sleep` duration keeping the container alive.",
    },
    pull_timeout: { type: "number", default: 120, doc: "Seconds allowed for `docker run -d` (incl. pull)." },
    wrapper_args: {
      type: "string[]",
      doc: "Bubblewrap args right after `bwrap` (default: upstream's, system dirs read-only, private /tmp).",
    },
    network: {
      type: "bool",
      doc: "Bubblewrap: `false` adds `--unshare-net` (only loopback). Default true.",
    },
    global_args: { type: "string[]", inert: true, doc: "Upstream singularity: not implemented." },
    exec_args: { type: "string[]", inert: true, doc: "Upstream singularity: not implemented." },
    sandbox_build_retries: { type: "int", inert: true, doc: "Upstream singularity: not implemented." },
    deployment_extra_kwargs: { type: "object", inert: true, doc: "Upstream swerex: not implemented." },
    startup_timeout: { type: "number", inert: true, doc: "Upstream swerex_modal: not implemented." },
    runtime_timeout: { type: "number", inert: true, doc: "Upstream swerex_modal: not implemented." },
    deployment_timeout: { type: "number", inert: true, doc: "Upstream swerex_modal: not implemented." },
    install_pipx: { type: "bool", inert: true, doc: "Upstream swerex_modal: not implemented." },
    modal_sandbox_kwargs: { type: "object", inert: true, doc: "Upstream swerex_modal: not implemented." },
  },
  model: {
    model_name: { type: "string", doc: "Model id, optionally with a provider prefix (`openai/gpt-5`)." },
    model_class: {
      type: "string",
      default: "openai",
      doc: "`openai` (tool calls) or `openai_textbased`; `scripted`, `scripted_textbased`; upstream " +
        "aliases `litellm`, `openrouter` (tool calls), `litellm_textbased`, `openrouter_textbased`.",
    },
    model_kwargs: {
      type: "object",
      default: {},
      doc: "Merged into the request body (litellm-only keys dropped).",
    },
    base_url: { type: "string", doc: "OpenAI-compatible endpoint, e.g. `http://127.0.0.1:8000/v1`." },
    api_key_env: { type: "string", doc: "Name of the variable holding the API key (preset per provider)." },
    request_timeout: { type: "number", default: 600, doc: "Deadline of one request, seconds." },
    retry_attempts: {
      type: "int",
      doc:
        "Attempts per query (429, 5xx, network, deadline); default 10 or `$MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT`.",
    },
    retry_base_delay: {
      type: "number",
      default: 1,
      doc: "First backoff delay, seconds (doubles, jittered).",
    },
    retry_max_delay: { type: "number", default: 60, doc: "Cap of one backoff delay, seconds." },
    input_cost_per_token: {
      type: "number",
      doc: "Dollars per prompt token (when the provider reports no cost).",
    },
    output_cost_per_token: { type: "number", doc: "Dollars per completion token." },
    cache_read_input_token_cost: { type: "number", doc: "Dollars per cached prompt token." },
    cost_tracking: {
      type: "string",
      doc:
        "`default` or `ignore_errors` (an unknown cost is 0, no stop); default `$MSWEA_COST_TRACKING` or `default`.",
    },
    observation_template: {
      type: "string",
      default: OBSERVATION_TEMPLATE,
      doc: "Renders each command result.",
    },
    format_error_template: {
      type: "string",
      doc: "Renders the re-prompt after a malformed reply (tool calls: `{{ error }}`; text: upstream's).",
    },
    action_regex: {
      type: "string",
      default: DEFAULT_ACTION_REGEX,
      doc: "Text mode: the action block regex.",
    },
    script: { type: "string", doc: "Scripted models: YAML/JSON file of replies." },
    replies: { type: "list", doc: "Scripted models: the replies inline." },
    litellm_model_registry: {
      type: "string|null",
      inert: true,
      doc: "Upstream litellm: use prices instead.",
    },
    set_cache_control: { type: "string|null", inert: true, doc: "Upstream Anthropic cache markers." },
    multimodal_regex: { type: "string", inert: true, doc: "Upstream multimodal content: not implemented." },
    provider: { type: "string", inert: true, doc: "Upstream portkey: not implemented." },
    litellm_model_name_override: { type: "string", inert: true, doc: "Upstream portkey: not implemented." },
    cost_per_call: { type: "number", inert: true, doc: "Upstream deterministic model: use reply `cost`." },
    outputs: { type: "list", inert: true, doc: "Upstream deterministic model: use `replies`." },
  },
  run: {
    task: { type: "string", doc: "The task (`--task` overrides)." },
    env_startup_command: {
      type: "string",
      doc: "Command run once in the environment before the first step.",
    },
    save_tarball: {
      type: "bool",
      default: false,
      doc: "After the run, write the working directory as `submission.tar.gz` next to the trajectory.",
    },
    save_patch: {
      type: "bool",
      default: false,
      doc: "After the run, write `git diff` of the working directory vs HEAD (untracked files included) " +
        "as `<trajectory stem>.patch` next to the trajectory.",
    },
  },
};

/** Levenshtein distance, for "did you mean" hints. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

/** The known key nearest to `key`, or undefined when none is close. */
export function nearestKey(key: string, known: string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(key, k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  return bestD <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined;
}
