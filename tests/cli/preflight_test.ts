/**
 * Checks before spending: at a terminal, a missing key or an endpoint where nothing listens is said
 * before the task prompt (so no task is typed in vain); `claudius config check` asks the endpoint for
 * its models, never for a completion, and says what is wrong.
 */
import { assert, assertEquals, assertMatch } from "../_support/assert.ts";
import { Pty } from "../_support/pty.ts";
import { startFakeServer } from "../_support/fake_server.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const PERMS = ["--allow-read", "--allow-write", "--allow-run", "--allow-env", "--allow-net", "--allow-sys"];
const KEY = "sk-test-NEWCOMER-0123456789";

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

async function atTerminal(args: string[]): Promise<{ screen: string; code: number }> {
  const dir = await Deno.makeTempDir();
  const pty = await Pty.start([Deno.execPath(), "run", ...PERMS, MAIN, ...args], { cwd: dir, columns: 100 });
  try {
    const code = await pty.exitCode();
    return { screen: await pty.screen(), code };
  } finally {
    await pty.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("claudius at a terminal says a missing key before asking for the task", async () => {
  const { screen, code } = await atTerminal([
    "-m",
    "openai/gpt-5-mini",
    "-c",
    "model.api_key_env=NEWCOMER_UNSET",
  ]);
  assertEquals(code, 2, screen);
  assertMatch(
    screen,
    /error: Cannot configure model: no API key for openai\/gpt-5-mini \(https:\/\/api\.openai\.com\/v1\): set NEWCOMER_UNSET/,
  );
  assert(!screen.includes("What do you want to do?"), screen);
});

Deno.test("claudius at a terminal says an endpoint where nothing listens before asking for the task, within seconds", async () => {
  const port = freePort();
  const started = performance.now();
  const { screen, code } = await atTerminal([
    "-m",
    "test-model",
    "--base-url",
    `http://127.0.0.1:${port}/v1`,
  ]);
  assertEquals(code, 2, screen);
  assertMatch(
    screen,
    new RegExp(
      `error: Cannot start the run: GET http://127\\.0\\.0\\.1:${port}/v1/models: network error: connection ` +
        `refused; check that a server listens at 127\\.0\\.0\\.1:${port} \\(from model\\.base_url or --base-url\\)`,
    ),
  );
  assert(!screen.includes("What do you want to do?"), screen);
  assert(performance.now() - started < 15_000, "took too long");
});

async function configCheck(args: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMS, MAIN, "config", "check", ...args],
    cwd: await Deno.makeTempDir(),
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

Deno.test("claudius config check asks the endpoint for its models with the key, never for a completion", async () => {
  const server = await startFakeServer([], { models: ["test-model"], key: KEY });
  try {
    const flags = ["-m", "test-model", "--base-url", server.url, "-c", "model.api_key_env=NEWCOMER_KEY"];
    const ok = await configCheck(flags, { NEWCOMER_KEY: KEY });
    assertEquals(ok.code, 0, ok.stderr);
    const tail = ok.stdout.trimEnd().split("\n").slice(-3);
    assertEquals(tail, [
      `endpoint: ${server.url} (from model.base_url), key from NEWCOMER_KEY`,
      `endpoint: GET ${server.url}/models: HTTP 200, 1 model, test-model among them`,
      "config ok: a run with these flags would start with this config",
    ]);
    assertMatch(ok.stdout, new RegExp(`^model\\.base_url = "${server.url}"  \\(a flag\\)$`, "m"));
    const refused = await configCheck(flags, { NEWCOMER_KEY: "sk-wrong" });
    assertEquals(refused.code, 1);
    assertMatch(
      refused.stdout,
      /HTTP 401, the key was refused \(check NEWCOMER_KEY\)\nconfig not ok: a run with these flags would fail/,
    );
    assertEquals(server.requests.length, 0);
  } finally {
    await server.close();
  }
  const port = freePort();
  const down = await configCheck(["-m", "test-model", "--base-url", `http://127.0.0.1:${port}/v1`]);
  assertEquals(down.code, 1);
  assertMatch(down.stdout, /connection refused; check that a server listens at 127\.0\.0\.1:\d+/);
  const offline = await configCheck([
    "-m",
    "test-model",
    "--base-url",
    `http://127.0.0.1:${port}/v1`,
    "--offline",
  ]);
  assertEquals(offline.code, 0, offline.stderr);
  assertMatch(offline.stdout, /config ok: .* \(the endpoint was not asked\)\n$/);
  const keyless = await configCheck(["-m", "openai/gpt-5-mini", "-c", "model.api_key_env=NEWCOMER_UNSET"]);
  assertEquals(keyless.code, 2);
  assertMatch(
    keyless.stderr,
    /^error: Cannot configure model: no API key for openai\/gpt-5-mini .*: set NEWCOMER_UNSET/,
  );
});

Deno.test("claudius config check -c FILE does not send your key to the endpoint the file names, unless you name it", async () => {
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    seen.push(req.headers.get("authorization") ?? "");
    return Response.json({ object: "list", data: [{ id: "m", object: "model" }] });
  });
  const url = `http://127.0.0.1:${server.addr.port}/v1`;
  const dir = await Deno.makeTempDir();
  try {
    // A config a cloned repository brings: checking it must not hand it the key.
    await Deno.writeTextFile(
      `${dir}/repo.yaml`,
      `model:\n  model_name: openai/gpt-5-mini\n  base_url: ${url}\n`,
    );
    const file = await configCheck(["-c", `${dir}/repo.yaml`], { OPENAI_API_KEY: KEY });
    assertEquals(file.code, 0, file.stderr);
    assertEquals(seen, []);
    assertMatch(
      file.stdout,
      new RegExp(`endpoint: not asked: model\\.base_url comes from ${dir}/repo\\.yaml:3 .*--base-url ${url}`),
    );
    assertMatch(file.stdout, /config ok: .* \(the endpoint was not asked\)\n$/);
    const named = await configCheck(["-c", `${dir}/repo.yaml`, "--base-url", url], { OPENAI_API_KEY: KEY });
    assertEquals(named.code, 0, named.stdout + named.stderr);
    assertEquals(seen, [`Bearer ${KEY}`]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("claudius config check -c FILE does not send the key variable the file names, even to your endpoint", async () => {
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    seen.push(req.headers.get("authorization") ?? "");
    return Response.json({ object: "list", data: [{ id: "m", object: "model" }] });
  });
  // hosted_vllm/'s endpoint is a port of this machine, which any user of a shared one may listen on.
  const env = { OPENAI_API_KEY: KEY, HOSTED_VLLM_API_BASE: `http://127.0.0.1:${server.addr.port}/v1` };
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/repo.yaml`,
      "model:\n  model_name: hosted_vllm/m\n  api_key_env: OPENAI_API_KEY\n",
    );
    await Deno.writeTextFile(
      `${dir}/kwargs.yaml`,
      "model:\n  model_name: hosted_vllm/m\n  model_kwargs:\n    api_key: os.environ/OPENAI_API_KEY\n",
    );
    const file = await configCheck(["-c", `${dir}/repo.yaml`], env);
    const kwargs = await configCheck(["-c", `${dir}/kwargs.yaml`], env);
    assertEquals([file.code, kwargs.code, seen], [0, 0, []], file.stdout + kwargs.stdout);
    assertMatch(
      file.stdout,
      new RegExp(
        `endpoint: not asked: model\\.api_key_env comes from ${dir}/repo\\.yaml:3 .*-c model\\.api_key_env=OPENAI_API_KEY`,
      ),
    );
    assertMatch(kwargs.stdout, /endpoint: not asked: model\.model_kwargs\.api_key comes from /);
    const named = await configCheck(
      ["-c", `${dir}/repo.yaml`, "-c", "model.api_key_env=OPENAI_API_KEY"],
      env,
    );
    assertEquals([named.code, seen], [0, [`Bearer ${KEY}`]], named.stdout + named.stderr);
  } finally {
    await server.shutdown();
  }
});

Deno.test("claudius config check shows no password nor key a base_url holds", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => Response.json({ error: { message: "no" } }, { status: 401 }),
  );
  try {
    const url =
      `http://user:URL-PASSWORD-0123456789@127.0.0.1:${server.addr.port}/v1?key=QUERY-KEY-0123456789`;
    const out = await configCheck(["-m", "openai/m", "--base-url", url], { OPENAI_API_KEY: KEY });
    assertEquals(out.code, 1, out.stdout + out.stderr);
    assertMatch(
      out.stdout,
      /^endpoint: http:\/\/user:\[REDACTED\]@127\.0\.0\.1:\d+\/v1\?key=\[REDACTED\] \(from/m,
    );
    for (const secret of ["URL-PASSWORD", "QUERY-KEY"]) assert(!out.stdout.includes(secret), out.stdout);
  } finally {
    await server.shutdown();
  }
});
