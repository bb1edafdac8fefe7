/**
 * OpenAI-compatible gateways that upstream reaches through their own SDKs or clients (`portkey`,
 * `requesty`): here each is a base URL plus the headers it authenticates with, sent by claudius's one
 * HTTP client. The model name goes to the gateway whole (`openai/gpt-5-mini` stays as written).
 *
 * @module
 */
import { ConfigError } from "../../errors.ts";
import type { Endpoint } from "../_presets.ts";

/** What one gateway adds to a request: headers (secret values listed for redaction). */
export interface GatewayHeaders {
  /** Header names and values to send. */
  headers: Record<string, string>;
  /** Header values that must never reach a log or a message. */
  secrets: string[];
}

/** The headers of one gateway, from the environment and the model config. */
export type HeaderRule = (
  env: Readonly<Record<string, string | undefined>>,
  model: Readonly<Record<string, unknown>>,
  baseUrl: string,
) => GatewayHeaders;

/** One gateway: where it is and how requests authenticate. */
export class Gateway {
  /**
   * A gateway at `baseUrl` that authenticates with `apiKeyEnv`'s key and the headers `rule` adds.
   * @param baseUrl the gateway's endpoint when `model.base_url` is not set
   * @param apiKeyEnv the variable whose key is sent as `Authorization: Bearer`, if the gateway uses it
   * @param note one line saying what stands in for upstream's component
   * @param rule the gateway's own headers (throws {@link ConfigError} when a key it needs is missing)
   */
  constructor(
    readonly baseUrl: string,
    readonly apiKeyEnv: string | undefined,
    readonly note: string,
    readonly rule: HeaderRule,
  ) {}

  /** The endpoint: the model name is sent whole (no provider prefix is stripped); cost is not reported. */
  endpoint(modelName: string, baseUrl: string | undefined, apiKeyEnv: string | undefined): Endpoint {
    const key = apiKeyEnv ?? this.apiKeyEnv;
    return {
      baseUrl: (baseUrl ?? this.baseUrl).replace(/\/+$/, ""),
      baseFrom: baseUrl === undefined ? "the gateway's default" : "model.base_url",
      model: modelName,
      provider: undefined,
      keyEnv: key === undefined ? [] : [key],
      protocol: "chat",
      reportsCost: "unknown",
      body: {},
    };
  }

  /**
   * Add the gateway's headers to `headers`.
   * @returns the secret values among them (for redaction)
   * @throws {ConfigError} when a key the gateway needs is missing
   */
  addHeaders(
    headers: Record<string, string>,
    env: Readonly<Record<string, string | undefined>>,
    model: Readonly<Record<string, unknown>>,
    baseUrl: string,
  ): string[] {
    const own = this.rule(env, model, baseUrl);
    Object.assign(headers, own.headers);
    return own.secrets.filter((s) => s.length >= 4);
  }
}

const PORTKEY_URL = "https://api.portkey.ai/v1";

/** The gateways, by upstream's model class name. */
export const GATEWAYS: Readonly<Record<string, Gateway>> = {
  portkey: new Gateway(
    PORTKEY_URL,
    undefined,
    "note: model_class portkey: claudius's OpenAI-compatible client stands in for upstream's Portkey SDK " +
      "(x-portkey-api-key from PORTKEY_API_KEY; PORTKEY_VIRTUAL_KEY or model.provider)",
    (env, model, baseUrl) => {
      const key = env.PORTKEY_API_KEY ?? "";
      if (key === "" && baseUrl === PORTKEY_URL) {
        throw new ConfigError(
          "Cannot configure model: model_class portkey needs PORTKEY_API_KEY (set it in the environment or " +
            "a .env file), or model.base_url pointing at your own gateway",
        );
      }
      const headers: Record<string, string> = {};
      if (key !== "") headers["x-portkey-api-key"] = key;
      const virtualKey = env.PORTKEY_VIRTUAL_KEY ?? "";
      if (virtualKey !== "") headers["x-portkey-virtual-key"] = virtualKey;
      else if (typeof model.provider === "string" && model.provider !== "") {
        headers["x-portkey-provider"] = model.provider;
      }
      return { headers, secrets: [key, virtualKey] };
    },
  ),
  requesty: new Gateway(
    "https://router.requesty.ai/v1",
    "REQUESTY_API_KEY",
    "note: model_class requesty: claudius's OpenAI-compatible client stands in for upstream's Requesty " +
      "client (its URL and headers; Authorization from REQUESTY_API_KEY)",
    // Upstream's attribution headers, as its Requesty client sends them.
    () => ({
      headers: { "http-referer": "https://github.com/SWE-agent/mini-swe-agent", "x-title": "mini-swe-agent" },
      secrets: [],
    }),
  ),
};
