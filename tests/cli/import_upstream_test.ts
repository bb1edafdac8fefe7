/**
 * `claudius config import-upstream` as a subprocess, on stand-ins for upstream's files (our own words;
 * their digests handed in by `CLAUDIUS_TEST_UPSTREAM_DIGESTS`): from a checkout's directory, from
 * archives Python's tarfile and zipfile wrote, from an http URL and from the release's raw files on a
 * loopback server; a file that is not its release's refused, or kept as modified.
 */
import { assert, assertEquals, assertMatch } from "../_support/assert.ts";
import { cli, freshHome, pythonArchive, standInRelease } from "../_support/upstream.ts";
import { sha256Hex } from "../../src/lib/sha256.ts";

async function manifest(home: string, version = "2.4.6") {
  return JSON.parse(await Deno.readTextFile(`${home}/.config/claudius/upstream/${version}/manifest.json`));
}

Deno.test("config import-upstream DIR stores every file checked against its release's digest, and says where", async () => {
  const release = await standInRelease();
  const env = { ...await freshHome(), CLAUDIUS_TEST_UPSTREAM_DIGESTS: release.table };
  const r = await cli(["config", "import-upstream", release.root], env);
  assertEquals(r.code, 0, r.stderr);
  const store = `${env.HOME}/.config/claudius/upstream/2.4.6`;
  assertMatch(
    r.stdout,
    new RegExp(`^stored mini-swe-agent 2\\.4\\.6's config files from ${release.config} in ${store}:`),
  );
  for (const [file, sha] of Object.entries(release.digests)) {
    assertMatch(r.stdout, new RegExp(`\\n  ${file}  sha256 ${sha.slice(0, 12)}  \\(2\\.4\\.6's\\)\\n`));
    assertEquals(await sha256Hex(await Deno.readFile(`${store}/${file}`)), sha);
  }
  const m = await manifest(env.HOME);
  assertEquals([m.version, m.source, m.test_digest_table], ["2.4.6", release.config, release.table]);
  assertEquals(m.files["mini.yaml"], { sha256: release.digests["mini.yaml"] });
  assertEquals(await Deno.readTextFile(`${env.HOME}/.config/claudius/upstream/active`), "2.4.6\n");
  // The same through mini-extra, from the package directory itself.
  const extra = await cli(["config", "import-upstream", release.config], env, { face: "mini-extra" });
  assertEquals(extra.code, 0, extra.stderr);
});

Deno.test("config import-upstream refuses a file that is not its release's, naming it and both digests; --allow-modified keeps it as modified", async () => {
  const release = await standInRelease();
  const env = { ...await freshHome(), CLAUDIUS_TEST_UPSTREAM_DIGESTS: release.table };
  const path = `${release.config}/mini.yaml`;
  await Deno.writeTextFile(path, (await Deno.readTextFile(path)) + "# one more line\n");
  const changed = await sha256Hex(await Deno.readFile(path));
  const refused = await cli(["config", "import-upstream", release.root], env);
  assertEquals(refused.code, 2, refused.stderr);
  assertEquals(
    refused.stderr.trim(),
    `error: Cannot import mini-swe-agent 2.4.6's config files from ${release.config}: mini.yaml is not ` +
      `2.4.6's (sha256 ${changed}; 2.4.6's is ${release.digests["mini.yaml"]}). Pass --allow-modified to ` +
      "keep it, recorded as modified",
  );
  assert(!(await Deno.stat(`${env.HOME}/.config/claudius/upstream`).then(() => true, () => false)));
  const kept = await cli(["config", "import-upstream", release.root, "--allow-modified"], env);
  assertEquals(kept.code, 0, kept.stderr);
  assertMatch(kept.stdout, /\n {2}mini\.yaml {2}sha256 \w{12} {2}MODIFIED \(2\.4\.6's is \w{12}\)\n/);
  assertEquals((await manifest(env.HOME)).files["mini.yaml"], {
    sha256: changed,
    modified: true,
    release_sha256: release.digests["mini.yaml"],
  });
});

Deno.test("config import-upstream reads upstream's tarball layout from a tar.gz, a tar and a zip that Python wrote", async () => {
  const release = await standInRelease();
  for (const kind of ["tar.gz", "tar", "zip"] as const) {
    const env = { ...await freshHome(), CLAUDIUS_TEST_UPSTREAM_DIGESTS: release.table };
    const archive = `${env.HOME}/mini-swe-agent-2.4.6.${kind}`;
    await pythonArchive(release.root, archive, kind, "mini-swe-agent-2.4.6/");
    const r = await cli(["config", "import-upstream", archive], env);
    assertEquals(r.code, 0, `${kind}: ${r.stderr}`);
    assertEquals(Object.keys((await manifest(env.HOME)).files).length, 8, kind);
  }
  const env = await freshHome();
  await Deno.writeTextFile(`${env.HOME}/junk.tar.gz`, "not an archive");
  const bad = await cli(["config", "import-upstream", `${env.HOME}/junk.tar.gz`], env);
  assertEquals(bad.code, 2);
  assertMatch(
    bad.stderr,
    /^error: Cannot import from \S+junk\.tar\.gz: neither a tar, a gzipped tar nor a zip file/,
  );
});

Deno.test("config import-upstream downloads an archive's URL, and with no SOURCE the release's raw files", async () => {
  const release = await standInRelease();
  const archive = `${release.root}/release.tar.gz`;
  await pythonArchive(`${release.root}/src`, archive, "tar.gz", "mini-swe-agent-2.4.6/src/");
  const asked: string[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname;
    asked.push(path);
    if (path === "/archive/v2.4.6.tar.gz") return new Response(await Deno.readFile(archive));
    const raw = /^\/repo\/v2\.4\.6\/src\/minisweagent\/config\/(.+)$/.exec(path);
    if (raw) return new Response(await Deno.readFile(`${release.config}/${raw[1]}`));
    return new Response("no", { status: 404 });
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  try {
    const env = { ...await freshHome(), CLAUDIUS_TEST_UPSTREAM_DIGESTS: release.table };
    const url = await cli(["config", "import-upstream", `${base}/archive/v2.4.6.tar.gz`], env);
    assertEquals(url.code, 0, url.stderr);
    const raw = await cli(["config", "import-upstream"], {
      ...env,
      CLAUDIUS_TEST_UPSTREAM_URL: `${base}/repo`,
    });
    assertEquals(raw.code, 0, raw.stderr);
    assertEquals(asked.filter((p) => p.startsWith("/repo/")).length, 8);
    assertMatch(raw.stdout, new RegExp(`from ${base}/repo/v2\\.4\\.6/src/minisweagent/config/ in `));
    const missing = await cli(["config", "import-upstream", `${base}/nothing.tar.gz`], env);
    assertEquals(missing.code, 2);
    assertMatch(
      missing.stderr,
      /^error: Cannot download http:\/\/127\.0\.0\.1:\d+\/nothing\.tar\.gz: HTTP 404/,
    );
    const plain = await cli(["config", "import-upstream", "http://example.com/x.tar.gz"], env);
    assertMatch(plain.stderr, /only https URLs \(or http on this machine's loopback\)/);
  } finally {
    await server.shutdown();
  }
});
