/**
 * Harbor's and Pier's own mini-swe-agent command lines, run unchanged with claudius installed as
 * `mini-swe-agent` (and `mini`) in a container of `claudius-test-debian`, headless, against the loopback
 * server. Harbor and Pier cannot be installed here: each line below is what their `MiniSweAgent`
 * class builds, read from their source (see VARIANTS), with the environment it sets; the test runs it
 * as their `exec_as_agent` does (`set -o pipefail; <line>` through `bash -c` in the task's directory).
 * Every ending of the agent must exit 0, the trajectory must be where Harbor reads it, and the model
 * must be reached at the endpoint the variable they set names. Ignored without an engine unless CI is set.
 */
import { assert, assertEquals, assertMatch } from "../_support/assert.ts";
import { startFakeServer } from "../_support/fake_server.ts";
import type { ScriptReply } from "../../src/core/models/extra/_script.ts";
import { bundleInto, wrapperText } from "../../src/cli/install.ts";
import { runFlags } from "../bench/_child.ts";

const REPO = new URL("../../", import.meta.url).pathname;
const IMAGE = "claudius-test-debian:latest";
const KEY = "sk-harbor-lines-SECRET-42";
const TRAJECTORY = "/logs/agent/mini-swe-agent.trajectory.json";
const TEE = "2>&1 </dev/null | tee /logs/agent/mini-swe-agent.txt";

async function run(cmd: string, args: string[], options: { stdin?: string } = {}) {
  const child = new Deno.Command(cmd, {
    args,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(options.stdin));
    await w.close();
  }
  const out = await child.output();
  const d = new TextDecoder();
  return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
}

const engine = await run("docker", ["image", "inspect", IMAGE]).then((r) => r.code === 0, () => false);
const ignore = !engine && !Deno.env.get("CI");
if (!engine) console.error(`command_lines_test.ts: no engine or no ${IMAGE}: ignored (set CI to fail)`);

/** Python's `shlex.quote`, as both frameworks quote the task and some values. */
function shq(s: string): string {
  if (s !== "" && /^[\w@%+=:,./-]+$/.test(s)) return s;
  return `'${s.replaceAll("'", `'"'"'`)}'`;
}

/** What a framework's `run()` asks the environment to execute, in order. */
interface Lines {
  /** Commands before the agent's (a config written with a heredoc). */
  setup: string[];
  command: string;
  env: Record<string, string>;
}

/** A variant's inputs: the model name, the task, the loopback URL, and the custom config (if any). */
interface Given {
  model: string;
  task: string;
  url: string;
  config?: string;
}

/** `mkdir -p /tmp/mswea-config; cat > FILE << MARKER ... MARKER`, as both write a config or registry. */
const heredoc = (path: string, text: string, marker: string) =>
  `mkdir -p /tmp/mswea-config\ncat > '${path}' << '${marker}'\n${text}\n${marker}\n`;

const UV_PATH = 'if [ -f "$HOME/.local/bin/env" ]; then . "$HOME/.local/bin/env"; ' +
  'else export PATH="$HOME/.local/bin:$PATH"; fi; ';
const HARBOR_ENV = { MSWEA_CONFIGURED: "true", MSWEA_COST_TRACKING: "ignore_errors" };
const PIER_ENV = { LITELLM_LOCAL_MODEL_COST_MAP: "true", ...HARBOR_ENV };
const SESSION = "hello-world__aBcDeFg";

/**
 * Every command line the frameworks' `MiniSweAgent` classes build (one per branch of their builders),
 * with where it was read:
 * - Harbor before 0.13 (`create_run_agent_commands` returning an `ExecInput`);
 * - Harbor 0.13.2 (`laude-institute/harbor` as forked in lieexxli/harbor ad66e96, pyproject 0.13.2):
 *   `--cost-limit 0` from its CLI_FLAGS, `-c mini` only in front of other specs, reasoning effort as
 *   the Responses class for `openai/` models and `extra_body.reasoning_effort` for others;
 * - Harbor main (as forked in ayush-or/harbor 47f337f): always `-c mini -c model.model_kwargs.timeout=3600`,
 *   a session header, a registry file, the class and `api_base` of its model connection;
 * - Pier (datacurve-ai/pier 0165e92): `-c mini.yaml -c agent.cost_limit=0`, the Responses class for
 *   `openai/` models, reasoning effort, cache control and `model_kwargs` flags; and a published subclass
 *   of Pier's adapter that drops `--exit-immediately`.
 */
const VARIANTS: Record<string, (g: Given) => Lines> = {
  "harbor <0.13 (mini -m -t -y -o -l 0)": (g) => ({
    setup: [],
    command: `mini -m ${g.model} -t ${shq(g.task)} -y -o ${TRAJECTORY} -l 0 --exit-immediately ${TEE}`,
    env: { MSWEA_CONFIGURED: "true", OPENAI_API_KEY: KEY, OPENAI_API_BASE: g.url },
  }),
  "harbor 0.13.2": (g) => ({
    setup: [],
    command:
      `${UV_PATH}mini-swe-agent --yolo --model=${g.model} --task=${shq(g.task)} --output=${TRAJECTORY} ` +
      `--cost-limit 0 --exit-immediately ${TEE}`,
    env: { ...HARBOR_ENV, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: g.url, OPENAI_API_BASE: g.url },
  }),
  "harbor 0.13.2 config_file": (g) => ({
    setup: [heredoc("/tmp/mswea-config/custom.yaml", g.config ?? "{}", "MSWEA_CONFIG_EOF_1a2b3c4d")],
    command:
      `${UV_PATH}mini-swe-agent --yolo --model=${g.model} --task=${shq(g.task)} --output=${TRAJECTORY} ` +
      `--cost-limit 0 -c mini -c /tmp/mswea-config/custom.yaml --exit-immediately ${TEE}`,
    env: { ...HARBOR_ENV, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: g.url, OPENAI_API_BASE: g.url },
  }),
  "harbor 0.13.2 reasoning_effort, openai/ (Responses)": (g) => ({
    setup: [],
    command:
      `${UV_PATH}mini-swe-agent --yolo --model=${g.model} --task=${shq(g.task)} --output=${TRAJECTORY} ` +
      "--cost-limit 0 -c mini -c model.model_class=litellm_response -c model.model_kwargs.reasoning.effort=high " +
      `--exit-immediately ${TEE}`,
    env: { ...HARBOR_ENV, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: g.url, OPENAI_API_BASE: g.url },
  }),
  "harbor 0.13.2 reasoning_effort, another provider (extra_body)": (g) => ({
    setup: [],
    command: `${UV_PATH}mini-swe-agent --yolo --model=hosted_vllm/qwen3-coder --task=${shq(g.task)} ` +
      `--output=${TRAJECTORY} --cost-limit 0 -c mini -c model.model_kwargs.extra_body.reasoning_effort=high ` +
      `--exit-immediately ${TEE}`,
    env: { ...HARBOR_ENV, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: g.url, OPENAI_API_BASE: g.url },
  }),
  "harbor main": (g) => ({
    setup: [],
    command: `${UV_PATH}mini-swe-agent --yolo --model=${shq(g.model)} --task=${shq(g.task)} ` +
      `--output=${TRAJECTORY} --cost-limit 0 -c mini -c model.model_kwargs.timeout=3600 ` +
      `-c ${shq(`model.model_kwargs.extra_headers.X-Session-ID=${SESSION}`)} -c model.model_class=litellm ` +
      `--exit-immediately ${TEE}`,
    env: { ...HARBOR_ENV, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: g.url },
  }),
  "harbor main config, registry, reasoning, max_tokens, api_base": (g) => ({
    setup: [
      heredoc("/tmp/mswea-config/custom.yaml", g.config ?? "{}", "MSWEA_CONFIG_EOF_5e6f7a8b"),
      heredoc(
        "/tmp/mswea-config/registry.json",
        JSON.stringify({ [g.model]: { input_cost_per_token: 1e-6, output_cost_per_token: 2e-6 } }, null, 2),
        "MSWEA_REGISTRY_EOF_9c0d1e2f",
      ),
    ],
    command: `${UV_PATH}mini-swe-agent --yolo --model=${shq(g.model)} --task=${shq(g.task)} ` +
      `--output=${TRAJECTORY} --cost-limit 0 -c mini -c model.model_kwargs.timeout=3600 ` +
      "-c /tmp/mswea-config/custom.yaml -c model.litellm_model_registry=/tmp/mswea-config/registry.json " +
      `-c ${shq(`model.model_kwargs.extra_headers.X-Session-ID=${SESSION}`)} ` +
      "-c model.model_class=litellm_response -c model.model_kwargs.reasoning.effort=high " +
      "-c model.model_kwargs.max_output_tokens=4096 -c model.model_class=litellm_response " +
      `-c ${shq(`model.model_kwargs.api_base=${g.url}`)} --exit-immediately ${TEE}`,
    env: { ...HARBOR_ENV, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: g.url, OPENAI_API_BASE: g.url },
  }),
  "pier": (g) => ({
    setup: [],
    command: `. "$HOME/.local/bin/env"; mini-swe-agent --yolo --model=${g.model} --task=${shq(g.task)} ` +
      `--output=${TRAJECTORY} -c mini.yaml -c agent.cost_limit=0 -c model.model_class=litellm_response ` +
      `--exit-immediately ${TEE}`,
    env: { ...PIER_ENV, OPENAI_API_KEY: KEY, OPENAI_API_BASE: g.url },
  }),
  "pier config_yaml, reasoning_effort, set_cache_control, model_kwargs": (g) => ({
    setup: [heredoc("/tmp/mswea-config/custom.yaml", g.config ?? "{}", "MSWEA_CONFIG_EOF_3a4b5c6d")],
    command: `. "$HOME/.local/bin/env"; mini-swe-agent --yolo --model=${g.model} --task=${shq(g.task)} ` +
      `--output=${TRAJECTORY} -c mini.yaml -c agent.cost_limit=0 -c /tmp/mswea-config/custom.yaml ` +
      "-c model.model_class=litellm_response -c model.model_kwargs.reasoning_effort=high " +
      `-c model.set_cache_control=default_end -c model.model_kwargs.verbosity=${
        shq(JSON.stringify("low"))
      } ` +
      `-c model.model_kwargs.parallel_tool_calls=true --exit-immediately ${TEE}`,
    env: { ...PIER_ENV, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: g.url },
  }),
  "pier subclass without --exit-immediately": (g) => ({
    setup: [],
    command: `. "$HOME/.local/bin/env"; mini-swe-agent --yolo --model=${g.model} --task=${shq(g.task)} ` +
      `--output=${TRAJECTORY} -c mini.yaml -c agent.cost_limit=0 -c model.model_class=litellm_response ${TEE}`,
    env: { ...PIER_ENV, OPENAI_API_KEY: KEY, OPENAI_API_BASE: g.url },
  }),
};

type Body = Record<string, unknown>;
/** What a variant's flags must have done to the first request (and the trajectory), where visible. */
const CHECKS: Record<
  string,
  (body: Body, trajectory: { info: { model_stats: { instance_cost: number } } }) => void
> = {
  "harbor 0.13.2 reasoning_effort, openai/ (Responses)": (b) => assertEquals(b.reasoning, { effort: "high" }),
  "harbor 0.13.2 reasoning_effort, another provider (extra_body)": (b) => {
    assertEquals([b.model, b.reasoning_effort], ["qwen3-coder", "high"]);
  },
  "harbor main config, registry, reasoning, max_tokens, api_base": (b, t) => {
    assertEquals([b.reasoning, b.max_output_tokens], [{ effort: "high" }, 4096]);
    // Priced from the registry file (the loopback reports 10 prompt and 5 completion tokens a call).
    assert(
      Math.abs(t.info.model_stats.instance_cost - 2 * (10e-6 + 5 * 2e-6)) < 1e-12,
      JSON.stringify(t.info),
    );
  },
  "pier config_yaml, reasoning_effort, set_cache_control, model_kwargs": (b) => {
    assertEquals([b.reasoning, b.parallel_tool_calls], [{ effort: "high" }, true]);
  },
};

/** The variants that carry a config of their own (where a step or time limit can be set). */
const WITH_CONFIG = Object.keys(VARIANTS).filter((v) => /config/.test(v));

/** The model's replies by the ending a run is for (the task names it), step by step. */
function replyFor(ending: string, step: number): ScriptReply {
  switch (ending) {
    case "submit":
      return step === 0
        ? { content: "Look first.", commands: ["pwd; echo made > made.txt"] }
        : { content: "Done.", commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] };
    case "limits":
      return { content: "Once more.", commands: ["true"] };
    case "time":
      return { content: "Wait.", commands: ["sleep 2"] };
    case "format":
      return { content: "I answer in prose only." };
    default:
      return { fault: "status", status: 401, body: '{"error": {"message": "invalid key"}}' };
  }
}

/** The custom config of a run (a config-carrying variant): the limit its ending needs. */
const CONFIGS: Record<string, string> = {
  submit: "agent:\n  step_limit: 10\n",
  limits: "agent:\n  step_limit: 2\n",
  time: "agent:\n  wall_time_limit_seconds: 1\n",
};

/** Put claudius into the container as `deno task install` would, with uv's `~/.local/bin/env` beside it. */
async function install(container: string, tmp: string): Promise<void> {
  const app = `${tmp}/app`;
  await bundleInto(Deno.execPath(), REPO.replace(/\/$/, ""), app);
  const exec = (cmd: string) => run("docker", ["exec", container, "bash", "-c", cmd]);
  assertEquals((await exec("mkdir -p /opt/claudius /root/.local/bin /logs/agent")).code, 0);
  assertEquals(
    (await run("docker", ["cp", await Deno.realPath(Deno.execPath()), `${container}:/opt/claudius/deno`]))
      .code,
    0,
  );
  assertEquals((await run("docker", ["cp", app, `${container}:/opt/claudius/app`])).code, 0);
  // As the install's bin/claudius: the run task's V8 flags and permissions, then the program.
  const launcher =
    `#!/bin/sh\nDENO_DIR=/tmp/claudius-deno DENO_NO_UPDATE_CHECK=1 exec /opt/claudius/deno run ` +
    `${runFlags().join(" ")} /opt/claudius/app/main.js "$@"\n`;
  const files: [string, string][] = [
    ["/root/.local/bin/claudius", launcher],
    [
      "/root/.local/bin/env",
      'case ":$PATH:" in *":$HOME/.local/bin:"*) ;; *) export PATH="$HOME/.local/bin:$PATH" ;; esac\n',
    ],
  ];
  for (const face of ["mini", "mini-swe-agent", "mini-extra"]) {
    files.push([`/root/.local/bin/${face}`, wrapperText(face, "/root/.local/bin/claudius")]);
  }
  for (const [path, text] of files) {
    const w = await run(
      "docker",
      ["exec", "-i", container, "sh", "-c", `cat > ${path} && chmod 755 ${path}`],
      { stdin: text },
    );
    assertEquals(w.code, 0, w.stderr);
  }
  // Harbor before 0.13 runs `mini` from the default PATH.
  assertEquals((await exec("ln -s /root/.local/bin/mini /usr/local/bin/mini")).code, 0);
  const help = await exec('. "$HOME/.local/bin/env"; mini-swe-agent --help');
  assertEquals(help.code, 0, help.stderr);
}

Deno.test({
  name:
    "Harbor's and Pier's command lines run unchanged with claudius as mini-swe-agent: exit 0 on every ending",
  ignore,
  async fn() {
    const seen = new Map<string, number>();
    const server = await startFakeServer([], {
      reply: (request) => {
        const m = /ENDING=(\w+) RUN=(\d+)/.exec(request.raw);
        const key = m ? `${m[1]}:${m[2]}` : "?";
        const step = seen.get(key) ?? 0;
        seen.set(key, step + 1);
        return replyFor(m?.[1] ?? "error", step);
      },
    });
    const tmp = await Deno.makeTempDir({ prefix: "claudius-harbor-lines-" });
    const started = await run("docker", [
      "run",
      "-d",
      "--rm",
      "--network",
      "host",
      "-w",
      "/app",
      IMAGE,
      "sleep",
      "1200",
    ]);
    assertEquals(started.code, 0, started.stderr);
    const container = started.stdout.trim();
    try {
      await install(container, tmp);
      let n = 0;
      const runs: [string, string][] = [
        ...Object.keys(VARIANTS).map((v): [string, string] => [v, "submit"]),
        ...Object.keys(VARIANTS).map((v): [string, string] => [v, "format"]),
        ...WITH_CONFIG.flatMap((v): [string, string][] => [[v, "limits"], [v, "time"]]),
      ];
      for (const [variant, ending] of runs) {
        const id = ++n;
        const given = {
          model: "openai/gpt-5-mini",
          task: `Make a file. ENDING=${ending} RUN=${id}`,
          url: server.url,
        };
        const lines = VARIANTS[variant]!({
          ...given,
          ...(CONFIGS[ending] ? { config: CONFIGS[ending] } : {}),
        });
        const before = server.requests.length;
        const r = await runInContainer(container, lines);
        const what = `${variant} / ${ending}: exit ${r.code}\n${r.stdout}${r.stderr}`;
        assertEquals(r.code, 0, what);
        // The trajectory where Harbor reads it, in the shape its converter reads.
        const t = JSON.parse((await run("docker", ["exec", container, "cat", TRAJECTORY])).stdout);
        const status = {
          submit: "Submitted",
          format: "RepeatedFormatError",
          limits: "LimitsExceeded",
          time: "TimeExceeded",
        };
        assertEquals(t.info.exit_status, status[ending as keyof typeof status], what);
        assertEquals(t.trajectory_format, "mini-swe-agent-1.1");
        assert(typeof t.info.model_stats.instance_cost === "number", what);
        const log = await run("docker", ["exec", container, "cat", "/logs/agent/mini-swe-agent.txt"]);
        assertMatch(
          log.stdout,
          /Saved trajectory to '\/logs\/agent\/mini-swe-agent\.trajectory\.json'/,
          what,
        );
        assert(!log.stdout.includes(KEY) && !JSON.stringify(t).includes(KEY), `${what}: the key was written`);
        // The model was reached at the loopback endpoint their variable (or api_base) names, with the key.
        const mine = server.requests.slice(before);
        assert(mine.length > 0, what);
        assert(mine.every((q) => q.headers.authorization === `Bearer ${KEY}`), what);
        if (ending === "submit") {
          // The commands ran in the task's directory.
          assertEquals(
            t.messages.find((m: { extra?: { raw_output?: string } }) => m.extra?.raw_output)?.extra
              .raw_output,
            "/app\n",
            what,
          );
          if (variant.startsWith("harbor main")) {
            assertEquals(mine[0]!.headers["x-session-id"], SESSION, what);
          }
          const responses = /Responses|pier|registry/.test(variant);
          assertEquals(mine[0]!.path, responses ? "/v1/responses" : "/v1/chat/completions", what);
          CHECKS[variant]?.(mine[0]!.body as Body, t);
        }
      }
      // Where upstream exits non-zero (the provider refuses the key), so does claudius: Harbor fails the trial.
      const refused = await runInContainer(
        container,
        VARIANTS["harbor 0.13.2"]!({
          model: "openai/gpt-5-mini",
          task: "x ENDING=error RUN=0",
          url: server.url,
        }),
      );
      assert(refused.code !== 0, refused.stdout);
    } finally {
      await run("docker", ["rm", "-f", container]);
      await server.close();
    }
  },
});

/** Run a variant's commands as Harbor's `exec_as_agent` does: `set -o pipefail; ...` in the task's directory. */
async function runInContainer(container: string, lines: Lines) {
  const env = Object.entries(lines.env).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
  await run("docker", [
    "exec",
    container,
    "sh",
    "-c",
    "rm -rf /logs/agent/* /tmp/mswea-config /app/* && mkdir -p /logs/agent",
  ]);
  for (const setup of lines.setup) {
    const r = await run("docker", [
      "exec",
      ...env,
      "-w",
      "/app",
      container,
      "bash",
      "-c",
      `set -o pipefail; ${setup}`,
    ]);
    assertEquals(r.code, 0, r.stderr);
  }
  return await run("docker", [
    "exec",
    ...env,
    "-w",
    "/app",
    container,
    "bash",
    "-c",
    `set -o pipefail; ${lines.command}`,
  ]);
}
