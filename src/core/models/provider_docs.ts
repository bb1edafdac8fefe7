/**
 * The providers as the help (`claudius help providers`) and the README's provider table say them,
 * rendered from their rows in `providers.ts`.
 *
 * @module
 */
import { OPENAI_BASE_ENV, type Protocol, PROVIDERS } from "./providers.ts";

/** The protocol of a provider, in words. */
const PROTOCOL_NAMES: Readonly<Record<Protocol, string>> = {
  chat: "chat completions",
  anthropic: "Anthropic Messages",
  bedrock: "Bedrock Converse",
  vertex: "Vertex AI (Claude: Messages at :rawPredict; others: chat completions)",
};

/** One provider as the help and the README say it: each part a phrase naming its variables. */
export interface ProviderText {
  /** The protocol, in words. */
  protocol: string;
  /** The default endpoint (a pattern where it depends on a setting), or `-` (none: it must be set). */
  endpoint: string;
  /** The variables read for the endpoint, in order (empty: none). */
  endpointEnv: readonly string[];
  /** What authenticates: the key variables, or the credentials to set. */
  auth: string;
  /** Other settings read from the environment (`api-version from AZURE_API_VERSION (default ...)`). */
  settings: string[];
}

/**
 * A provider as the help (`claudius help providers`) and the README's table say it, derived from its row.
 *
 * @example
 * ```ts
 * import { providerText } from "./provider_docs.ts";
 * providerText("bedrock").protocol; // "Bedrock Converse"
 * ```
 */
export function providerText(prefix: string): ProviderText {
  const p = PROVIDERS[prefix]!;
  const keys = [...p.keyEnv, ...(p.openaiFallback ? ["OPENAI_API_KEY"] : [])];
  const header = p.keyHeader
    ? ` (in the ${p.keyHeader} header${
      p.bearerEnv?.length ? `; ${p.bearerEnv.join(", ")} as a bearer token` : ""
    })`
    : "";
  const auth = p.credentials
    ? p.credentials
    : keys.length
    ? `${keys.join(" or ")}${header}${
      p.openaiFallback ? " (OPENAI_API_KEY only with an OPENAI_* endpoint)" : ""
    }`
    : "none";
  return {
    protocol: PROTOCOL_NAMES[p.protocol],
    endpoint: p.shownUrl ?? (p.baseUrl || "-"),
    endpointEnv: [...p.baseEnv, ...(p.openaiFallback ? OPENAI_BASE_ENV : [])],
    auth,
    settings: (p.settings ?? []).map((s) =>
      `${s.what} from ${s.env.join(", ")}${s.default ? ` (default ${s.default})` : " (required)"}`
    ),
  };
}

/**
 * The README's provider table: one row per prefix with the wire protocol, the default endpoint, the
 * variables read for the endpoint (in order, after `model.base_url` / `--base-url` and
 * `model.model_kwargs.api_base`) and for the key (after `model.api_key_env` and
 * `model.model_kwargs.api_key`).
 *
 * @example
 * ```ts
 * import { providersMarkdown } from "./provider_docs.ts";
 * providersMarkdown().split("\n")[0]; // "| prefix | protocol | default endpoint | endpoint from | key or credentials from | other settings |"
 * ```
 */
export function providersMarkdown(): string {
  const code = (text: string) => text.replace(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b/g, "`$&`");
  const rows = Object.keys(PROVIDERS).map((prefix) => {
    const t = providerText(prefix);
    const p = PROVIDERS[prefix]!;
    const suffix = p.baseEnvPath ? ` (+ \`${p.baseEnvPath}\`)` : "";
    const from = t.endpointEnv.length ? t.endpointEnv.map((n) => `\`${n}\``).join(", ") + suffix : "-";
    return `| \`${prefix}/\` | ${t.protocol} | ${t.endpoint} | ${from} | ${code(t.auth)} | ${
      t.settings.length ? code(t.settings.join("; ")) : "-"
    } |`;
  });
  return [
    "| prefix | protocol | default endpoint | endpoint from | key or credentials from | other settings |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}
