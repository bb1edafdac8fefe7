/**
 * Mechanisms in a container (the busybox image of the docker tests): the file actions' shell form
 * gives what the in-process form gives; compression restarts the context of a run whose commands
 * run in the container; a sub-agent works in its parent's container. Without an engine these tests
 * are ignored, except when `CI` is set: there they fail.
 */
import { assertEquals, assertMatch } from "../../_support/assert.ts";
import { DockerEnvironment } from "../../../src/core/environments/extra/docker.ts";
import { runCommand } from "../../../src/lib/process.ts";
import { readTrajectory } from "../../../src/core/trajectory.ts";
import { brief, requestMessages, setup } from "../../_support/mechanisms.ts";
import { ACTIONS, fixture, inProcess, snapshotFiles, viaShell } from "./_file_fixture.ts";

const TINY = "claudius-test-tiny:latest";
const SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT";

const engine = await runCommand(["docker", "image", "inspect", TINY], { timeoutSeconds: 60 })
  .then((r) => r.exitCode === 0, () => false);
const inCI = Boolean(Deno.env.get("CI"));
if (!engine && !inCI) console.error(`mechanisms/docker_test.ts: no engine or no ${TINY}: tests ignored`);

/** Starts a container of the test image (closed after the test). */
type Docker = (runArgs?: string[], cwd?: string) => Promise<DockerEnvironment>;

function dockerTest(name: string, fn: (docker: Docker) => Promise<void>) {
  Deno.test({
    name,
    ignore: !engine && !inCI,
    fn: async () => {
      if (!engine) throw new Error(`Cannot run docker tests: no engine or no ${TINY} (CI is set)`);
      const envs: DockerEnvironment[] = [];
      try {
        await fn(async (runArgs = ["--rm"], cwd = "/") => {
          const env = new DockerEnvironment(
            { image: TINY, run_args: runArgs, cwd, interpreter: ["bash", "-c"], timeout: 30 },
            { hostEnv: {}, runId: `mech${Date.now().toString(36)}` },
          );
          envs.push(env);
          await env.start();
          return env;
        });
      } finally {
        await Promise.all(envs.map((e) => e.close()));
      }
    },
  });
}

dockerTest(
  "file actions: the shell form in busybox gives the in-process outputs and files",
  async (docker) => {
    const host = await fixture();
    const mounted = await fixture();
    const env = await docker(["--rm", "-v", `${mounted}:/work`], "/work");
    const shell = await viaShell(env, 4);
    const mine = await inProcess(host, 4);
    for (let i = 0; i < ACTIONS.length; i++) assertEquals(shell[i], mine[i], ACTIONS[i]);
    assertEquals(await snapshotFiles(mounted), await snapshotFiles(host));
  },
);

dockerTest("compression: a run in a container restarts from system, task and summary", async (docker) => {
  const env = await docker();
  const { client, run, saved } = await setup(
    [
      { commands: ["uname -s > /tmp/os; cat /tmp/os"], usage: { prompt_tokens: 70 } },
      { content: "I wrote the OS name to /tmp/os." },
      { commands: [`${SUBMIT}; cat /tmp/os`] },
    ],
    { compression: { enabled: true, prompt_tokens: 50 } },
    { env },
  );
  assertEquals(await run(), { exit_status: "Submitted", submission: "Linux\n" });
  assertEquals(brief(requestMessages(client)[2]!).map(([role]) => role), ["system", "user", "user"]);
  const marker = (await saved()).messages.find((m) => m.extra?.context_management);
  assertEquals(marker?.extra?.context_management, {
    type: "compaction",
    boundary: 7,
    compaction: 1,
    prompt_tokens: 70,
    summary_message: 5,
  });
});

dockerTest(
  "subagents: the child works in its parent's container; its trajectory and cost roll up",
  async (docker) => {
    const env = await docker();
    const { client, run, saved, out } = await setup(
      [
        { commands: ["echo 'Write /tmp/child.txt.' > /tmp/task.md", "claudius /tmp/task.md"], cost: 0.01 },
        { commands: ["echo from the child > /tmp/child.txt"], cost: 0.02 }, // the child, in the container
        { commands: [SUBMIT], cost: 0.02 },
        { commands: [`${SUBMIT}; cat /tmp/child.txt`], cost: 0.01 },
      ],
      { subagents: { enabled: true } },
      { env },
    );
    assertEquals(await run(), { exit_status: "Submitted", submission: "from the child\n" });
    assertEquals(requestMessages(client)[1]![1]!.content, "Task: Write /tmp/child.txt.\n");
    assertMatch(
      String(requestMessages(client)[3]!.at(-1)!.content),
      /Sub-agent 1 ended with Submitted after 2 model calls \(\$0\.0400\)[^]*<patch>\n\(none: the working directory is not a git repository, or git is missing\)/,
    );
    const parent = await saved();
    const stats = parent.info.model_stats as { instance_cost: number; api_calls: number };
    assertEquals([stats.instance_cost.toFixed(6), stats.api_calls], ["0.060000", 4]);
    const child = (await readTrajectory(`${out}/run.sub1.traj.json`)).data;
    assertEquals(child.info.parent, { trajectory: "run.traj.json", depth: 0 });
    assertEquals((child.info.config as { environment_type: string }).environment_type, env.type);
  },
);
