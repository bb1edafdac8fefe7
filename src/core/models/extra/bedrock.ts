/**
 * Amazon Bedrock through its Converse API (`POST <endpoint>/model/<modelId>/converse`), litellm's route
 * for `bedrock/` models: the conversation translated as litellm translates it (see `_converse.ts`),
 * every request signed with SigV4 (service `bedrock`) from the credentials litellm would find (see
 * `aws_credentials.ts`), or sent with a Bedrock API key as a bearer token; the endpoint is
 * `https://bedrock-runtime.<region>.amazonaws.com` unless `model.base_url`, `model_kwargs.api_base`,
 * `model_kwargs.aws_bedrock_runtime_endpoint` or `AWS_BEDROCK_RUNTIME_ENDPOINT` name another. Retries,
 * deadlines and the cost policy are the chat client's.
 *
 * @module
 */
import type { ChatClient, ChatRequest, Completion, Json } from "../../types.ts";
import type { ConfigInput } from "../../config/keys.ts";
import { ConfigError } from "../../errors.ts";
import { type HttpClientDeps, type HttpSetup, httpSetup } from "../_http.ts";
import type { OPENAI_KEYS } from "../_keys.ts";
import type { Endpoint } from "../_presets.ts";
import { Transport } from "../_transport.ts";
import { completionOf } from "../_wire.ts";
import { type EndpointCheck, probeEndpoint } from "./_probe.ts";
import {
  type AwsAuth,
  awsAuth,
  type AwsIO,
  type AwsParams,
  type AwsRegion,
  splitCommandLine,
} from "./aws_credentials.ts";
import { sigv4Headers } from "./sigv4.ts";
import { converseMessages, converseTool, parseConverseBody } from "./_converse.ts";
import { converseParams } from "./_converse_params.ts";

/** The `model_kwargs` keys litellm reads for Bedrock (never sent). */
const AWS_KWARGS = [
  "aws_access_key_id",
  "aws_secret_access_key",
  "aws_session_token",
  "aws_region_name",
  "aws_profile_name",
  "aws_bedrock_runtime_endpoint",
  "aws_role_name",
  "aws_session_name",
  "aws_web_identity_token",
  "aws_sts_endpoint",
  "aws_external_id",
] as const;

/** What the Bedrock client needs beyond an HTTP client's deps: files and the `credential_process` runner. */
export interface BedrockDeps extends HttpClientDeps {
  /** How credentials are found (default: the real files and processes, `HOME` from `env`). */
  aws?: Partial<Omit<AwsIO, "env">> & { home?: string };
  /** The signing time (tests); default now. */
  now?: () => Date;
}

/** The Bedrock model id a name after `bedrock/` stands for (litellm's `converse/` route prefix removed). */
export function bedrockModelId(model: string): string {
  if (model.startsWith("invoke/")) {
    throw new ConfigError(
      `Cannot configure model: bedrock/${model}: claudius speaks Bedrock's Converse API only; name the ` +
        `model without invoke/ (bedrock/${model.slice(7)}), as litellm routes most models`,
    );
  }
  return model.replace(/^converse\//, "");
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw new ConfigError(`Cannot read ${path}: ${e instanceof Error ? e.message : e}`);
  }
}

async function runProcess(line: string): Promise<string> {
  const [cmd, ...args] = splitCommandLine(line);
  if (cmd === undefined) throw new Error("the command line is empty");
  const out = await new Deno.Command(cmd, { args, stdin: "null", stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    const err = new TextDecoder().decode(out.stderr).trim().split("\n").at(-1) ?? "";
    throw new Error(`exit ${out.code}${err ? `: ${err}` : ""}`);
  }
  return text;
}

/**
 * Converse client, with the chat client's deadline, retries (429, 5xx, network errors; AWS's 403s and
 * 400s fail at once, naming the credentials' source) and cost policy (Bedrock puts no cost in its
 * answers: the price database's `aws` prices, or configured ones).
 *
 * @example
 * ```ts ignore
 * const client = new BedrockClient({ model_name: "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0" }, { env: Deno.env.toObject(), costLimit: 3 });
 * await client.ready();
 * const { message } = await client.complete({ messages: [{ role: "user", content: "hi" }] });
 * ```
 */
export class BedrockClient implements ChatClient {
  /** Where requests go (the region's endpoint is filled in by {@link ready}). */
  readonly endpoint: Endpoint;
  readonly #setup: HttpSetup;
  readonly #deps: BedrockDeps;
  readonly #modelId: string;
  readonly #params: AwsParams & { aws_bedrock_runtime_endpoint?: string };
  readonly #body: { [key: string]: Json };
  #tools: { of: readonly Json[]; as: Json[] } | undefined;
  #auth: { auth: AwsAuth; region: AwsRegion } | undefined;
  #transport: Transport | undefined;

  /**
   * A client for the model named by `input` (credentials are found by {@link ready}).
   * @param input the `model:` section
   * @param deps environment, cost limit, files and injectable effects
   * @throws {ConfigError} for a bad key or value, a parameter Converse does not take (without
   *   `drop_params`), or a cost limit that cannot be enforced
   */
  constructor(input: ConfigInput<typeof OPENAI_KEYS>, deps: BedrockDeps) {
    const setup = httpSetup(input, deps);
    this.#setup = setup;
    this.#deps = deps;
    this.endpoint = setup.endpoint;
    this.#modelId = bedrockModelId(setup.endpoint.model);
    const params = { ...setup.kwargs.params };
    const own: Record<string, string> = {};
    for (const key of AWS_KWARGS) {
      const value = params[key];
      delete params[key];
      if (value === undefined || value === null) continue;
      if (typeof value !== "string" || value === "") {
        throw new ConfigError(`Cannot configure model: model.model_kwargs.${key} must be a non-empty string`);
      }
      own[key] = value;
    }
    for (const key of ["aws_role_name", "aws_web_identity_token"]) {
      if (own[key] !== undefined) {
        throw new ConfigError(
          `Cannot configure model: model.model_kwargs.${key}: claudius does not assume roles; give the role's ` +
            "credentials (a profile with credential_process, or AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and " +
            "AWS_SESSION_TOKEN)",
        );
      }
    }
    this.#params = { ...own, ...(setup.key ? { api_key: setup.key.value } : {}), model: this.#modelId };
    if (setup.key) setup.addSecrets([setup.key.value]);
    const mapped = converseParams(params, {
      model: this.#modelId,
      dropParams: setup.kwargs.dropParams,
      allowed: setup.kwargs.allowed,
      effort: setup.reasoningEffort,
    });
    if (mapped.dropped.length > 0) {
      setup.log(
        `note: drop_params: not sending ${
          mapped.dropped.join(", ")
        } (Bedrock's Converse API does not take them)`,
      );
    }
    this.#body = {
      additionalModelRequestFields: mapped.additionalModelRequestFields,
      inferenceConfig: mapped.inferenceConfig,
      ...(mapped.toolChoice ? { toolChoice: mapped.toolChoice } : {}),
    };
    if (setup.config.stream) {
      setup.log("note: model.stream: Bedrock replies are read whole (Converse, not ConverseStream)");
    }
  }

  /** Where the credentials come from (after {@link ready}), for `config check`. */
  get keyFrom(): string | undefined {
    return this.#auth
      ? `${this.#auth.auth.from}; region ${this.#auth.region.value} from ${this.#auth.region.from}`
      : undefined;
  }

  /**
   * Find the credentials and the region, then decide whether a cost limit can be enforced.
   * @throws {ConfigError} when no credentials are found (naming what to set) or no price is known
   */
  async ready(): Promise<void> {
    if (this.#transport) return;
    const env = this.#deps.env;
    const io: AwsIO = {
      env,
      readText: this.#deps.aws?.readText ?? readText,
      run: this.#deps.aws?.run ?? runProcess,
      ...(this.#deps.now ? { now: this.#deps.now } : {}),
    };
    const home = this.#deps.aws?.home ?? env.HOME ?? "";
    const found = await awsAuth(this.#params, io, home);
    this.#auth = found;
    const endpoint = this.endpoint;
    if (this.#params.aws_bedrock_runtime_endpoint && !/^model\./.test(endpoint.baseFrom)) {
      endpoint.baseUrl = this.#params.aws_bedrock_runtime_endpoint.replace(/\/+$/, "");
      endpoint.baseFrom = "model.model_kwargs.aws_bedrock_runtime_endpoint";
    } else if (endpoint.baseFrom.startsWith("the ")) {
      endpoint.baseUrl = `https://bedrock-runtime.${found.region.value}.amazonaws.com`;
      endpoint.baseFrom = `the region (${found.region.value}, from ${found.region.from})`;
    }
    const setup = this.#setup;
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json",
    };
    for (const [name, value] of Object.entries(setup.kwargs.headers)) headers[name.toLowerCase()] = value;
    const auth = found.auth;
    if (auth.kind === "bearer") {
      headers.authorization = `Bearer ${auth.token}`;
      setup.addSecrets([auth.token]);
    }
    const region = found.region.value;
    const redacted = new WeakSet<object>();
    const sign = auth.kind === "sigv4"
      ? async (url: string, method: "GET" | "POST", body: string | Uint8Array<ArrayBuffer> | Blob) => {
        const creds = await auth.credentials();
        if (!redacted.has(creds)) {
          redacted.add(creds);
          setup.addSecrets([creds.secretAccessKey, ...(creds.sessionToken ? [creds.sessionToken] : [])]);
        }
        const bytes = body instanceof Blob ? new Uint8Array(await body.arrayBuffer()) : body;
        const datetime = this.#deps.now?.().toISOString().replace(/[:-]|\.\d{3}/g, "");
        return await sigv4Headers(
          {
            url,
            method,
            headers,
            body: bytes,
            region,
            service: "bedrock",
            ...(datetime ? { datetime } : {}),
          },
          creds,
        );
      }
      : undefined;
    this.#transport = new Transport({
      headers,
      timeoutMs: setup.timeoutMs,
      baseUrl: endpoint.baseUrl,
      authHint: `the credentials are ${auth.from}, region ${region}: check them, and renew temporary ones ` +
        "when AWS says they expired",
      stream: undefined,
      redact: setup.redact,
      log: setup.log,
      ...(sign ? { sign } : {}),
    });
    await setup.costs.ready();
  }

  /**
   * Ask Bedrock for its foundation models (`GET https://bedrock.<region>.amazonaws.com/foundation-models`,
   * signed, free; an endpoint override is asked at its own origin).
   */
  async probe(signal?: AbortSignal, timeoutMs?: number): Promise<EndpointCheck> {
    await this.ready();
    const origin = new URL(this.endpoint.baseUrl);
    origin.hostname = origin.hostname.replace(/^bedrock-runtime\./, "bedrock.");
    const url = `${origin.origin}/foundation-models`;
    const bare = this.#modelId.replace(/^(us|eu|apac|global|us-gov|jp|au)\./, "");
    const endpoint = { ...this.endpoint, model: bare };
    const target = {
      transport: this.#transport!,
      endpoint,
      url,
      authHint: `check ${this.#auth!.auth.from}`,
      keyFrom: this.keyFrom,
    };
    return await probeEndpoint(target, signal, timeoutMs, (text) => {
      const data = JSON.parse(text) as { modelSummaries?: { modelId?: string }[] };
      return data.modelSummaries?.flatMap((m) => (typeof m.modelId === "string" ? [m.modelId] : []));
    });
  }

  /**
   * Send one Converse request, retrying transient failures.
   *
   * @throws {ApiError} on a non-retryable status (AWS's 400s and 403s) or when attempts run out
   * @throws {ConfigError} when no credentials are found, or the call's cost is unknown under a cost limit
   */
  async complete(request: ChatRequest, signal?: AbortSignal): Promise<Completion> {
    await this.ready();
    const { system, messages } = converseMessages(request.messages);
    const { toolChoice, ...rest } = this.#body;
    const payload: { [key: string]: unknown } = {
      messages,
      additionalModelRequestFields: rest.additionalModelRequestFields,
      system,
      inferenceConfig: rest.inferenceConfig,
    };
    if (request.tools !== undefined && request.tools.length > 0) {
      payload.toolConfig = { tools: this.#toolsOf(request.tools), ...(toolChoice ? { toolChoice } : {}) };
    }
    const url = `${this.endpoint.baseUrl}/model/${encodeURIComponent(this.#modelId)}/converse`;
    const parse = (text: string | Json) => parseConverseBody(text, this.#modelId);
    const parsed = await this.#transport!.send(
      url,
      JSON.stringify(payload),
      parse,
      this.#setup.policy,
      signal,
    );
    return completionOf(parsed, await this.#setup.costs.cost(parsed.usage));
  }

  #toolsOf(tools: readonly Json[]): Json[] {
    if (this.#tools?.of !== tools) this.#tools = { of: tools, as: tools.map(converseTool) };
    return this.#tools.as;
  }
}
