/**
 * SingularityEnvironment. Apptainer cannot be installed here, so two stand-ins play it (both in
 * tests/_support/apptainer/, each marked as a stand-in): `record` records the argv it is run with,
 * which is compared with the argv upstream's own SingularityEnvironment runs for the same config
 * (tests/testdata/singularity_argv_golden.json, made by gen_singularity_golden.py; regenerated here
 * from the upstream mirror when it and python3 with pydantic are available); `apptainer` implements
 * the CLI surface used (build, exec) on bubblewrap, for the behaviour end to end. The end-to-end
 * tests need bwrap and docker (the sandbox is built from the tiny test image); without them they
 * are ignored, except when `CI` is set: there they fail.
 */
import { assert, assertEquals, assertMatch, assertRejects } from "../../_support/assert.ts";
import {
  SingularityEnvironment,
  type SingularityEnvironmentConfig,
} from "../../../src/core/environments/extra/singularity.ts";
import { runCommand } from "../../../src/lib/process.ts";
import { ConfigError } from "../../../src/core/errors.ts";
import { resolveConfig } from "../../../src/core/config/load.ts";
import { readTrajectory } from "../../../src/core/trajectory.ts";
import { startFakeServer } from "../../_support/fake_server.ts";
import { configSchema } from "../../_support/episode.ts";

const SUPPORT = new URL("../../_support/apptainer/", import.meta.url).pathname;
const TESTDATA = new URL("../../testdata/", import.meta.url).pathname;
const MIRROR = "/work/.mirror/SWE-agent+mini-swe-agent/repo";
const TINY = "docker-daemon://claudius-test-tiny:latest";
const inCI = Boolean(Deno.env.get("CI"));

async function sh(
  script: string,
  env?: Record<string, string>,
): Promise<{ code: number | null; out: string }> {
  const r = await runCommand(["bash", "-c", script], { timeoutSeconds: 120, ...(env ? { env } : {}) });
  return { code: r.exitCode, out: r.output };
}

interface Case {
  name: string;
  config: Record<string, unknown> & {
    executable?: string;
    forward_env?: string[];
    env?: Record<string, string>;
  };
  host_env?: Record<string, string>;
  commands: string[];
}
interface CallRecord {
  argv: string[];
  env: Record<string, string>;
}
interface Golden {
  upstream_commit: string;
  cases: { name: string; records: CallRecord[]; error: string }[];
}

/** The recording stand-in's calls (see tests/_support/apptainer/record). */
function parseRecords(text: string): CallRecord[] {
  return text.split("\x1e").filter(Boolean).map((record) => {
    const [argv = "", env = ""] = record.split("\x1d");
    return {
      argv: argv.split("\x1f").slice(1),
      env: Object.fromEntries(
        env.split("\x1f").slice(1).map((f) => [f.slice(0, f.indexOf("=")), f.slice(f.indexOf("=") + 1)]),
      ),
    };
  });
}

/** Every sandbox directory as <SANDBOX> (as the generator writes them). */
function normalise(records: CallRecord[]): CallRecord[] {
  const sandboxes = new Set(
    records.filter((r) => r.argv.includes("--sandbox")).map((r) => r.argv[r.argv.indexOf("--sandbox") + 1]!),
  );
  return records.map((r) => ({ ...r, argv: r.argv.map((a) => (sandboxes.has(a) ? "<SANDBOX>" : a)) }));
}

/**
 * What claudius runs where upstream runs `expected`: the variables (forwarded and `env`) leave the
 * argv (upstream's `--env K=V` pairs) for the CLI's environment, prefixed, `env` winning; the uname
 * probe (claudius's) is not upstream's.
 */
function claudiusForm(c: Case, expected: CallRecord[]): CallRecord[] {
  const prefix = (c.config.executable ?? "singularity") === "apptainer" ? "APPTAINERENV_" : "SINGULARITYENV_";
  const forwarded = (c.config.forward_env ?? []).filter((k) => c.host_env?.[k] !== undefined);
  return expected.map((r) => {
    if (!r.argv.includes("exec")) return r;
    const argv = r.argv.filter((a, i) => a !== "--env" && r.argv[i - 1] !== "--env");
    const env = Object.fromEntries([
      ...forwarded.map((k) => [prefix + k, c.host_env![k]!]),
      ...Object.entries(c.config.env ?? {}).map(([k, v]) => [prefix + k, v]),
    ]);
    return { argv, env };
  });
}

/** Run `c` through claudius's class against the recording stand-in; its calls, normalised. */
async function runOurs(c: Case): Promise<{ records: CallRecord[]; error: string }> {
  const bin = await Deno.makeTempDir({ prefix: "claudius-sing-rec-" });
  for (const name of ["singularity", "apptainer"]) await Deno.symlink(`${SUPPORT}record`, `${bin}/${name}`);
  const env = new SingularityEnvironment(
    { ...c.config, executable: `${bin}/${c.config.executable ?? "singularity"}` },
    { hostEnv: { ...Deno.env.toObject(), ...c.host_env } },
  );
  let error = "";
  try {
    await env.start();
    for (const command of c.commands) await env.execute({ command });
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  } finally {
    await env.close();
  }
  const text = await Deno.readTextFile(`${bin}/calls`).catch(() => "");
  await Deno.remove(bin, { recursive: true });
  const records = normalise(parseRecords(text))
    .filter((r) => r.argv.slice(-2).join(" ") !== "uname -snrvm")
    .map((r) => ({ ...r, argv: [r.argv[0]!.replace(/^.*\//, ""), ...r.argv.slice(1)] }));
  return { records, error };
}

const cases: Case[] = JSON.parse(await Deno.readTextFile(`${TESTDATA}singularity_cases.json`));
const golden: Golden = JSON.parse(await Deno.readTextFile(`${TESTDATA}singularity_argv_golden.json`));

Deno.test("SingularityEnvironment runs the argv upstream's SingularityEnvironment runs for the same config", async () => {
  for (const c of cases) {
    const want = golden.cases.find((g) => g.name === c.name);
    assert(want, `no golden for case '${c.name}' (rerun tests/testdata/gen_singularity_golden.py)`);
    const ours = await runOurs(c);
    assertEquals(ours.records, claudiusForm(c, want.records), c.name);
    assertEquals(ours.error !== "", want.error !== "", `${c.name}: ${ours.error}`);
    if (want.error) {
      assertMatch(ours.error, /^Cannot build sandbox from image fail:\/\/nothing with singularity: /);
    }
  }
});

const python = await sh(`python3 -c 'import pydantic' && git -C '${MIRROR}' rev-parse HEAD`).catch(() => ({
  code: 1,
  out: "",
}));
Deno.test({
  name: "singularity_argv_golden.json is what upstream's class runs today (regenerated from the mirror)",
  ignore: python.code !== 0,
  fn: async () => {
    const r = await sh(`python3 '${TESTDATA}gen_singularity_golden.py' '${MIRROR}' -`);
    assertEquals(r.code, 0, r.out);
    const fresh: Golden = JSON.parse(r.out);
    assertEquals(fresh.cases, golden.cases, `upstream ${fresh.upstream_commit} changed: rerun the generator`);
  },
});
if (python.code !== 0) {
  console.error(
    "singularity_test.ts: no mirror or no python3 with pydantic: the golden's freshness check is ignored",
  );
}

Deno.test("SingularityEnvironment() resolves upstream's defaults and the class reads them", () => {
  const env = new SingularityEnvironment({ image: "x.sif" }, { hostEnv: {} });
  assertEquals(
    env.config,
    {
      image: "x.sif",
      cwd: "/",
      env: {},
      forward_env: [],
      timeout: 30,
      executable: "singularity",
      sandbox_build_retries: 3,
      global_args: ["--quiet"],
      exec_args: ["--contain", "--cleanenv", "--fakeroot"],
      interpreter: ["bash", "-c"],
    } satisfies SingularityEnvironmentConfig,
  );
  assertEquals(
    new SingularityEnvironment({ image: "x" }, { hostEnv: { MSWEA_SINGULARITY_EXECUTABLE: "apptainer" } })
      .config.executable,
    "apptainer",
  );
  let e: unknown;
  try {
    new SingularityEnvironment({}, { hostEnv: {} });
  } catch (caught) {
    e = caught;
  }
  assert(e instanceof ConfigError && /environment\.image/.test(e.message), String(e));
  const resolved = resolveConfig([{
    spec: "t",
    data: { environment: { environment_class: "singularity", image: "x", exec_args: ["--contain"] } },
  }], { schema: configSchema() });
  assertEquals([resolved.environment.executable, resolved.environment.exec_args], ["singularity", [
    "--contain",
  ]]);
});

// End to end against the bubblewrap stand-in.
const bwrap =
  (await sh("bwrap --ro-bind / / true && docker image inspect claudius-test-tiny:latest >/dev/null")).code ===
    0;
if (!bwrap && !inCI) {
  console.error("singularity_test.ts: no bwrap or no docker tiny image: end-to-end tests ignored");
}

function e2eTest(name: string, fn: (tmp: string) => Promise<void>): void {
  Deno.test({
    name,
    ignore: !bwrap && !inCI,
    fn: async () => {
      if (!bwrap) {
        throw new Error(
          "Cannot run the singularity end-to-end tests: bwrap or the tiny image is missing and CI is set",
        );
      }
      const tmp = await Deno.makeTempDir({ prefix: "claudius-sing-" });
      try {
        await fn(tmp);
      } finally {
        await Deno.remove(tmp, { recursive: true });
      }
    },
  });
}

/** An environment on the bwrap stand-in, sandboxes under `tmp`. */
function standIn(
  tmp: string,
  config: Partial<SingularityEnvironmentConfig> = {},
  hostEnv: Record<string, string> = {},
) {
  const logs: string[] = [];
  const env = new SingularityEnvironment(
    { image: TINY, executable: `${SUPPORT}apptainer`, ...config },
    { hostEnv: { ...Deno.env.toObject(), TMPDIR: tmp, ...hostEnv }, log: (l) => logs.push(l) },
  );
  return { env, logs };
}

e2eTest("execute() runs in a writable sandbox built from the image; close() removes it", async (tmp) => {
  const { env } = standIn(tmp, { env: { GREETING: "hello world" } });
  await env.start();
  const sandbox = env.sandbox;
  assertMatch(sandbox, new RegExp(`^${tmp}/claudius-[0-9a-f]{8}$`));
  try {
    assertEquals(await env.execute({ command: 'echo "$GREETING"; id -u; echo $HOME' }), {
      output: "hello world\n0\n/root\n",
      returncode: 0,
      exception_info: "",
    });
    // Writable: what a command writes outside /tmp stays for the next one (under --contain, /tmp and
    // the home directory are fresh for each exec, as Apptainer's are).
    assertEquals((await env.execute({ command: "echo kept > /etc/mark; exit 3" })).returncode, 3);
    assertEquals((await env.execute({ command: "cat /etc/mark" })).output, "kept\n");
    assertEquals(await Deno.readTextFile(`${sandbox}/etc/mark`), "kept\n");
    // Upstream passes no --pwd for cwd "/": the contained home is where commands start.
    assertEquals((await env.execute({ command: "pwd" })).output, "/root\n");
    const vars = env.templateVars();
    assertEquals([vars.system, vars.image, vars.executable], ["Linux", TINY, `${SUPPORT}apptainer`]);
  } finally {
    await env.close();
  }
  assertEquals(await Deno.stat(sandbox).then(() => true, () => false), false, "the sandbox outlived close()");
});

e2eTest(
  "execute() honours cwd through --pwd and forwards host variables without putting them on an argv",
  async (tmp) => {
    const secret = `s3cret-${crypto.randomUUID()}`;
    const { env } = standIn(tmp, { cwd: "/tmp", forward_env: ["API_TOKEN", "UNSET_ONE"] }, {
      API_TOKEN: secret,
    });
    await env.start();
    try {
      const seen = env.execute({
        command: 'pwd; sleep 1.5; printf "%s|%s" "$API_TOKEN" "${UNSET_ONE-unset}"',
      });
      await new Promise((r) => setTimeout(r, 700));
      const argvs = (await sh("cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' '")).out;
      assertEquals((await seen).output, `/tmp\n${secret}|unset`);
      assert(argvs.includes(env.sandbox), "the exec was not seen running");
      assert(!argvs.includes(secret), "a forwarded value is on an argv");
    } finally {
      await env.close();
    }
  },
);

e2eTest(
  "execute() on timeout kills the command and everything it started, upstream's message",
  async (tmp) => {
    const { env } = standIn(tmp, { timeout: 1 });
    await env.start();
    try {
      const t0 = Date.now();
      const r = await env.execute({ command: "(sleep 2; touch /etc/marker) & echo started; sleep 30" });
      assert(Date.now() - t0 < 4000, `the timeout took ${Date.now() - t0} ms`);
      assertEquals([r.output, r.returncode], ["started\n", -1]);
      const argv = [
        `${SUPPORT}apptainer`,
        "--quiet",
        "exec",
        "--contain",
        "--cleanenv",
        "--fakeroot",
        "--writable",
        env.sandbox,
        "bash",
        "-c",
      ];
      const text = `Command '[${
        argv.map((a) => `'${a}'`).join(", ")
      }, '(sleep 2; touch /etc/marker) & echo started; sleep 30']' timed out after 1 seconds`;
      assertEquals(r.extra, { exception_type: "TimeoutExpired", exception: text });
      await new Promise((resolve) => setTimeout(resolve, 2000));
      assertEquals(
        await Deno.stat(`${env.sandbox}/etc/marker`).then(() => true, () => false),
        false,
        "a child survived the timeout",
      );
      const left = await sh(`ps -eo args | grep -F '${env.sandbox}' | grep -v -e grep -e claudius-guard`);
      assertEquals(left.out, "", "a process of the command outlived its timeout");
    } finally {
      await env.close();
    }
  },
);

e2eTest("start() retries a failing build, names the CLI's error, and leaves no sandbox", async (tmp) => {
  const { env, logs } = standIn(tmp, { image: "docker://nowhere/none:latest", sandbox_build_retries: 2 });
  const e = await assertRejects(() => env.start(), Error);
  assertMatch(
    e.message,
    /^Cannot build sandbox from image docker:\/\/nowhere\/none:latest with apptainer: FATAL: .*no registry is reachable/,
  );
  assertEquals(logs.filter((l) => /attempt \d\/2/.test(l)).length, 2);
  assertEquals(env.engineFault()?.kind, "start");
  await env.close();
  assertEquals([...Deno.readDirSync(tmp)], []);
});

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;
const PERMS = ["--allow-read", "--allow-write", "--allow-run", "--allow-env", "--allow-net", "--allow-sys"];

/** `claudius --env singularity` on the bwrap stand-in against `url`, sandboxes and trajectory under `tmp`. */
function spawnClaudius(tmp: string, url: string, buildDelay = 0): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: [
      ...["run", ...PERMS, MAIN, "-o", `${tmp}/run.traj.json`, "--task", "t", "-m", "m", "--base-url", url],
      ...["--env", "singularity", "--image", TINY, "-c", `environment.executable=${SUPPORT}apptainer`],
    ],
    env: {
      TMPDIR: `${tmp}/sandboxes`,
      NO_COLOR: "1",
      OPENAI_API_KEY: "sk-test",
      CLAUDIUS_STANDIN_BUILD_DELAY: String(buildDelay),
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** What is left where the sandboxes go (the stand-in's build-temp-* directories included). */
async function sandboxes(tmp: string): Promise<string[]> {
  return await Array.fromAsync(Deno.readDir(`${tmp}/sandboxes`), (e) => e.name).catch(() => []);
}

async function until(what: string, pred: () => Promise<boolean>, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; !(await pred());) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

e2eTest("claudius --env singularity submits, records its class, and removes the sandbox", async (tmp) => {
  await Deno.mkdir(`${tmp}/sandboxes`);
  const server = await startFakeServer([
    { commands: ["echo changed > /etc/motd; cat /etc/motd"] },
    { commands: ["printf 'COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\\nthe patch'"] },
  ]);
  try {
    const out = await spawnClaudius(tmp, server.url).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 0, stderr);
    const { data } = await readTrajectory(`${tmp}/run.traj.json`);
    assertEquals([data.info.exit_status, data.info.submission], ["Submitted", "the patch"]);
    const config = data.info.config as { environment_type: string; environment: { exec_args: string[] } };
    assertEquals(config.environment_type, "claudius.environments.SingularityEnvironment");
    assertEquals(config.environment.exec_args, ["--contain", "--cleanenv", "--fakeroot"]);
    assertEquals(await sandboxes(tmp), []);
  } finally {
    await server.close();
  }
});

for (
  const [signal, when] of [["SIGTERM", "command"], ["SIGKILL", "command"], ["SIGKILL", "build"]] as const
) {
  e2eTest(
    `claudius --env singularity leaves no sandbox and no process on ${signal} mid-${when}`,
    async (tmp) => {
      await Deno.mkdir(`${tmp}/sandboxes`);
      const server = await startFakeServer([{ commands: ["touch /etc/started; sleep 60"] }]);
      try {
        const child = spawnClaudius(tmp, server.url, when === "build" ? 1.5 : 0);
        let box = "";
        await until(`the ${when}`, async () => {
          if (when === "build") {
            const ps = await sh(`ps -eo args | grep -F 'build --sandbox ${tmp}/sandboxes/' | grep -v grep`);
            box = /\/(claudius-[0-9a-f]+) /.exec(ps.out)?.[1] ?? "";
            return box !== "";
          }
          box = (await sandboxes(tmp)).find((b) => b.startsWith("claudius-")) ?? "";
          return box !== "" &&
            await Deno.stat(`${tmp}/sandboxes/${box}/etc/started`).then(() => true, () => false);
        });
        child.kill(signal);
        const out = await child.output();
        if (signal === "SIGTERM") assertEquals(out.code, 143, new TextDecoder().decode(out.stderr));
        // After SIGKILL the guard kills what runs and removes the sandbox.
        await until("the sandbox's removal", async () => (await sandboxes(tmp)).length === 0, 15_000);
        await new Promise((r) => setTimeout(r, 2500)); // a build left running would fill it again
        assertEquals(await sandboxes(tmp), []);
        const left = await sh(`ps -eo args | grep -F '${box}' | grep -v -e grep -e claudius-guard`);
        assertEquals(left.out, "", "a process of the run outlived it");
      } finally {
        await server.close();
      }
    },
  );
}
