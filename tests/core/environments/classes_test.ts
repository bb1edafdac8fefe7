import { assert, assertEquals, assertMatch } from "../../_support/assert.ts";
import { ConfigError } from "../../../src/core/errors.ts";
import { makeEnvironment } from "../../../src/core/environments/classes.ts";
import { loadConfig } from "../../../src/core/config/load.ts";
import { configIO, episodeDeps } from "../../_support/episode.ts";

const deps = episodeDeps({ cwd: "/" });

Deno.test("makeEnvironment() refuses a local or bubblewrap cwd it cannot make a directory, naming the key", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/file`, "");
  for (const [cwd, why] of [[`${dir}/file`, "it is a file"], [`${dir}/file/sub`, "cannot create it"]]) {
    const e = await makeEnvironment({ environment_class: "local", cwd }, { ...deps, createCwd: true })
      .catch((e) => e);
    assert(e instanceof ConfigError, String(e));
    assertMatch(e.message, new RegExp(`^Cannot use environment\\.cwd '${cwd}': ${why}`));
  }
});

Deno.test("makeEnvironment() refuses a configured local or bubblewrap cwd that does not exist unless createCwd", async () => {
  const dir = await Deno.makeTempDir();
  for (const environment_class of ["local", "bubblewrap"]) {
    const cwd = `${dir}/${environment_class}/typo`;
    const e = await makeEnvironment({ environment_class, cwd }, deps).catch((e) => e);
    assert(e instanceof ConfigError, String(e));
    assertEquals(
      e.message,
      `Cannot use environment.cwd '${cwd}': it does not exist; check the path (--cwd DIR), or pass --create-cwd ` +
        "to create it",
    );
    assertEquals(await Deno.stat(cwd).then(() => true, () => false), false);
    const env = await makeEnvironment({ environment_class, cwd }, { ...deps, createCwd: true });
    assertEquals([env.config.cwd, (await Deno.stat(cwd)).isDirectory], [cwd, true]);
  }
  // Unset, it is claudius's own ./workspace, made when missing.
  const own = await makeEnvironment({ environment_class: "local" }, { ...deps, cwd: dir });
  assertEquals([own.config.cwd, (await Deno.stat(`${dir}/workspace`)).isDirectory], [
    `${dir}/workspace`,
    true,
  ]);
});

Deno.test("makeEnvironment() refuses upstream's contree (a cloud SDK) in one line naming what to use instead", async () => {
  // Its config loads with upstream's keys (so a published config is readable) ...
  const { config } = await loadConfig(
    [
      "mini",
      "environment.environment_class=contree",
      "environment.image=python:3.12",
      'environment.contree_config={"token":"x"}',
    ],
    configIO(),
    () => {},
  );
  assert(
    config.environment.timeout === 100 && config.environment.cwd === "/",
    JSON.stringify(config.environment),
  );
  // ... and the run is refused before anything starts.
  const e = await makeEnvironment(config.environment, deps).catch((e) => e);
  assert(e instanceof ConfigError, String(e));
  assertMatch(
    e.message,
    /^Cannot use environment\.environment_class 'contree': .*environment_class=docker.*singularity$/,
  );
  assert(!e.message.includes("\n"));
});
