/**
 * SigV4: the loopback servers' verifier (tests/_support/sigv4_verifier.ts) reproduces AWS's published
 * test suite step by step, and what claudius's signer (src/core/models/extra/sigv4.ts, aws4fetch)
 * produces passes that verifier, and fails it for a wrong secret, a stale clock or a wrong scope.
 */
import { assert, assertEquals } from "../../../_support/assert.ts";
import {
  canonicalRequest,
  signatureOf,
  type SignedRequest,
  stringToSign,
  verifySigV4,
} from "../../../_support/sigv4_verifier.ts";
import { sigv4Headers } from "../../../../src/core/models/extra/sigv4.ts";

interface Vector {
  name: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  canonical_request: string;
  string_to_sign: string;
  authorization: string;
}

const SUITE = JSON.parse(
  await Deno.readTextFile(new URL("../../../testdata/sigv4/aws_sigv4_test_suite.json", import.meta.url)),
) as {
  credentials: { access_key_id: string; secret_access_key: string };
  region: string;
  service: string;
  date: string;
  vectors: Vector[];
};

Deno.test("verifier: canonical request, string to sign and signature equal AWS's test suite", async () => {
  const scope = `${SUITE.date.slice(0, 8)}/${SUITE.region}/${SUITE.service}/aws4_request`;
  assert(SUITE.vectors.length >= 20);
  for (const v of SUITE.vectors) {
    const request: SignedRequest = {
      method: v.method,
      target: v.path,
      headers: Object.entries(v.headers),
      body: v.body,
    };
    const signed = /SignedHeaders=([^,]+)/.exec(v.authorization)![1]!.split(";");
    const canonical = await canonicalRequest(request, signed);
    assertEquals(canonical, v.canonical_request, `${v.name}: canonical request`);
    const toSign = await stringToSign(SUITE.date, scope, canonical);
    assertEquals(toSign, v.string_to_sign, `${v.name}: string to sign`);
    const signature = await signatureOf(
      SUITE.credentials.secret_access_key,
      { date: SUITE.date.slice(0, 8), region: SUITE.region, service: SUITE.service },
      toSign,
    );
    assertEquals(signature, /Signature=([0-9a-f]+)/.exec(v.authorization)![1], `${v.name}: signature`);
    // The whole check accepts the suite's own Authorization header, and refuses it under another secret.
    const withAuth = {
      ...request,
      headers: [...Object.entries(v.headers), ["authorization", v.authorization]] as [string, string][],
    };
    const keys = { [SUITE.credentials.access_key_id]: { secret: SUITE.credentials.secret_access_key } };
    const now = new Date("2015-08-30T12:36:00Z");
    const opts = { keys, region: SUITE.region, service: SUITE.service, now };
    // The session-token vector carries its token; the verifier wants it registered with the key.
    const token = v.headers["x-amz-security-token"];
    if (token) {
      keys[SUITE.credentials.access_key_id] = {
        secret: SUITE.credentials.secret_access_key,
        sessionToken: token,
      } as never;
    }
    assertEquals(await verifySigV4(withAuth, opts), undefined, `${v.name}: verified`);
    const wrong = {
      ...opts,
      keys: { [SUITE.credentials.access_key_id]: { secret: "x", ...(token ? { sessionToken: token } : {}) } },
    };
    assertEquals(
      (await verifySigV4(withAuth, wrong))?.type,
      "InvalidSignatureException",
      `${v.name}: wrong secret`,
    );
  }
});

const CREDS = { accessKeyId: "AKIDTESTKEY", secretAccessKey: "test-secret/with+chars" };

/** What the signer sends for a Bedrock-shaped request, as the verifier receives it. */
async function signed(
  url: string,
  body: string,
  creds: typeof CREDS & { sessionToken?: string },
  datetime: string,
) {
  const headers = { "content-type": "application/json", accept: "application/json" };
  const added = await sigv4Headers(
    { url, method: "POST", headers, body, region: "us-east-1", service: "bedrock", datetime },
    creds,
  );
  const u = new URL(url);
  const request: SignedRequest = {
    method: "POST",
    target: u.pathname + u.search,
    headers: [...Object.entries({ ...headers, ...added }), ["host", u.host]],
    body,
  };
  return request;
}

Deno.test("sigv4Headers() signs what the verifier accepts, a model id with ':' encoded twice as AWS wants", async () => {
  const url = "http://127.0.0.1:8123/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse";
  const request = await signed(url, '{"messages":[]}', CREDS, "20250102T030405Z");
  const opts = {
    keys: { AKIDTESTKEY: { secret: CREDS.secretAccessKey } },
    region: "us-east-1",
    service: "bedrock",
    now: new Date("2025-01-02T03:04:05Z"),
  };
  assertEquals(await verifySigV4(request, opts), undefined);
  // A changed body, a wrong secret, a clock six minutes off, another region: each refused as AWS refuses it.
  assertEquals(
    (await verifySigV4({ ...request, body: '{"messages":[1]}' }, opts))?.type,
    "InvalidSignatureException",
  );
  const wrong = { ...opts, keys: { AKIDTESTKEY: { secret: "other" } } };
  assertEquals(
    (await verifySigV4(request, wrong))?.message.startsWith("The request signature we calculated"),
    true,
  );
  const late = await verifySigV4(request, { ...opts, now: new Date("2025-01-02T03:10:06Z") });
  assertEquals(late?.message.startsWith("Signature expired: 20250102T030405Z is now earlier than"), true);
  assertEquals(
    (await verifySigV4(request, { ...opts, region: "eu-west-1" }))?.type,
    "InvalidSignatureException",
  );
  assertEquals((await verifySigV4(request, { ...opts, keys: {} }))?.type, "UnrecognizedClientException");
});

Deno.test("sigv4Headers() sends and signs a session token; an expired one is refused as expired", async () => {
  const creds = { ...CREDS, sessionToken: "FQoGZXIvYXdzEXAMPLE" };
  const request = await signed("http://127.0.0.1:1/model/m/converse", "{}", creds, "20250102T030405Z");
  const base = { region: "us-east-1", service: "bedrock", now: new Date("2025-01-02T03:04:05Z") };
  const keys = { AKIDTESTKEY: { secret: CREDS.secretAccessKey, sessionToken: creds.sessionToken } };
  assertEquals(await verifySigV4(request, { ...base, keys }), undefined);
  const expired = { AKIDTESTKEY: { ...keys.AKIDTESTKEY, expired: true } };
  assertEquals(await verifySigV4(request, { ...base, keys: expired }), {
    status: 403,
    type: "ExpiredTokenException",
    message: "The security token included in the request is expired",
  });
});
