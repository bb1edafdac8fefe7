/**
 * Vertex AI (src/core/models/extra/vertex.ts, google_auth.ts) against a loopback Google whose token
 * endpoint verifies each JWT's RS256 signature with the service account's public key and refuses an
 * expired one, and whose Vertex routes want a token it issued (tests/_support/google_server.ts).
 */
import { assert, assertEquals, assertRejects } from "../../../_support/assert.ts";
import { ApiError, ConfigError } from "../../../../src/core/errors.ts";
import { VertexClient, type VertexDeps } from "../../../../src/core/models/extra/vertex.ts";
import type { ScriptReply } from "../../../../src/core/models/extra/_script.ts";
import type { Json, WireMessage } from "../../../../src/core/types.ts";
import {
  type GoogleServer,
  type GoogleServerOptions,
  makeServiceAccount,
  startGoogleServer,
} from "../../../_support/google_server.ts";

type Obj = { [key: string]: Json };

async function withGoogle(
  replies: ScriptReply[],
  opts: Omit<GoogleServerOptions, "project" | "location"> & Partial<GoogleServerOptions>,
  fn: (server: GoogleServer, dir: string) => Promise<void>,
): Promise<void> {
  const server = await startGoogleServer(replies, {
    project: "loopback-project",
    location: "us-east5",
    ...opts,
  });
  const dir = await Deno.makeTempDir();
  try {
    await fn(server, dir);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function vertex(model: string, env: Record<string, string>, deps: Partial<VertexDeps> = {}) {
  return new VertexClient(
    { model_name: model, cost_tracking: "ignore_errors", retry_attempts: 2 },
    {
      env: { HOME: "/nonexistent", ...env },
      costLimit: 0,
      log: () => {},
      sleep: () => Promise.resolve(),
      ...deps,
    },
  );
}

const MARKED: WireMessage[] = [
  { role: "system", content: "You are a test." },
  { role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] },
];

/** Options whose token endpoint knows the account that `register` is given. */
function accounts() {
  const list: { email: string; publicKey: CryptoKey }[] = [];
  return {
    opts: {
      get accounts() {
        return list;
      },
    },
    register: (a: { email: string; publicKey: CryptoKey }) => list.push(a),
  };
}

Deno.test("VertexClient: Claude at :rawPredict with a service account's token, Vertex's anthropic_version, the marker kept", async () => {
  const known = accounts();
  await withGoogle([{ content: "one" }, { content: "two" }], known.opts, async (server, dir) => {
    const sa = await makeServiceAccount(server.tokenUri);
    known.register(sa.account);
    await Deno.writeTextFile(`${dir}/sa.json`, JSON.stringify(sa.file));
    const c = vertex("vertex_ai/claude-sonnet-4-5@20250929", {
      GOOGLE_APPLICATION_CREDENTIALS: `${dir}/sa.json`,
      VERTEXAI_API_BASE: server.url,
      VERTEXAI_LOCATION: "us-east5",
    });
    await c.ready();
    assertEquals(
      c.keyFrom,
      `GOOGLE_APPLICATION_CREDENTIALS (${dir}/sa.json); project loopback-project, location us-east5 (project from ` +
        `GOOGLE_APPLICATION_CREDENTIALS (${dir}/sa.json), location from VERTEXAI_LOCATION)`,
    );
    assertEquals((await c.complete({ messages: MARKED })).message.content, "one");
    assertEquals((await c.complete({ messages: MARKED })).message.content, "two");
    const [r1, r2] = server.apiRequests;
    assertEquals(
      r1!.path,
      "/v1/projects/loopback-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict",
    );
    const body = r1!.body as Obj;
    assertEquals(body.anthropic_version, "vertex-2023-10-16");
    assert(!("model" in body));
    assertEquals(body.system, [{ type: "text", text: "You are a test." }]);
    assertEquals(body.messages, [{
      role: "user",
      content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }],
    }]);
    assertEquals(r1!.headers.authorization, "Bearer ya29.loopback-1");
    assertEquals(r2!.headers.authorization, "Bearer ya29.loopback-1", "the token is kept");
    assertEquals(server.tokenRequests.length, 1);
    assertEquals(server.tokenRequests[0]!.form!.grant_type, "urn:ietf:params:oauth:grant-type:jwt-bearer");
  });
});

Deno.test("VertexClient: the token is renewed before it expires", async () => {
  let clock = Date.now();
  const known = accounts();
  await withGoogle([{ content: "a" }, { content: "b" }, { content: "c" }], {
    ...known.opts,
    now: () => clock,
  }, async (server, dir) => {
    const sa = await makeServiceAccount(server.tokenUri);
    known.register(sa.account);
    await Deno.writeTextFile(`${dir}/sa.json`, JSON.stringify(sa.file));
    const c = vertex("vertex_ai/claude-opus-4-1", {
      GOOGLE_APPLICATION_CREDENTIALS: `${dir}/sa.json`,
      VERTEXAI_API_BASE: server.url,
      VERTEXAI_LOCATION: "us-east5",
    }, { google: { now: () => clock } });
    await c.complete({ messages: MARKED });
    clock += 3300_000; // 5 minutes before the token expires: still good
    await c.complete({ messages: MARKED });
    clock += 200_000; // under 3 min 45 s left: renewed first
    await c.complete({ messages: MARKED });
    assertEquals(server.apiRequests.map((r) => r.headers.authorization), [
      "Bearer ya29.loopback-1",
      "Bearer ya29.loopback-1",
      "Bearer ya29.loopback-2",
    ]);
  });
});

Deno.test("VertexClient: an expired JWT (a clock two hours slow) is one error naming the clock and the key file", async () => {
  const known = accounts();
  await withGoogle([{ content: "never" }], known.opts, async (server, dir) => {
    const sa = await makeServiceAccount(server.tokenUri);
    known.register(sa.account);
    await Deno.writeTextFile(`${dir}/sa.json`, JSON.stringify(sa.file));
    const slow = () => Date.now() - 2 * 3600_000;
    const c = vertex("vertex_ai/claude-sonnet-4-5", {
      GOOGLE_APPLICATION_CREDENTIALS: `${dir}/sa.json`,
      VERTEXAI_API_BASE: server.url,
      VERTEXAI_LOCATION: "us-east5",
    }, { google: { now: slow } });
    const e = await assertRejects(() => c.complete({ messages: MARKED }), ApiError);
    assert(
      e.message.startsWith(
        `Cannot get a Google access token from ${server.tokenUri} (HTTP 400): invalid_grant: Invalid JWT: Token must be a short-lived token`,
      ),
      e.message,
    );
    assert(
      e.message.endsWith(
        `(the JWT's times come from this machine's clock: check it; the key is GOOGLE_APPLICATION_CREDENTIALS (${dir}/sa.json))`,
      ),
      e.message,
    );
    assertEquals(server.tokenRequests.length, 1, "not retried");
    assertEquals(server.apiRequests.length, 0);
  });
});

Deno.test("VertexClient: a service account the token endpoint does not know is refused", async () => {
  await withGoogle([{ content: "never" }], {}, async (server, dir) => {
    const other = await makeServiceAccount(server.tokenUri);
    await Deno.writeTextFile(`${dir}/sa.json`, JSON.stringify(other.file));
    const c = vertex("vertex_ai/gemini-2.5-pro", {
      GOOGLE_APPLICATION_CREDENTIALS: `${dir}/sa.json`,
      VERTEXAI_API_BASE: server.url,
    });
    const e = await assertRejects(() => c.complete({ messages: MARKED }), ApiError);
    assert(e.message.includes("invalid_grant: Invalid grant: account not found"), e.message);
  });
});

Deno.test("VertexClient: a signature by another key of the same account is 'Invalid JWT Signature.'", async () => {
  const holder: { key?: CryptoKey } = {};
  const server = await startGoogleServer([], {
    project: "loopback-project",
    location: "us-central1",
    get accounts() {
      return holder.key
        ? [{ email: "runner@loopback-project.iam.gserviceaccount.com", publicKey: holder.key }]
        : [];
    },
  });
  const dir = await Deno.makeTempDir();
  try {
    holder.key = (await makeServiceAccount(server.tokenUri)).account.publicKey;
    const mine = await makeServiceAccount(server.tokenUri);
    await Deno.writeTextFile(`${dir}/sa.json`, JSON.stringify(mine.file));
    const c = vertex("vertex_ai/gemini-2.5-pro", {
      GOOGLE_APPLICATION_CREDENTIALS: `${dir}/sa.json`,
      VERTEXAI_API_BASE: server.url,
    });
    const e = await assertRejects(() => c.complete({ messages: MARKED }), ApiError);
    assert(e.message.includes("invalid_grant: Invalid JWT Signature."), e.message);
    assert(
      e.message.includes(`check the service account key in GOOGLE_APPLICATION_CREDENTIALS (${dir}/sa.json)`),
      e.message,
    );
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("VertexClient: Gemini through the OpenAI-compatible endpoint, gcloud's authorized user and quota project", async () => {
  const user = { client_id: "cid", client_secret: "csecret", refresh_token: "1//refresh" };
  await withGoogle(
    [{ commands: ["ls"] }],
    { users: [user], location: "europe-west4" },
    async (server, dir) => {
      await Deno.mkdir(`${dir}/.config/gcloud`, { recursive: true });
      await Deno.writeTextFile(
        `${dir}/.config/gcloud/application_default_credentials.json`,
        JSON.stringify({
          type: "authorized_user",
          ...user,
          quota_project_id: "loopback-project",
          token_uri: server.tokenUri,
        }),
      );
      const c = vertex("vertex_ai/gemini-2.5-pro", {
        VERTEXAI_API_BASE: server.url,
        VERTEXAI_LOCATION: "europe-west4",
      }, {
        google: { home: dir },
      });
      const out = await c.complete({ messages: [{ role: "user", content: "list" }], tools: [] });
      assertEquals(out.message.tool_calls?.[0]?.function.name, "bash");
      const r = server.apiRequests[0]!;
      assertEquals(
        r.path,
        "/v1/projects/loopback-project/locations/europe-west4/endpoints/openapi/chat/completions",
      );
      assertEquals((r.body as Obj).model, "google/gemini-2.5-pro");
      assertEquals(r.headers["x-goog-user-project"], "loopback-project");
      assertEquals(server.tokenRequests[0]!.form!.grant_type, "refresh_token");
      assert(
        c.keyFrom!.startsWith(
          "gcloud's application default credentials (~/.config/gcloud/application_default_credentials.json)",
        ),
      );
    },
  );
});

Deno.test("VertexClient: no credentials, or no project, is a config error naming what to set", async () => {
  const none = vertex("vertex_ai/gemini-2.5-pro", {}, { google: { home: "/nonexistent" } });
  const e = await assertRejects(() => none.ready(), ConfigError);
  assertEquals(
    e.message,
    "Cannot configure model: no Google credentials: set GOOGLE_APPLICATION_CREDENTIALS (or VERTEXAI_CREDENTIALS) " +
      "naming a service-account or authorized-user JSON file, or run 'gcloud auth application-default login' (the " +
      "file ~/.config/gcloud/application_default_credentials.json)",
  );
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/u.json`,
      JSON.stringify({ type: "authorized_user", client_id: "a", client_secret: "b", refresh_token: "c" }),
    );
    const noProject = vertex("vertex_ai/gemini-2.5-pro", { GOOGLE_APPLICATION_CREDENTIALS: `${dir}/u.json` });
    const p = await assertRejects(() => noProject.ready(), ConfigError);
    assert(
      p.message.startsWith("Cannot configure model: no Vertex AI project: set VERTEXAI_PROJECT"),
      p.message,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("VertexClient: a location or project that is no plain name is refused, naming where it came from", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/u.json`,
      JSON.stringify({ type: "authorized_user", client_id: "a", client_secret: "b", refresh_token: "c" }),
    );
    const env = { GOOGLE_APPLICATION_CREDENTIALS: `${dir}/u.json`, VERTEXAI_PROJECT: "p" };
    // https://x@127.0.0.1:1/-aiplatform.googleapis.com: the token would go to 127.0.0.1:1.
    const location = vertex("vertex_ai/gemini-2.5-pro", { ...env, VERTEXAI_LOCATION: "x@127.0.0.1:1/" });
    const l = await assertRejects(() => location.ready(), ConfigError);
    assert(
      l.message.includes('location "x@127.0.0.1:1/" (from VERTEXAI_LOCATION) is no location name'),
      l.message,
    );
    const project = vertex("vertex_ai/gemini-2.5-pro", { ...env, VERTEXAI_PROJECT: "p/../../x?" });
    const p = await assertRejects(() => project.ready(), ConfigError);
    assert(p.message.includes("(from VERTEXAI_PROJECT) is no project name"), p.message);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("VertexClient: a token_uri that no server answers is one error naming the key file's token_uri, after the first-contact attempts", async () => {
  await withGoogle([{ content: "never" }], {}, async (server, dir) => {
    // A port nothing listens on: the key file's token endpoint is unreachable, the model's is not.
    const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (closed.addr as Deno.NetAddr).port;
    closed.close();
    const sa = await makeServiceAccount(`http://127.0.0.1:${port}/token`);
    await Deno.writeTextFile(`${dir}/sa.json`, JSON.stringify(sa.file));
    const logs: string[] = [];
    const c = new VertexClient(
      { model_name: "vertex_ai/gemini-2.5-pro", cost_tracking: "ignore_errors" },
      {
        env: {
          HOME: "/nonexistent",
          GOOGLE_APPLICATION_CREDENTIALS: `${dir}/sa.json`,
          VERTEXAI_API_BASE: server.url,
        },
        costLimit: 0,
        log: (line) => logs.push(line),
        sleep: () => Promise.resolve(),
      },
    );
    const e = await assertRejects(
      () => c.complete({ messages: [{ role: "user", content: "hi" }] }),
      ApiError,
    );
    assertEquals(logs.length, 2, logs.join("\n"));
    assert(
      e.message.includes("giving up after 3 attempts (a first request that finds no server)"),
      e.message,
    );
    assert(
      e.message.endsWith(
        `Cannot get a Google access token from http://127.0.0.1:${port}/token (the token_uri of ` +
          `GOOGLE_APPLICATION_CREDENTIALS (${dir}/sa.json)): connection refused; check the network, and the ` +
          `token_uri of GOOGLE_APPLICATION_CREDENTIALS (${dir}/sa.json)`,
      ),
      e.message,
    );
    assertEquals(server.apiRequests.length, 0);
  });
});

Deno.test("VertexClient: Mistral's models at publishers/mistralai/models/M:rawPredict, the body's model without its @version (litellm's partner route)", async () => {
  const known = accounts();
  await withGoogle([{ content: "bonjour" }], known.opts, async (server, dir) => {
    const sa = await makeServiceAccount(server.tokenUri);
    known.register(sa.account);
    await Deno.writeTextFile(`${dir}/sa.json`, JSON.stringify(sa.file));
    const c = vertex("vertex_ai/mistral-medium-3@001", {
      GOOGLE_APPLICATION_CREDENTIALS: `${dir}/sa.json`,
      VERTEXAI_API_BASE: server.url,
      VERTEXAI_LOCATION: "us-east5",
    });
    const out = await c.complete({ messages: [{ role: "user", content: "salut" }] });
    assertEquals(out.message.content, "bonjour");
    const r = server.apiRequests.at(-1)!;
    assertEquals(
      r.path,
      "/v1/projects/loopback-project/locations/us-east5/publishers/mistralai/models/mistral-medium-3@001:rawPredict",
    );
    assertEquals((r.body as Obj).model, "mistral-medium-3");
    assert(r.headers.authorization?.startsWith("Bearer "));
  });
});
