/**
 * Vertex AI (`vertex_ai/MODEL`), with Google's application default credentials (see `google_auth.ts`):
 * Claude through Anthropic's Messages API at `.../publishers/anthropic/models/<model>:rawPredict` (the
 * Anthropic client's request and reply code, `anthropic_version: vertex-2023-10-16` in the body, the
 * model in the URL, upstream's cache markers as they are), Mistral's and Codestral at
 * `.../publishers/mistralai/models/<model>:rawPredict` (chat completions, the model sent without its
 * `@version`), every other model (Gemini first) through
 * Vertex's OpenAI-compatible `.../endpoints/openapi/chat/completions` (the chat client, the model as
 * `google/<model>` unless it names its publisher). The project is `model_kwargs.vertex_project`,
 * `VERTEXAI_PROJECT`, `VERTEX_PROJECT`, `GOOGLE_CLOUD_PROJECT`, else the credentials file's; the location
 * `model_kwargs.vertex_location`, `VERTEXAI_LOCATION`, `VERTEX_LOCATION`, else `us-central1`. An endpoint
 * override (`model.base_url`, `model_kwargs.api_base`, `VERTEXAI_API_BASE`) is the API's root (a private
 * endpoint, a test server), or, as litellm takes it, a URL that already names the model.
 *
 * @module
 */
import type { ChatClient, ChatRequest, Completion } from "../../types.ts";
import type { ConfigInput } from "../../config/keys.ts";
import { ConfigError } from "../../errors.ts";
import type { ClientRoute, HttpClientDeps } from "../_http.ts";
import type { OPENAI_KEYS } from "../_keys.ts";
import type { Endpoint } from "../_presets.ts";
import type { EndpointCheck } from "./_probe.ts";
import { AnthropicClient } from "./anthropic.ts";
import { OpenAIClient } from "../openai.ts";
import { GoogleAuth, type GoogleIO } from "./google_auth.ts";

/** The `model_kwargs` keys litellm reads for Vertex AI (never sent). */
const VERTEX_KWARGS = [
  "vertex_project",
  "vertex_ai_project",
  "vertex_location",
  "vertex_ai_location",
  "vertex_credentials",
  "vertex_ai_credentials",
] as const;

/** Vertex's `anthropic_version` (litellm's `VertexAIAnthropicConfig`). */
export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";

/** What the Vertex client needs beyond an HTTP client's deps. */
export interface VertexDeps extends HttpClientDeps {
  /** How credentials are found and when tokens expire (default: the real files and clock). */
  google?: Partial<Omit<GoogleIO, "env">> & { home?: string };
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw new ConfigError(`Cannot read ${path}: ${e instanceof Error ? e.message : e}`);
  }
}

/** Whether a Vertex model is Claude (served at `:rawPredict`). */
export function isVertexClaude(model: string): boolean {
  return /^claude/.test(model);
}

/** Whether a Vertex model is Mistral's (chat completions at `publishers/mistralai/models/M:rawPredict`). */
export function isVertexMistral(model: string): boolean {
  return /^(mistral|codestral)/.test(model);
}

/**
 * The Vertex AI client: on {@link ready}, the credentials, project and location are found and the chat
 * or Anthropic client is built on Vertex's route.
 */
export class VertexClient implements ChatClient {
  readonly #input: ConfigInput<typeof OPENAI_KEYS>;
  readonly #deps: VertexDeps;
  #inner: AnthropicClient | OpenAIClient | undefined;
  #auth: GoogleAuth | undefined;
  #where: { project: string; location: string; from: string } | undefined;

  /**
   * A client for the model named by `input` (credentials, project and location are found by {@link ready}).
   * @param input the `model:` section
   * @param deps environment, cost limit and injectable effects
   */
  constructor(input: ConfigInput<typeof OPENAI_KEYS>, deps: VertexDeps) {
    this.#input = input;
    this.#deps = deps;
  }

  /** Where requests go (after {@link ready}). */
  get endpoint(): Endpoint {
    if (!this.#inner) throw new Error("VertexClient.endpoint before ready()");
    return this.#inner.endpoint;
  }

  /** Where the credentials come from, and the project and location (after {@link ready}). */
  get keyFrom(): string | undefined {
    const w = this.#where;
    return this.#auth && w
      ? `${this.#auth.from}; project ${w.project}, location ${w.location} (${w.from})`
      : undefined;
  }

  /**
   * Find the credentials, the project and the location; build the client of the model's route.
   * @throws {ConfigError} when no credentials or no project are found (naming what to set), or as the
   *   clients' constructors do
   */
  async ready(): Promise<void> {
    if (this.#inner) return;
    const env = this.#deps.env;
    const kwargs = (this.#input.model_kwargs ?? {}) as Record<string, unknown>;
    const own: Record<string, string> = {};
    const rest: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(kwargs)) {
      if (!(VERTEX_KWARGS as readonly string[]).includes(key)) {
        rest[key] = value;
        continue;
      }
      if (value === undefined || value === null) continue;
      // litellm takes vertex_credentials as a path, a JSON text or a mapping.
      const text = typeof value === "object" ? JSON.stringify(value) : value;
      if (typeof text !== "string" || text === "") {
        throw new ConfigError(`Cannot configure model: model.model_kwargs.${key} must be a non-empty string`);
      }
      own[key] = text;
    }
    const io: GoogleIO = {
      env,
      readText: this.#deps.google?.readText ?? readText,
      ...(this.#deps.google?.now ? { now: this.#deps.google.now } : {}),
    };
    const auth = await GoogleAuth.load(
      own.vertex_credentials ?? own.vertex_ai_credentials,
      io,
      this.#deps.google?.home ?? env.HOME ?? "",
    );
    this.#auth = auth;
    const project = pick([
      ["model.model_kwargs.vertex_project", own.vertex_project ?? own.vertex_ai_project],
      ["VERTEXAI_PROJECT", env.VERTEXAI_PROJECT],
      ["VERTEX_PROJECT", env.VERTEX_PROJECT],
      ["GOOGLE_CLOUD_PROJECT", env.GOOGLE_CLOUD_PROJECT],
      [auth.from, auth.project],
    ]);
    if (!project) {
      throw new ConfigError(
        `Cannot configure model: no Vertex AI project: set VERTEXAI_PROJECT (or model.model_kwargs.vertex_project); ` +
          `the credentials (${auth.from}) name none`,
      );
    }
    const location = pick([
      ["model.model_kwargs.vertex_location", own.vertex_location ?? own.vertex_ai_location],
      ["VERTEXAI_LOCATION", env.VERTEXAI_LOCATION],
      ["VERTEX_LOCATION", env.VERTEX_LOCATION],
    ]) ?? { value: "us-central1", from: "the default" };
    // Both go into the URL (the location into its host name: `x@evil.example/` would send the token there).
    for (
      const [what, got, plain] of [["location", location, /^[a-z0-9-]+$/], [
        "project",
        project,
        /^[a-z0-9.:-]+$/,
      ]] as const
    ) {
      if (!plain.test(got.value)) {
        throw new ConfigError(
          `Cannot configure model: the Vertex AI ${what} ${
            JSON.stringify(got.value)
          } (from ${got.from}) is no ` +
            `${what} name: give one of lowercase letters, digits and dashes${
              what === "project" ? " (dots, colons)" : ""
            }`,
        );
      }
    }
    this.#where = {
      project: project.value,
      location: location.value,
      from: `project from ${project.from}, location from ${location.from}`,
    };
    const input = { ...this.#input, model_kwargs: rest } as ConfigInput<typeof OPENAI_KEYS>;
    const name = String(input.model_name ?? "");
    const model = name.replace(/^vertex_ai\//, "");
    const sign = async () => ({ authorization: `Bearer ${await auth.token()}` });
    const headers: Record<string, string> = auth.quotaProject
      ? { "x-goog-user-project": auth.quotaProject }
      : {};
    const authHint =
      `the credentials are ${auth.from} (${auth.who}): check that it may use Vertex AI in project ` +
      `${project.value}`;
    const base = (root: string) => `${root}/v1/projects/${project.value}/locations/${location.value}`;
    const defaultRoot = location.value === "global"
      ? "https://aiplatform.googleapis.com"
      : `https://${location.value}-aiplatform.googleapis.com`;
    const keyFrom = this.keyFrom!;
    // Built first with the default root, so that the endpoint the config names (if any) is known.
    const build = (route: ClientRoute) =>
      isVertexClaude(model)
        ? new AnthropicClient(input, this.#deps, route)
        : new OpenAIClient(input, this.#deps, route);
    const probe = build({ url: "http://unused.invalid", headers, sign, authHint, keyFrom });
    const named = probe.endpoint.baseFrom.startsWith("the ") ? undefined : probe.endpoint.baseUrl;
    const root = named ?? defaultRoot;
    let route: ClientRoute;
    if (isVertexClaude(model)) {
      const at = named && /\/publishers\/anthropic\/models\//.test(named)
        ? named
        : `${base(root)}/publishers/anthropic/models/${model}`;
      route = {
        url: `${at}:rawPredict`,
        streamUrl: `${at}:streamRawPredict`,
        headers,
        sign,
        authHint,
        keyFrom,
        body: { anthropic_version: VERTEX_ANTHROPIC_VERSION },
      };
    } else if (isVertexMistral(model)) {
      // litellm's Mistral partner route: the version stays in the URL, the body names the model without it.
      const at = named && /\/publishers\/mistralai\/models\//.test(named)
        ? named
        : `${base(root)}/publishers/mistralai/models/${model}`;
      const method = (input as { stream?: unknown }).stream === true ? "streamRawPredict" : "rawPredict";
      route = { url: `${at}:${method}`, headers, sign, authHint, keyFrom };
    } else {
      const at = named && /\/endpoints\/openapi$/.test(named) ? named : `${base(root)}/endpoints/openapi`;
      route = { url: `${at}/chat/completions`, headers, sign, authHint, keyFrom };
    }
    const sent = isVertexMistral(model)
      ? model.split("@")[0]!
      : model.includes("/")
      ? model
      : `google/${model}`;
    const inner = isVertexClaude(model)
      ? new AnthropicClient(input, this.#deps, route)
      : new OpenAIClient({ ...input, model_name: `vertex_ai/${sent}` }, this.#deps, route);
    inner.endpoint.baseUrl = root;
    if (!named) inner.endpoint.baseFrom = `the location (${location.value})`;
    this.#inner = inner;
    await inner.ready();
  }

  /**
   * Check the credentials without a paid call: get an access token from the token endpoint (Vertex lists
   * no models at these routes).
   */
  async probe(signal?: AbortSignal): Promise<EndpointCheck> {
    await this.ready();
    const auth = this.#auth!;
    const url = auth.tokenUri;
    try {
      await auth.token(signal);
      return {
        url,
        level: "ok",
        text: `POST ${url}: an access token for ${auth.who}`,
        keyFrom: this.keyFrom,
      };
    } catch (e) {
      if (signal?.aborted) throw e;
      return { url, level: "error", text: e instanceof Error ? e.message : String(e), keyFrom: this.keyFrom };
    }
  }

  /** Send one request on the model's Vertex route (see the chat and Anthropic clients). */
  async complete(request: ChatRequest, signal?: AbortSignal): Promise<Completion> {
    await this.ready();
    return await this.#inner!.complete(request, signal);
  }
}

function pick(candidates: [string, string | undefined][]): { value: string; from: string } | undefined {
  for (const [from, value] of candidates) if (value) return { value, from };
  return undefined;
}
