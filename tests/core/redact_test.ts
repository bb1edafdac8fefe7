/**
 * No secret reaches a file or a log: unit cases for the redaction rules, and a real run (CLI as a
 * subprocess, loopback server) whose every output file and stream is searched for the secrets.
 */
import { assert, assertEquals } from "../_support/assert.ts";
import { isSecretName, REDACTED, redactSecrets, redactText, secretValues } from "../../src/core/redact.ts";
import { startFakeServer } from "../_support/fake_server.ts";

Deno.test("isSecretName() knows credential names, not counts, prices or pointers to variables", () => {
  for (
    const name of ["Authorization", "X-Api-Key", "api_key", "HF_TOKEN", "GITHUB_TOKEN", "password", "Cookie"]
  ) {
    assert(isSecretName(name), name);
  }
  for (const name of ["max_tokens", "api_key_env", "model_name", "PAGER", "GIT_AUTHOR_NAME", "timeout"]) {
    assert(!isSecretName(name), name);
  }
});

Deno.test("redactSecrets() redacts strings under secret names, credential shapes and known values", () => {
  const config = {
    model_kwargs: {
      extra_headers: { Authorization: "Bearer abcdefghijkl", "X-Custom": "prefix known-secret-value" },
      max_tokens: 100,
      input_cost_per_token: 1e-6,
    },
    api_key_env: "OPENAI_API_KEY",
    env: { HF_TOKEN: "hf_x", NOTE: "uses sk-abcdefghijklmnopqrstuv here", EMPTY_TOKEN: "" },
    list: ["Bearer 0123456789abcdef"],
  };
  assertEquals(redactSecrets(config, ["known-secret-value"]), {
    model_kwargs: {
      extra_headers: { Authorization: REDACTED, "X-Custom": `prefix ${REDACTED}` },
      max_tokens: 100,
      input_cost_per_token: 1e-6,
    },
    api_key_env: "OPENAI_API_KEY",
    env: { HF_TOKEN: REDACTED, NOTE: `uses ${REDACTED} here`, EMPTY_TOKEN: "" },
    list: [REDACTED],
  });
  assertEquals(secretValues({ OPENAI_API_KEY: "sk-123456789", SHORT_TOKEN: "abc", PATH: "/usr/bin" }), [
    "sk-123456789",
  ]);
  assertEquals(redactText("plain text, no secrets"), "plain text, no secrets");
  assertEquals(
    redactText("to https://me:s3cr3t-pass@proxy.example/v1 and http://host/v1?key=abc123&model=m#x"),
    `to https://me:${REDACTED}@proxy.example/v1 and http://host/v1?key=${REDACTED}&model=m#x`,
  );
  assertEquals(
    redactText("https://user@host/ and mailto:a@b and a:b@c"),
    "https://user@host/ and mailto:a@b and a:b@c",
  );
});

Deno.test("claudius writes no URL credential to stderr or the trajectory when the endpoint fails", async () => {
  const dir = await Deno.makeTempDir();
  for (
    const url of ["http://me:hunter2-pass@127.0.0.1:9/v1", "http://127.0.0.1:9/v1?key=url-key-0123456789"]
  ) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        new URL("../../main.ts", import.meta.url).pathname,
        ...[
          "-t",
          "t",
          "-m",
          "m",
          "--base-url",
          url,
          "-c",
          "model.retry_attempts=1",
          "-o",
          `${dir}/t.traj.json`,
          "-v",
        ],
      ],
      cwd: dir,
      env: { NO_COLOR: "1" },
      stdin: "null",
    }).output();
    const text = new TextDecoder().decode(out.stderr) + await Deno.readTextFile(`${dir}/t.traj.json`);
    assertEquals(out.code, 1, text);
    assert(text.includes("Cannot query model"), text);
    for (const secret of ["hunter2-pass", "url-key-0123456789"]) assert(!text.includes(secret), text);
  }
});

Deno.test("claudius writes no URL credential in its warnings when the endpoint answers", async () => {
  // The loopback server reports no cost, so the client warns once, naming the endpoint.
  const server = await startFakeServer([{ commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] }]);
  const dir = await Deno.makeTempDir();
  try {
    const url = server.url.replace("http://", "http://me:hunter2-pass@") + "?key=url-key-0123456789";
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        new URL("../../main.ts", import.meta.url).pathname,
        ...[
          "-t",
          "t",
          "-m",
          "test-model",
          "--base-url",
          url,
          "--create-cwd",
          "--cwd",
          `${dir}/ws`,
          "-o",
          `${dir}/t.traj.json`,
        ],
      ],
      env: { NO_COLOR: "1" },
      stdin: "null",
    }).output();
    const text = new TextDecoder().decode(out.stderr) + await Deno.readTextFile(`${dir}/t.traj.json`);
    assertEquals(out.code, 0, text);
    assert(text.includes("no usage.cost"), text);
    for (const secret of ["hunter2-pass", "url-key-0123456789"]) assert(!text.includes(secret), text);
  } finally {
    await server.close();
  }
});

Deno.test("claudius writes no credential to the trajectory, stdout or stderr", async () => {
  const HEADER = "Bearer hdr-0123456789-SECRET";
  const KEY = "sk-envkey-0123456789-SECRET";
  const TOKEN = "ghp_tokenvalue0123456789SECRET";
  const server = await startFakeServer([{ commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] }]);
  const dir = await Deno.makeTempDir();
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        new URL("../../main.ts", import.meta.url).pathname,
        "--task",
        "t",
        "-m",
        "test-model",
        "--base-url",
        server.url,
        "-c",
        `model.model_kwargs.extra_headers={"Authorization": "${HEADER}", "X-Other": "${KEY}"}`,
        "-c",
        `environment.env={"GH_TOKEN": "${TOKEN}"}`,
        "-c",
        "model.api_key_env=MY_PROVIDER_API_KEY",
        "-c",
        `environment.forward_env=["${KEY}"]`,
        "-c",
        `environment.env=["GH_TOKEN=${TOKEN}"]`,
        "--create-cwd",
        "--cwd",
        `${dir}/ws`,
        "-o",
        `${dir}/out/t.traj.json`,
        "-v",
      ],
      env: { MY_PROVIDER_API_KEY: KEY, NO_COLOR: "1" },
      stdin: "null",
    }).output();
    const streams = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    // The first attempt is refused (a list where a mapping belongs, printed in the error); then a clean run.
    assertEquals(out.code, 2, streams);
    assert(streams.includes("environment.env"), streams);
    const ok = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        new URL("../../main.ts", import.meta.url).pathname,
        "--task",
        "t",
        "-m",
        "test-model",
        "--base-url",
        server.url,
        "-c",
        `model.model_kwargs.extra_headers={"Authorization": "${HEADER}", "X-Other": "${KEY}"}`,
        "-c",
        `environment.env={"GH_TOKEN": "${TOKEN}"}`,
        "-c",
        "model.api_key_env=MY_PROVIDER_API_KEY",
        "--create-cwd",
        "--cwd",
        `${dir}/ws`,
        "-o",
        `${dir}/out/t.traj.json`,
        "-v",
      ],
      env: { MY_PROVIDER_API_KEY: KEY, NO_COLOR: "1" },
      stdin: "null",
    }).output();
    const okStreams = new TextDecoder().decode(ok.stdout) + new TextDecoder().decode(ok.stderr);
    assertEquals(ok.code, 0, okStreams);
    assertEquals(server.requests[0]?.headers["x-other"], KEY, "the headers themselves are sent");
    const texts = [streams, okStreams];
    for await (const entry of Deno.readDir(`${dir}/out`)) {
      texts.push(await Deno.readTextFile(`${dir}/out/${entry.name}`));
    }
    assert(texts.length >= 3, "the trajectory was written");
    for (const text of texts) {
      for (const secret of [HEADER, KEY, TOKEN]) assert(!text.includes(secret), `${secret} leaked:\n${text}`);
    }
    assert(texts[2]!.includes(REDACTED));
  } finally {
    await server.close();
  }
});

Deno.test("claudius keeps the API key out of command outputs: the model and the trajectory see [REDACTED]", async () => {
  const KEY = "sk-envkey-in-commands-0123456789";
  const server = await startFakeServer([
    {
      commands: [
        'echo "$MY_PROVIDER_API_KEY" | wc -c; env | grep MY_PROVIDER_API_KEY; echo "pw=$DB_PASSWORD"',
      ],
    },
    { commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] },
  ]);
  const dir = await Deno.makeTempDir();
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        new URL("../../main.ts", import.meta.url).pathname,
        ...["-t", "t", "-m", "m", "--base-url", server.url, "-c", "model.api_key_env=MY_PROVIDER_API_KEY"],
        ...["--create-cwd", "--cwd", `${dir}/ws`, "-o", `${dir}/t.traj.json`],
      ],
      env: { MY_PROVIDER_API_KEY: KEY, DB_PASSWORD: "password", NO_COLOR: "1" },
      stdin: "null",
    }).output();
    assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
    const trajectory = await Deno.readTextFile(`${dir}/t.traj.json`);
    const seen = JSON.stringify(server.requests[1]?.body);
    for (const text of [trajectory, seen]) {
      assert(!text.includes(KEY), text);
      assert(text.includes(`MY_PROVIDER_API_KEY=${REDACTED}`), text);
      assert(text.includes(`${KEY.length + 1}\\n`), "commands still get the variable");
      assert(text.includes("pw=password"), "short values are not hunted in outputs");
    }
  } finally {
    await server.close();
  }
});

Deno.test("claudius keeps a model_kwargs.api_key out of the trajectory, the ATIF copy, the logs and command outputs; os.environ/NAME stays", async () => {
  const KEY = "sk-literal-kwargs-key-0123456789";
  const config = `model:\n  model_kwargs:\n    api_key: ${KEY}\n`;
  const dir = await Deno.makeTempDir();
  const server = await startFakeServer([
    { commands: [`cat ${dir}/key.yaml`] },
    { commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] },
    { commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] },
  ]);
  try {
    await Deno.writeTextFile(`${dir}/key.yaml`, config);
    const run = (extra: string[], env: Record<string, string>) =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          new URL("../../main.ts", import.meta.url).pathname,
          ...[
            "-t",
            "t",
            "-m",
            "openai/gpt-4o",
            "--base-url",
            server.url,
            ...extra,
            "--create-cwd",
            "--cwd",
            `${dir}/ws`,
            "-v",
          ],
        ],
        env: { NO_COLOR: "1", ...env },
        stdin: "null",
      }).output();
    const out = await run(
      [
        "-c",
        "default",
        "-c",
        `${dir}/key.yaml`,
        "-o",
        `${dir}/a.traj.json`,
        "-c",
        `run.atif_path=${dir}/a.atif.json`,
      ],
      {},
    );
    const streams = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 0, streams);
    assertEquals(server.requests[0]?.headers.authorization, `Bearer ${KEY}`);
    const texts = [
      streams,
      await Deno.readTextFile(`${dir}/a.traj.json`),
      await Deno.readTextFile(`${dir}/a.atif.json`),
    ];
    for (const text of [...texts, JSON.stringify(server.requests[1]?.body)]) {
      assert(!text.includes(KEY), text);
    }
    assert(texts[1]!.includes(`"api_key": "${REDACTED}"`), texts[1]);
    const named = await run(
      ["-c", "model.model_kwargs.api_key=os.environ/MY_KEY", "-o", `${dir}/b.traj.json`],
      { MY_KEY: KEY },
    );
    assertEquals(named.code, 0, new TextDecoder().decode(named.stderr));
    assertEquals(server.requests[2]?.headers.authorization, `Bearer ${KEY}`);
    assert((await Deno.readTextFile(`${dir}/b.traj.json`)).includes('"api_key": "os.environ/MY_KEY"'));
  } finally {
    await server.close();
  }
});
