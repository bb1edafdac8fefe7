/**
 * Bedrock's Converse client (src/core/models/extra/bedrock.ts) against a loopback Bedrock Runtime that
 * verifies every SigV4 signature and refuses what Converse refuses (tests/_support/bedrock_server.ts).
 */
import { assert, assertEquals, assertRejects, assertThrows } from "../../../_support/assert.ts";
import { ApiError, ConfigError } from "../../../../src/core/errors.ts";
import { BedrockClient, type BedrockDeps } from "../../../../src/core/models/extra/bedrock.ts";
import { ChatModel } from "../../../../src/core/models/model.ts";
import type { ScriptReply } from "../../../../src/core/models/extra/_script.ts";
import type { Json, Message } from "../../../../src/core/types.ts";
import {
  type BedrockServer,
  type BedrockServerOptions,
  startBedrockServer,
} from "../../../_support/bedrock_server.ts";

type Obj = { [key: string]: Json };
const MODEL = "anthropic.claude-sonnet-4-5-20250929-v1:0";
const KEY_ID = "AKIDLOOPBACK";
const SECRET = "loopback/secret+key";

async function withBedrock(
  replies: ScriptReply[],
  opts: BedrockServerOptions,
  fn: (server: BedrockServer) => Promise<void>,
): Promise<void> {
  const server = await startBedrockServer(replies, opts);
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

function client(
  server: BedrockServer,
  env: Record<string, string>,
  config: Record<string, unknown> = {},
  deps: Partial<BedrockDeps> = {},
) {
  const logs: string[] = [];
  const c = new BedrockClient(
    { model_name: `bedrock/${MODEL}`, cost_tracking: "ignore_errors", retry_attempts: 2, ...config },
    {
      env: { AWS_BEDROCK_RUNTIME_ENDPOINT: server.url, HOME: "/nonexistent", ...env },
      costLimit: 0,
      log: (line) => logs.push(line),
      sleep: () => Promise.resolve(),
      ...deps,
    },
  );
  return { client: c, logs };
}

const ENV = { AWS_ACCESS_KEY_ID: KEY_ID, AWS_SECRET_ACCESS_KEY: SECRET, AWS_REGION: "us-east-1" };
const KEYS = { [KEY_ID]: { secret: SECRET } };

Deno.test("BedrockClient: a tool-calling conversation, signed, as Converse wants it; cache points where upstream's markers go", async () => {
  await withBedrock(
    [{ commands: ["ls -la"] }, { commands: ["echo done"] }],
    { keys: KEYS },
    async (server) => {
      const { client: c } = client(server, ENV, {
        input_cost_per_token: 3e-6,
        output_cost_per_token: 15e-6,
        cache_read_input_token_cost: 3e-7,
        cache_creation_input_token_cost: 3.75e-6,
        cost_tracking: "default",
      });
      const config = { model_name: `bedrock/${MODEL}`, set_cache_control: "default_end" };
      const model = new ChatModel(config, c, "toolcall", "claudius.models.OpenAIModel");
      const messages: Message[] = [
        { role: "system", content: "You are a test." },
        { role: "user", content: "List the files." },
      ];
      const first = await model.query(messages);
      const calls = first.tool_calls!;
      assertEquals(calls.length, 1);
      assertEquals(calls[0]!.function, { arguments: '{"command": "ls -la"}', name: "bash" });
      type Usage = {
        prompt_tokens: number;
        completion_tokens: number;
        cache_read_input_tokens: number;
        cache_creation_input_tokens: number;
        prompt_tokens_details: { cached_tokens: number };
      };
      const response = (m: Message) => m.extra!.response as unknown as { choices: Obj[]; usage: Usage };
      assertEquals(response(first).choices[0]!.finish_reason, "tool_calls");
      messages.push(
        first,
        { role: "tool", tool_call_id: calls[0]!.id, content: "a.txt\n", extra: {} } as Message,
      );
      const second = await model.query(messages);
      assertEquals(second.tool_calls![0]!.function.arguments, '{"command": "echo done"}');

      assertEquals(server.refusals, [], "every request was authentic and valid");
      const [r1, r2] = server.requests as [typeof server.requests[0], typeof server.requests[0]];
      assertEquals(r1.modelId, MODEL);
      assert(r1.target.includes("%3A0/converse"), r1.target);
      const b1 = r1.body as Obj, b2 = r2.body as Obj;
      assertEquals(Object.keys(b1), [
        "messages",
        "additionalModelRequestFields",
        "system",
        "inferenceConfig",
        "toolConfig",
      ]);
      assertEquals(b1.system, [{ text: "You are a test." }]);
      // upstream marks the last message: a text block, then a cache point.
      assertEquals(b1.messages, [{
        role: "user",
        content: [{ text: "List the files." }, { cachePoint: { type: "default" } }],
      }]);
      // The chat model's bash tool, as a toolSpec.
      const spec = ((b1.toolConfig as Obj).tools as Obj[])[0]!.toolSpec as Obj;
      assertEquals([spec.name, spec.description, (spec.inputSchema as Obj).json], [
        "bash",
        "Execute a bash command",
        {
          type: "object",
          properties: { command: { type: "string", description: "The bash command to execute" } },
          required: ["command"],
        },
      ]);
      // The tool result answers the toolUse by its id; the marker moved to it, and only it carries one.
      const turns = b2.messages as Obj[];
      assertEquals(turns.map((t) => t.role), ["user", "assistant", "user"]);
      assertEquals(turns[0]!.content, [{ text: "List the files." }]);
      assertEquals(turns[1]!.content, [{
        toolUse: { toolUseId: "tooluse_0_0", name: "bash", input: { command: "ls -la" } },
      }]);
      assertEquals(turns[2]!.content, [
        { toolResult: { toolUseId: "tooluse_0_0", content: [{ text: "a.txt\n" }] } },
        { cachePoint: { type: "default" } },
      ]);
      // The second request read what the first wrote: cached tokens priced at the cache rate.
      const usage = response(second).usage;
      assert(
        usage.cache_read_input_tokens > 0 &&
          usage.prompt_tokens_details.cached_tokens === usage.cache_read_input_tokens,
      );
      const expected =
        (usage.prompt_tokens - usage.cache_read_input_tokens - usage.cache_creation_input_tokens) * 3e-6 +
        usage.cache_read_input_tokens * 3e-7 + usage.cache_creation_input_tokens * 3.75e-6 +
        usage.completion_tokens * 15e-6;
      assert(Math.abs(Number(second.extra!.cost) - expected) < 1e-12, `${second.extra.cost} vs ${expected}`);
    },
  );
});

Deno.test("BedrockClient: credentials from a profile of ~/.aws/credentials, the region from ~/.aws/config", async () => {
  const home = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${home}/.aws`);
    await Deno.writeTextFile(
      `${home}/.aws/credentials`,
      `[default]\naws_access_key_id = WRONG\naws_secret_access_key = x\n\n[dev]\naws_access_key_id = ${KEY_ID}\naws_secret_access_key = ${SECRET}\naws_session_token = TOKEN-1\n`,
    );
    await Deno.writeTextFile(`${home}/.aws/config`, "[profile dev]\nregion = eu-west-1\n");
    await withBedrock([{ content: "hi" }], {
      keys: { [KEY_ID]: { secret: SECRET, sessionToken: "TOKEN-1" } },
      region: "eu-west-1",
    }, async (server) => {
      const { client: c } = client(server, { HOME: home, AWS_PROFILE: "dev" });
      await c.ready();
      assertEquals(
        c.keyFrom,
        "profile 'dev' of ~/.aws/credentials; region eu-west-1 from profile 'dev' of ~/.aws/config",
      );
      const out = await c.complete({ messages: [{ role: "user", content: "hi" }] });
      assertEquals(out.message.content, "hi");
      assertEquals(server.refusals, []);
      assertEquals(server.requests[0]!.headers["x-amz-security-token"], "TOKEN-1");
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("BedrockClient: a credential_process runs and its temporary credentials sign", async () => {
  const home = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${home}/.aws`);
    const script = `${home}/creds.sh`;
    await Deno.writeTextFile(
      script,
      `#!/bin/sh\necho '{"Version": 1, "AccessKeyId": "${KEY_ID}", "SecretAccessKey": "${SECRET}", "SessionToken": "TOK-P", "Expiration": "2999-01-01T00:00:00Z"}'\n`,
    );
    await Deno.chmod(script, 0o755);
    await Deno.writeTextFile(
      `${home}/.aws/config`,
      `[default]\ncredential_process = "${script}" --profile x\nregion = us-east-1\n`,
    );
    await withBedrock(
      [{ content: "ok" }],
      { keys: { [KEY_ID]: { secret: SECRET, sessionToken: "TOK-P" } } },
      async (server) => {
        const { client: c } = client(server, { HOME: home });
        assertEquals(
          (await c.complete({ messages: [{ role: "user", content: "hi" }] })).message.content,
          "ok",
        );
        assertEquals(server.refusals, []);
      },
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("BedrockClient: a wrong secret is one error naming the credentials, not retried", async () => {
  await withBedrock([{ content: "never" }], { keys: KEYS }, async (server) => {
    const { client: c } = client(server, { ...ENV, AWS_SECRET_ACCESS_KEY: "not-the-secret" });
    const e = await assertRejects(
      () => c.complete({ messages: [{ role: "user", content: "hi" }] }),
      ApiError,
    );
    assertEquals(server.refusals.length, 1, "not retried");
    assert(
      e.message.startsWith(
        `Cannot query model: HTTP 403 from ${server.url} (the credentials are AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`,
      ),
      e.message,
    );
    assert(e.message.includes("The request signature we calculated does not match"), e.message);
    assert(!e.message.includes("not-the-secret"));
  });
});

Deno.test("BedrockClient: an expired session token says so and names AWS_SESSION_TOKEN", async () => {
  await withBedrock([{ content: "never" }], {
    keys: { [KEY_ID]: { secret: SECRET, sessionToken: "OLD", expired: true } },
  }, async (server) => {
    const { client: c } = client(server, { ...ENV, AWS_SESSION_TOKEN: "OLD" });
    const e = await assertRejects(
      () => c.complete({ messages: [{ role: "user", content: "hi" }] }),
      ApiError,
    );
    assert(e.message.includes("(with AWS_SESSION_TOKEN)"), e.message);
    assert(e.message.endsWith("The security token included in the request is expired"), e.message);
  });
});

Deno.test("BedrockClient: no credentials at all is a config error naming what to set, before any request", async () => {
  await withBedrock([], { keys: KEYS }, async (server) => {
    const { client: c } = client(server, {});
    const e = await assertRejects(() => c.ready(), ConfigError);
    assertEquals(
      e.message,
      "Cannot configure model: no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and " +
        "AWS_SESSION_TOKEN for temporary credentials), or AWS_PROFILE naming a profile of ~/.aws/credentials or " +
        "~/.aws/config (static keys or credential_process), or AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key)",
    );
    assertEquals(server.requests.length + server.refusals.length, 0);
  });
});

Deno.test("BedrockClient: a Bedrock API key goes as a bearer token", async () => {
  await withBedrock([{ content: "k" }], { bearer: ["ABSK-test-key"] }, async (server) => {
    const { client: c } = client(server, { AWS_BEARER_TOKEN_BEDROCK: "ABSK-test-key" });
    assertEquals((await c.complete({ messages: [{ role: "user", content: "hi" }] })).message.content, "k");
    assertEquals(server.requests[0]!.headers.authorization, "Bearer ABSK-test-key");
  });
});

Deno.test("BedrockClient: prices from the price database's aws entries, with the cross-region prefix", async () => {
  await withBedrock([{ content: "x" }], { keys: KEYS }, async (server) => {
    const { client: c } = client(
      server,
      ENV,
      { model_name: `bedrock/us.${MODEL}`, cost_tracking: "default" },
      { costLimit: 3 },
    );
    await c.ready();
    const out = await c.complete({ messages: [{ role: "user", content: "hi" }] });
    assert(out.cost > 0, `cost ${out.cost}`);
  });
});

Deno.test("BedrockClient: a region that is no region name is refused, naming where it came from (it is the host's name)", async () => {
  await withBedrock([], { bearer: ["ABSK-test-key"] }, async (server) => {
    // https://bedrock-runtime.x@<host>/.amazonaws.com: the bearer key went to <host>.
    for (
      const [env, config, from] of [
        [{ AWS_REGION: `x@${new URL(server.url).host}/` }, {}, "AWS_REGION"],
        [{}, { model_kwargs: { aws_region_name: "evil.example/#" } }, "model.model_kwargs.aws_region_name"],
      ] as const
    ) {
      const { client: c } = client(
        server,
        { AWS_BEDROCK_RUNTIME_ENDPOINT: "", AWS_BEARER_TOKEN_BEDROCK: "ABSK-test-key", ...env },
        config,
      );
      const e = await assertRejects(() => c.ready(), ConfigError);
      assert(e.message.includes(`(from ${from}) is no region name`), e.message);
    }
    assertEquals(server.requests.length + server.refusals.length, 0);
  });
});

Deno.test("BedrockClient: thinking as litellm sends it: maxTokens past the budget, a budget of at least 1024, no forced tool", async () => {
  const cases: { kwargs: Obj; effort?: string; thinking: Obj; maxTokens: number; toolChoice?: Obj }[] = [
    // reasoning_effort high without max_tokens: the budget plus 4096 for the answer.
    { kwargs: {}, effort: "high", thinking: { type: "enabled", budget_tokens: 4096 }, maxTokens: 8192 },
    // minimal's 128 is under Bedrock's least budget: raised to 1024.
    { kwargs: {}, effort: "minimal", thinking: { type: "enabled", budget_tokens: 1024 }, maxTokens: 5120 },
    // thinking given as is, with a forced tool: the budget raised, the choice auto.
    {
      kwargs: { thinking: { type: "enabled", budget_tokens: 500 }, tool_choice: "required" },
      thinking: { type: "enabled", budget_tokens: 1024 },
      maxTokens: 5120,
      toolChoice: { auto: {} },
    },
    // a max_tokens of the config's own stays.
    {
      kwargs: { max_tokens: 20000 },
      effort: "low",
      thinking: { type: "enabled", budget_tokens: 1024 },
      maxTokens: 20000,
    },
  ];
  for (const t of cases) {
    await withBedrock([{ commands: ["ls"] }], { keys: KEYS }, async (server) => {
      const { client: c } = client(server, ENV, {
        model_kwargs: t.kwargs,
        ...(t.effort ? { reasoning_effort: t.effort } : {}),
      });
      const tools = [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }];
      await c.complete({ messages: [{ role: "user", content: "hi" }], tools });
      assertEquals(server.refusals, [], JSON.stringify(t));
      const body = server.requests[0]!.body as Obj;
      assertEquals((body.additionalModelRequestFields as Obj).thinking, t.thinking);
      assertEquals((body.inferenceConfig as Obj).maxTokens, t.maxTokens);
      assertEquals((body.toolConfig as Obj).toolChoice, t.toolChoice);
    });
  }
});

Deno.test("BedrockClient: a model ARN's region signs the request, over AWS_REGION (as litellm reads it)", async () => {
  await withBedrock([{ content: "from eu" }], { keys: KEYS, region: "eu-west-1" }, async (server) => {
    const arn = `arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.${MODEL}`;
    const { client: c } = client(server, ENV, { model_name: `bedrock/${arn}` });
    assertEquals(
      (await c.complete({ messages: [{ role: "user", content: "hi" }] })).message.content,
      "from eu",
    );
    assertEquals(server.refusals, []);
    assertEquals(server.requests[0]!.modelId, arn);
    assert(c.keyFrom!.endsWith("region eu-west-1 from the model's ARN"), c.keyFrom);
  });
});

Deno.test("BedrockClient: AWS_PROFILE naming a profile no file defines is one error naming it and the files' profiles, as boto3 refuses it", async () => {
  const home = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${home}/.aws`);
    await Deno.writeTextFile(
      `${home}/.aws/config`,
      "[profile dev]\nregion = eu-west-1\n[default]\nregion = us-east-1\n",
    );
    await withBedrock([], { keys: KEYS }, async (server) => {
      // The environment's keys do not stand in for the profile named (boto3 raises ProfileNotFound).
      const { client: c } = client(server, { ...ENV, HOME: home, AWS_PROFILE: "nosuch" });
      const e = await assertRejects(() => c.ready(), ConfigError);
      assertEquals(
        e.message,
        "Cannot configure model: AWS_PROFILE names the AWS profile 'nosuch', which neither ~/.aws/credentials " +
          "nor ~/.aws/config defines (they define dev, default): name one of theirs, or unset AWS_PROFILE",
      );
      assertEquals(server.requests.length + server.refusals.length, 0);
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("BedrockClient: reasoning_effort for the models that are no Claude, as litellm maps it (gpt-oss, Nova 2 Lite), refused for one that takes none", async () => {
  const sent = async (model: string, config: Record<string, unknown>) => {
    let body: Obj = {};
    await withBedrock([{ content: "ok" }], { keys: KEYS }, async (server) => {
      const { client: c } = client(server, ENV, { model_name: `bedrock/${model}`, ...config });
      await c.complete({ messages: [{ role: "user", content: "hi" }] });
      body = server.requests[0]!.body as Obj;
    });
    return body.additionalModelRequestFields;
  };
  assertEquals(await sent("openai.gpt-oss-120b-1:0", { reasoning_effort: "high" }), {
    reasoning_effort: "high",
  });
  assertEquals(await sent("us.amazon.nova-2-lite-v1:0", { model_kwargs: { reasoning_effort: "low" } }), {
    reasoningConfig: { type: "enabled", maxReasoningEffort: "low" },
  });
  assertEquals(
    await sent("meta.llama3-3-70b-instruct-v1:0", {
      model_kwargs: { reasoning_effort: "low", drop_params: true },
    }),
    {},
  );
  await withBedrock([], { keys: KEYS }, (server) => {
    const e = assertThrows(
      () =>
        client(server, ENV, {
          model_name: "bedrock/meta.llama3-3-70b-instruct-v1:0",
          reasoning_effort: "low",
        }),
      ConfigError,
    );
    assertEquals(
      e.message,
      "Cannot configure model: reasoning_effort: bedrock/meta.llama3-3-70b-instruct-v1:0 takes none (litellm " +
        "refuses it for this model); remove it, or set model.model_kwargs.drop_params: true to drop it",
    );
    return Promise.resolve();
  });
});
