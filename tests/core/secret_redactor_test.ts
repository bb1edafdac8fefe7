/**
 * SecretRedactor: the API key found as real commands print it (rev, base64, xxd, urllib), in byte
 * streams cut anywhere, in messages; and claudius as a subprocess keeping the key the model typed out
 * of the trajectory, the ATIF copy, `-v` and the patch while the model is sent its own words.
 */
import { assert, assertEquals } from "../_support/assert.ts";
import { startFakeServer } from "../_support/fake_server.ts";
import { REDACTED } from "../../src/core/redact.ts";
import { SecretRedactor } from "../../src/core/secret_redactor.ts";

const KEY = "sk-proj-Zx9_QrT4-mN0pLk7W2sY8bVc";
const redactor = new SecretRedactor([KEY]);

function sh(command: string, env: Record<string, string> = {}): string {
  const out = new Deno.Command("bash", { args: ["-c", command], env: { K: KEY, ...env } }).outputSync();
  assert(out.success, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

/** An oracle of our own: the key, reversed, or its base64 / hex from any offset, lines joined. */
function leaks(text: string): string[] {
  const joined = text.replace(/\\r|\\n|\r|\n/g, "")
    .replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  const bytes = new TextEncoder().encode(KEY);
  const found: string[] = [];
  if (joined.toLowerCase().includes(KEY.toLowerCase())) found.push("literal");
  if (joined.toLowerCase().includes([...KEY].reverse().join("").toLowerCase())) found.push("reversed");
  for (let skip = 0; skip < 3; skip++) {
    const part = bytes.subarray(skip, skip + Math.floor((bytes.length - skip) / 3) * 3);
    const b64 = btoa(String.fromCharCode(...part));
    if (joined.includes(b64) || joined.includes(b64.replaceAll("+", "-").replaceAll("/", "_"))) {
      found.push(`base64+${skip}`);
    }
  }
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  if (joined.toLowerCase().includes(hex)) found.push("hex");
  if (joined.toLowerCase().includes(encodeURIComponent(KEY).toLowerCase())) found.push("url");
  return found;
}

Deno.test("SecretRedactor.text() finds the key as commands print it: reversed, base64, hex, URL-encoded", () => {
  const cases: Record<string, [command: string, places: number]> = {
    literal: ["echo $K", 1],
    rev: ["echo $K | rev", 1],
    base64: ["printf %s $K | base64", 1],
    "base64 of a line": ["printf 'OPENAI_API_KEY=%s\\n' $K | base64", 1],
    // Wrapped at 76 columns, the key at two offsets.
    "base64 of env": ["(env; echo x; env) | base64", 2],
    "base64 -w0, URL-safe": ["printf 'XY=%s' $K | base64 -w0 | tr '+/' '-_'", 1],
    "xxd -p": ["printf %s $K | xxd -p", 1],
    "upper-case hex": ["printf 'y%s' $K | xxd -p | tr a-f A-F", 1],
    "every byte %XX": ["printf %s $K | xxd -p | tr -d '\\n' | sed 's/../%&/g'", 1],
    "urllib quote": [
      `python3 -c 'import os, urllib.parse; print(urllib.parse.quote("?k=" + os.environ["K"]))'`,
      1,
    ],
  };
  for (const [name, [command, places]] of Object.entries(cases)) {
    const out = sh(command);
    assert(leaks(out).length > 0, `${name}: the oracle sees no key in ${out}`);
    const shown = redactor.text(out);
    assertEquals(leaks(shown), [], `${name}: ${shown}`);
    assertEquals(shown.split(REDACTED).length - 1, places, `${name}: ${shown}`);
    assertEquals(redactor.text(shown), shown, "redacting again changes nothing");
  }
  // In JSON text (the tool call's arguments), line breaks are `\n`.
  const args = JSON.stringify({ command: `echo ${KEY}; echo '${sh("printf %s $K$K$K | base64")}'` });
  assertEquals(leaks(redactor.text(args)), []);
});

Deno.test("SecretRedactor.text() finds the key in another case and cut over lines, as a model types it", () => {
  const cases: Record<string, [command: string, places: number]> = {
    "upper case": ["echo $K | tr a-z A-Z", 1],
    "lower case": ["echo $K | tr A-Z a-z", 1],
    "reversed, upper case": ["echo $K | rev | tr a-z A-Z", 1],
    "fold -w 10": ["echo $K | fold -w 10", 1],
    "CRLF lines": ["echo $K | fold -w 7 | sed 's/$/\r/'", 1],
  };
  for (const [name, [command, places]] of Object.entries(cases)) {
    const out = sh(command);
    assert(leaks(out).length > 0, `${name}: the oracle sees no key in ${out}`);
    const shown = redactor.text(out);
    assertEquals(leaks(shown), [], `${name}: ${shown}`);
    assertEquals(shown.split(REDACTED).length - 1, places, `${name}: ${shown}`);
  }
  // Typed into a tool call's arguments (JSON text): a line break there is `\n`.
  const typed = JSON.stringify({
    command: `cat <<EOF\n${KEY.slice(0, 12)}\n${KEY.slice(12).toUpperCase()}\nEOF`,
  });
  assertEquals(leaks(redactor.text(typed)), [], redactor.text(typed));
  // Words that merely share letters with it are left alone.
  assertEquals(redactor.text("SK-PROJ is a prefix; zx9 qrt4"), "SK-PROJ is a prefix; zx9 qrt4");
});

Deno.test("SecretRedactor.text() leaves other text alone, as the same string, at ~2 ns a character", () => {
  const text = sh("seq 1 40000 | sed 's/$/ output line, paths like \\/usr\\/lib\\/python3 and words/'");
  const start = performance.now();
  for (let i = 0; i < 10; i++) assert(redactor.text(text) === text);
  const perChar = (performance.now() - start) * 1e6 / 10 / text.length;
  assert(perChar < 50, `${perChar.toFixed(1)} ns a character`);
  assertEquals(new SecretRedactor([]).text(KEY), KEY);
  assertEquals(new SecretRedactor([]).active, false);
});

Deno.test("SecretRedactor.stream() redacts a byte stream cut anywhere, other bytes unchanged", async () => {
  const latin = new Uint8Array([0xff, 0xfe, 0x80, 0x00]); // not UTF-8: passed through as they are
  const text = `+KEY=${KEY}\n+${sh("printf %s $K | base64")}+${KEY}`;
  const input = new Uint8Array([...latin, ...new TextEncoder().encode(text), ...latin]);
  // What text() makes of it (base64 keeps the last, partial group: `VmM=`, no key in it).
  assertEquals(redactor.text(text), `+KEY=${REDACTED}\n+${REDACTED}VmM=\n+${REDACTED}`);
  const expected = new Uint8Array([...latin, ...new TextEncoder().encode(redactor.text(text)), ...latin]);
  for (const size of [1, 2, 3, 7, 64, input.length]) {
    let found = 0;
    const stream = ReadableStream.from(
      Array.from({ length: Math.ceil(input.length / size) }, (_, i) => input.slice(i * size, (i + 1) * size)),
    ).pipeThrough(redactor.stream((n) => (found = n)));
    const out = new Uint8Array(await new Response(stream).arrayBuffer());
    assertEquals(out, expected, `chunks of ${size}`);
    assertEquals(found, 3);
  }
});

Deno.test("SecretRedactor.value() copies only what changed; view() redacts each message once", () => {
  const clean = { role: "user", content: "hi", extra: { list: [1, "a"] } };
  assert(redactor.value(clean) === clean);
  const typed = { role: "assistant", content: `key ${KEY}`, extra: { actions: [{ command: "ls" }], n: 1 } };
  const shown = redactor.value(typed);
  assertEquals(shown.content, `key ${REDACTED}`);
  assert(shown.extra === typed.extra, "an unchanged branch is shared");
  assertEquals(typed.content, `key ${KEY}`, "the original is untouched");
  const view = redactor.view<object>();
  const messages: object[] = [clean, typed];
  const first = view(messages);
  messages.push({ content: KEY });
  const second = view(messages);
  assert(first[1] === second[1], "an old message is not redacted again");
  assertEquals(second[2], { content: REDACTED });
  assertEquals(view([typed]), [shown], "another list starts the view again");
});

// The key's variable is named by model.api_key_env (a name no secret pattern knows: PROVIDER_KEYRING).
Deno.test("claudius saves and shows no key the model typed (trajectory, ATIF, -v, patch); the model is sent its own words", async () => {
  const typed = `The key is ${KEY}.`;
  const server = await startFakeServer([
    {
      content: typed,
      commands: [
        `echo ${KEY} > typed.txt; env > leaked.env`,
        "env | base64",
        "echo $PROVIDER_KEYRING | rev",
      ],
    },
    {
      content: `Again ${[...KEY].reverse().join("")}`,
      commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"],
    },
  ]);
  const dir = await Deno.makeTempDir({ prefix: "claudius-redactor-" });
  try {
    await Deno.mkdir(`${dir}/ws`);
    sh(`cd ${dir}/ws && git init -q . && git -c user.name=t -c user.email=t@e commit -q --allow-empty -m i`);
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        new URL("../../main.ts", import.meta.url).pathname,
        ...["-t", "t", "-m", "m", "--base-url", server.url, "-c", "model.api_key_env=PROVIDER_KEYRING"],
        ...[
          "--create-cwd",
          "--cwd",
          `${dir}/ws`,
          "-o",
          `${dir}/t.traj.json`,
          "-c",
          "run.atif_path=t.atif.json",
        ],
        ...["--patch", `${dir}/fix.patch`, "-v"],
      ],
      env: { PROVIDER_KEYRING: KEY, NO_COLOR: "1" },
      stdin: "null",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 0, stderr);
    const files: Record<string, string> = {};
    for (const f of ["t.traj.json", "t.atif.json", "fix.patch"]) {
      files[f] = await Deno.readTextFile(`${dir}/${f}`);
    }
    for (const [name, text] of [...Object.entries(files), ["stderr (-v)", stderr]] as const) {
      assertEquals(leaks(text), [], `${name}:\n${text}`);
      assert(text.includes(REDACTED), name);
    }
    assert(files["fix.patch"]!.includes(`+PROVIDER_KEYRING=${REDACTED}\n`), files["fix.patch"]);
    assert(stderr.includes("note: the patch held the API key (2x): saved as [REDACTED]"), stderr);
    // The model is sent back its own message as it came (upstream's bytes); the outputs are redacted.
    const sent = server.requests[1]!.body as { messages: { role: string; content: string | null }[] };
    assertEquals(sent.messages[2]!.content, typed);
    const outputs = sent.messages.filter((m) => m.role === "tool").map((m) => String(m.content)).join("\n");
    assertEquals(leaks(outputs), []);
    assert(outputs.includes(REDACTED));
  } finally {
    await server.close();
  }
});

Deno.test("claudius hides a short key it sends (a local server's token-abc123) as it hides a long one", async () => {
  const short = "token-abc123";
  const server = await startFakeServer([
    { content: "look", commands: ["echo K=$HOSTED_VLLM_API_KEY; echo $HOSTED_VLLM_API_KEY | rev"] },
    { content: "done", commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] },
  ]);
  const dir = await Deno.makeTempDir({ prefix: "claudius-redactor-" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        new URL("../../main.ts", import.meta.url).pathname,
        ...[
          "-t",
          "t",
          "-m",
          "hosted_vllm/m",
          "--create-cwd",
          "--cwd",
          `${dir}/ws`,
          "-o",
          `${dir}/t.traj.json`,
          "-v",
        ],
      ],
      env: { HOSTED_VLLM_API_KEY: short, HOSTED_VLLM_API_BASE: server.url, NO_COLOR: "1" },
      stdin: "null",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 0, stderr);
    assertEquals(server.requests[0]?.headers.authorization, `Bearer ${short}`);
    const saved = await Deno.readTextFile(`${dir}/t.traj.json`);
    for (const [name, text] of [["trajectory", saved], ["stderr (-v)", stderr]] as const) {
      for (const form of [short, [...short].reverse().join("")]) {
        assert(!text.includes(form), `${name}: ${form}`);
      }
      assert(text.includes(`K=${REDACTED}`), name);
    }
  } finally {
    await server.close();
  }
});

Deno.test("claudius -v streaming a reply shows no key, also one that arrives cut over the stream's pieces", async () => {
  // The fake server streams content 8 characters at a time: the key spans four pieces.
  const server = await startFakeServer([{
    content: `Here: ${KEY} and ${KEY.toUpperCase()}, done.`,
    commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"],
  }], { streamDelayMs: 5 });
  const dir = await Deno.makeTempDir({ prefix: "claudius-redactor-" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("../../main.ts", import.meta.url).pathname]
        .concat(["-t", "t", "-m", "m", "--base-url", server.url, "-c", "model.stream=true", "-v"])
        .concat(["-c", "model.cost_tracking=ignore_errors", "-o", `${dir}/t.traj.json`, "--cwd", dir]),
      env: { OPENAI_API_KEY: KEY, NO_COLOR: "1" },
      stdin: "null",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 0, stderr);
    assertEquals(leaks(stderr), [], stderr);
    assert(stderr.includes(`Here: ${REDACTED} and ${REDACTED}, done.`), stderr);
  } finally {
    await server.close();
  }
});
