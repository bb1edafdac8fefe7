/**
 * `CLAUDIUS_INSTALL_ROOT=DIR deno task install`: claudius bundled into DIR/lib/claudius and its faces in
 * DIR/bin, standing on their own: run after the checkout they came from is deleted, under an empty HOME
 * and DENO_DIR, with no network; a `mini` that is not claudius's is left alone unless `--force`.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../_support/assert.ts";
import { offline, offlineMode } from "../_support/offline.ts";
import {
  installArgs,
  installRoot,
  isOurs,
  MARK,
  shimText,
  WORKER_MODULES,
  wrapperText,
} from "../../src/cli/install.ts";
import { DATA_FILE, packageData } from "../../src/core/models/price_db.ts";
import { findPrice } from "../../src/core/models/_cost.ts";
import { priceTable } from "../../src/core/models/price_table.ts";

const REPO = new URL("../../", import.meta.url).pathname;
const DENO_DIR = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;
const FACES = ["mini", "mini-swe-agent", "mini-extra", "mini-e"];
const d = new TextDecoder();

/**
 * What Deno needs to reach the npm registry from this machine, as the caller has it: the bundle step downloads
 * esbuild when the cache lacks it, and behind a TLS-inspecting proxy the proxy's CA comes from these.
 */
function tlsEnv(): Record<string, string> {
  const names = ["SSL_CERT_FILE", "SSL_CERT_DIR", "DENO_CERT", "DENO_TLS_CA_STORE", "NPM_CONFIG_REGISTRY"];
  const proxies = ["HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"].flatMap((n) => [n, n.toLowerCase()]);
  return Object.fromEntries(
    [...names, ...proxies].flatMap((n) => Deno.env.get(n) === undefined ? [] : [[n, Deno.env.get(n)!]]),
  );
}

/** `deno task install` of the checkout at `repo` into `root`; its stderr. */
async function install(repo: string, root: string, home: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "install", ...args],
    cwd: repo,
    env: { DENO_DIR, HOME: home, CLAUDIUS_INSTALL_ROOT: root, PATH: Deno.env.get("PATH") ?? "", ...tlsEnv() },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 0, d.decode(out.stderr));
  return d.decode(out.stderr);
}

Deno.test("installRoot(), installArgs(), the shim and the wrappers: one rule for the root, the run line and --force", () => {
  assertEquals(installRoot({ CLAUDIUS_INSTALL_ROOT: "/a", DENO_INSTALL_ROOT: "/b", HOME: "/h" }), "/a");
  assertEquals(installRoot({ CLAUDIUS_INSTALL_ROOT: "", DENO_INSTALL_ROOT: "/b", HOME: "/h" }), "/b");
  assertEquals(installRoot({ HOME: "/h" }), "/h/.deno");
  const line = ["deno", "run", "--allow-read", "--v8-flags=--x", "main.ts"];
  assertEquals(installArgs(line), { flags: ["--allow-read", "--v8-flags=--x"], force: false });
  assertEquals(installArgs([...line, "--force"]).force, true);
  let error = "";
  try {
    installArgs([...line, "--root"]);
  } catch (e) {
    error = (e as Error).message;
  }
  assertEquals(error, "deno task install: unknown argument '--root' (it takes only --force)");
  assertMatch(wrapperText("mini", "/r/bin/it's"), /exec '\/r\/bin\/it'"'"'s' "\$@"\n$/);
  const shim = shimText("/usr/bin/deno", ["--no-config", "--allow-read"], "/r/lib/claudius/main.js");
  assertStringIncludes(
    shim,
    `exec '/usr/bin/deno' 'run' '--no-config' '--allow-read' '/r/lib/claudius/main.js' "$@"`,
  );
  assertStringIncludes(shim, MARK);
});

Deno.test("deno task compile embeds what the bundle carries: config/ and every worker module", () => {
  const compile: string = JSON.parse(Deno.readTextFileSync(`${REPO}deno.json`)).tasks.compile;
  for (const path of ["config/", ...WORKER_MODULES]) assertStringIncludes(compile, ` --include ${path} `);
});

Deno.test("an install stands on its own: checkout deleted, empty HOME and DENO_DIR, no network; claudius, mini and the workers run", async () => {
  // The checkout: only what a clone has that the install reads.
  const checkout = await Deno.makeTempDir({ prefix: "claudius-checkout-" });
  for (const path of ["main.ts", "deno.json", "deno.lock", "src", "config"]) {
    const cp = await new Deno.Command("cp", { args: ["-r", `${REPO}${path}`, `${checkout}/${path}`] })
      .output();
    assert(cp.success, d.decode(cp.stderr));
  }
  const root = await Deno.makeTempDir({ prefix: "claudius-install-" });
  const said = await install(checkout, root, await Deno.makeTempDir());
  assertStringIncludes(said, `Installed claudius, mini, mini-swe-agent, mini-extra, mini-e into ${root}/bin`);
  await Deno.remove(checkout, { recursive: true });

  const bin = `${root}/bin`;
  const names = (await Array.fromAsync(Deno.readDir(bin))).map((e) => e.name).sort();
  assertEquals(names, ["claudius", ...FACES].sort());
  const shim = await Deno.readTextFile(`${bin}/claudius`);
  const v8 = /--v8-flags=\S+/.exec(JSON.parse(await Deno.readTextFile(`${REPO}deno.json`)).tasks.run)![0];
  assertStringIncludes(shim, `'${v8}'`);
  assert(!shim.includes(checkout) && !shim.includes(DENO_DIR), shim);
  for (const face of FACES) {
    assertStringIncludes(await Deno.readTextFile(`${bin}/${face}`), `exec '${bin}/claudius'`);
  }

  const home = await Deno.makeTempDir({ prefix: "claudius-home-" });
  const denoDir = `${home}/deno-dir`;
  const env = { HOME: home, DENO_DIR: denoDir, PATH: `${bin}:/usr/bin:/bin`, NO_COLOR: "1" };
  const run = (cmd: string, args: string[]) => offline({ cmd, args, cwd: home, env });

  // The isolation bites: the same Deno, the same environment, cannot fetch a package it lacks.
  await Deno.writeTextFile(`${home}/fetch.ts`, 'import "npm:js-yaml@5.5.0";\n');
  const control = await run(Deno.execPath(), ["run", "--no-config", `${home}/fetch.ts`]);
  assert(control.code !== 0, `a fetch succeeded offline (${offlineMode()}): ${control.stderr}`);
  await Deno.remove(denoDir, { recursive: true }).catch(() => {});

  const version = await run(`${bin}/claudius`, ["--version"]);
  assertEquals(
    [version.code, version.stdout],
    [0, `claudius 0.1.0 (install ${root}/lib/claudius, deno ${Deno.version.deno})\n`],
    version.stderr,
  );
  const submit = { content: "done", commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] };
  const key = { OPENAI_API_KEY: "sk-install-test-0123456789" };
  // The prices come from the data file beside the bundle, the package's data as it is: with the
  // package's own module moved away, the run still prices its calls (at the checkout's figures).
  const lib = `${root}/lib/claudius`;
  const data = JSON.parse(await Deno.readTextFile(`${lib}/${DATA_FILE}`));
  assertEquals(data, { table: priceTable(), providers: await packageData() });
  assertMatch(data.table, /^@pydantic\/genai-prices \d+\.\d+\.\d+$/);
  const pkg = [];
  for await (const e of Deno.readDir(lib)) {
    if (
      e.name.endsWith(".js") && (await Deno.readTextFile(`${lib}/${e.name}`)).includes("REMOTE_DATA_JSON_URL")
    ) {
      pkg.push(e.name);
    }
  }
  assertEquals(pkg.length, 1, `the package's module among the bundle's: ${pkg}`);
  await Deno.rename(`${lib}/${pkg[0]}`, `${home}/${pkg[0]}`);
  const solo = await offline({
    cmd: `${bin}/claudius`,
    args: ["-t", "x", "-m", "openai/gpt-5-mini", "-o", `${home}/solo.traj.json`],
    cwd: home,
    env: { ...env, ...key },
    replies: [{ content: "look", commands: ["echo hello"] }, submit],
  });
  assertEquals([solo.code, solo.requests], [0, 2], solo.stderr);
  const t = JSON.parse(await Deno.readTextFile(`${home}/solo.traj.json`));
  assertEquals([t.info.exit_status, t.messages[3].extra.raw_output], ["Submitted", "hello\n"]);
  await Deno.rename(`${home}/${pkg[0]}`, `${lib}/${pkg[0]}`);
  // Two calls of the fake server's default usage (10 prompt, 5 completion tokens), at the price the
  // checkout finds.
  const price = (await findPrice("gpt-5-mini", "openai"))!.cost({ prompt_tokens: 10, completion_tokens: 5 })!;
  assert(price > 0);
  assertEquals(t.info.model_stats.instance_cost, price + price);

  const mini = await offline({
    cmd: `${bin}/mini`,
    args: ["-y", "-t", "x", "-m", "openai/gpt-5-mini", "--exit-immediately"],
    cwd: home,
    env: { ...env, ...key, MSWEA_GLOBAL_CONFIG_DIR: `${home}/g` },
    replies: [{ content: "look", commands: ["echo face=${CLAUDIUS_FACE:-unset}"] }, submit],
  });
  assertEquals(mini.code, 0, mini.stderr);
  const m = JSON.parse(await Deno.readTextFile(`${home}/g/last_mini_run.traj.json`));
  assertEquals(m.info.exit_status, "Submitted");
  // The face's variable is not passed on to the commands the agent runs.
  assertEquals(m.messages[3].extra.raw_output, "face=unset\n");
  assertMatch((await run(`${bin}/mini-extra`, [])).stdout, /swebench-single/);

  // The workers, found beside the bundle by the same rule as config/: --filter is matched in one (a
  // missing module fails the batch), and the trajectory tools read many files in the others.
  for (const worker of WORKER_MODULES) {
    await Deno.stat(`${root}/lib/claudius/${worker.replace(/\.ts$/, ".js")}`);
  }
  await Deno.writeTextFile(
    `${home}/i.json`,
    JSON.stringify([{ instance_id: "one", problem_statement: "p" }]),
  );
  const batch = await run(`${bin}/claudius`, [
    "batch",
    `${home}/i.json`,
    "--filter",
    "none",
    "-o",
    `${home}/b`,
  ]);
  assertEquals(batch.code, 0, batch.stderr);
  // The installed program's record names the price table's version too (from its data file).
  const record = JSON.parse(await Deno.readTextFile(`${home}/b/run.json`));
  assertEquals(record.invocations.at(-1).price_table, data.table);
  await Deno.mkdir(`${home}/many`);
  for (let i = 0; i < 40; i++) await Deno.copyFile(`${home}/solo.traj.json`, `${home}/many/s${i}.traj.json`);
  const stats = await run(`${bin}/claudius`, ["stats", "--json", `${home}/many`]);
  assertEquals(stats.code, 0, stats.stderr);
  assertEquals(JSON.parse(stats.stdout).trajectories.length, 40);
  // Nothing was fetched into the empty DENO_DIR.
  const npm = await Array.fromAsync(Deno.readDir(`${denoDir}/npm`)).catch(() => []);
  assertEquals(npm, []);
});

Deno.test("deno task install leaves a mini that is not claudius's alone and names it; --force replaces it", async () => {
  const root = await Deno.makeTempDir({ prefix: "claudius-install-" });
  const home = await Deno.makeTempDir({ prefix: "claudius-home-" });
  const bin = `${root}/bin`;
  await Deno.mkdir(bin);
  // As pip writes a console script (our own words), and a symlink into a virtualenv.
  const pip =
    "#!/usr/bin/python3\n# a console script\nimport sys\nfrom minisweagent.run.mini import app\nsys.exit(app())\n";
  await Deno.writeTextFile(`${bin}/mini`, pip, { mode: 0o755 });
  await Deno.writeTextFile(`${home}/venv-mini-e`, pip, { mode: 0o755 });
  await Deno.symlink(`${home}/venv-mini-e`, `${bin}/mini-e`);
  const said = await install(REPO, root, home);
  assertStringIncludes(said, `Installed claudius, mini-swe-agent, mini-extra into ${bin}`);
  for (const face of ["mini", "mini-e"]) {
    assertStringIncludes(said, `skipped ${bin}/${face}: it is not claudius's`);
    assertStringIncludes(said, "deno task install --force replaces it");
  }
  assertEquals(await Deno.readTextFile(`${bin}/mini`), pip);
  assert((await Deno.lstat(`${bin}/mini-e`)).isSymlink);
  // Its own files it rewrites without asking.
  assert(await isOurs(`${bin}/mini-swe-agent`));
  assertEquals((await install(REPO, root, home)).match(/skipped/g)?.length, 2);

  const forced = await install(REPO, root, home, "--force");
  assert(!forced.includes("skipped"), forced);
  assertStringIncludes(forced, `Installed claudius, mini, mini-swe-agent, mini-extra, mini-e into ${bin}`);
  for (const face of FACES) assert(await isOurs(`${bin}/${face}`), face);
  assert(!(await Deno.lstat(`${bin}/mini-e`)).isSymlink);
  assertEquals(
    await Deno.readTextFile(`${home}/venv-mini-e`),
    pip,
    "the symlink's target was written through",
  );
});
