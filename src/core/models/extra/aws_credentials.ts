/**
 * AWS credentials and region for Bedrock, found where litellm (through boto3) finds them: the
 * `aws_*` keys of `model_kwargs`, a Bedrock API key (`AWS_BEARER_TOKEN_BEDROCK`), the environment
 * (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), then a profile (`AWS_PROFILE`, else
 * `default`) of the shared credentials file (`~/.aws/credentials`) and config file (`~/.aws/config`),
 * static keys or a `credential_process`. The region: `aws_region_name`, a model ARN's, `AWS_REGION_NAME`,
 * `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's `region`, else `us-west-2` (litellm's default).
 *
 * @module
 */
import { ConfigError } from "../../errors.ts";
import { AWS_CREDENTIALS } from "../providers.ts";

/** One set of AWS credentials. */
export interface AwsCredentials {
  /** `AWS_ACCESS_KEY_ID`'s kind of value. */
  accessKeyId: string;
  /** The secret that signs. */
  secretAccessKey: string;
  /** Temporary credentials' token (`x-amz-security-token`). */
  sessionToken?: string;
  /** When temporary credentials expire (a `credential_process` says so). */
  expiration?: Date;
}

/** How Bedrock requests authenticate, and where from (for messages). */
export type AwsAuth =
  | {
    /** Requests are signed with SigV4. */
    kind: "sigv4";
    /** `AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`, `profile 'dev' of ~/.aws/credentials`, ... */
    from: string;
    /** The credentials to sign with now (a `credential_process` is run again before its expiry). */
    credentials(): Promise<AwsCredentials>;
  }
  | {
    /** A Bedrock API key goes as a bearer token. */
    kind: "bearer";
    /** `AWS_BEARER_TOKEN_BEDROCK` or `model.model_kwargs.api_key`. */
    from: string;
    /** The key. */
    token: string;
  };

/** A region and where it came from. */
export interface AwsRegion {
  /** `us-east-1`. */
  value: string;
  /** Where it came from: `AWS_REGION`, `profile 'dev' of ~/.aws/config`, `litellm's default`. */
  from: string;
}

/** The `aws_*` keys of `model_kwargs` litellm reads for Bedrock. */
export interface AwsParams {
  /** Explicit credentials (with the secret and, for temporary ones, the token). */
  aws_access_key_id?: string;
  /** The secret of `aws_access_key_id`. */
  aws_secret_access_key?: string;
  /** The session token of temporary credentials. */
  aws_session_token?: string;
  /** The region. */
  aws_region_name?: string;
  /** A profile, read instead of the environment's keys (as boto3 reads an explicit profile). */
  aws_profile_name?: string;
  /** A Bedrock API key given as `model_kwargs.api_key`. */
  api_key?: string;
  /** The model id: an ARN's region is the region unless `aws_region_name` names one (as litellm reads it). */
  model?: string;
}

/** What finding credentials needs from the outside world. */
export interface AwsIO {
  /** The environment (the variables named above). */
  env: Readonly<Record<string, string | undefined>>;
  /** A file's text, or undefined when it does not exist. */
  readText(path: string): Promise<string | undefined>;
  /** Runs a `credential_process` command line; its stdout. */
  run(commandLine: string): Promise<string>;
  /** The clock (credential expiry). */
  now?: () => Date;
}

/** litellm's region when nothing names one. */
export const DEFAULT_AWS_REGION = "us-west-2";

/** An INI file as sections of keys (`[profile dev]` stays `profile dev`). */
export function parseIni(text: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    if (/^\s/.test(raw) && raw.trim() !== "") continue; // a nested value (s3 = ...) belongs to the key above
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const head = /^\[\s*(.+?)\s*\]$/.exec(line);
    if (head) {
      current = sections.get(head[1]!) ?? new Map();
      sections.set(head[1]!, current);
      continue;
    }
    const eq = line.indexOf("=");
    if (eq > 0 && current) current.set(line.slice(0, eq).trim().toLowerCase(), line.slice(eq + 1).trim());
  }
  return sections;
}

/** One profile's keys from the credentials file and the config file, and the files' names for messages. */
interface Profile {
  name: string;
  creds: Map<string, string> | undefined;
  config: Map<string, string> | undefined;
  credsFile: string;
  configFile: string;
  /** The profiles the two files define. */
  known: string[];
}

async function loadProfile(name: string, io: AwsIO, home: string): Promise<Profile> {
  const credsFile = io.env.AWS_SHARED_CREDENTIALS_FILE || `${home}/.aws/credentials`;
  const configFile = io.env.AWS_CONFIG_FILE || `${home}/.aws/config`;
  const creds = await io.readText(credsFile);
  const config = await io.readText(configFile);
  const configSection = name === "default" ? "default" : `profile ${name}`;
  const credsIni = creds === undefined ? new Map() : parseIni(creds);
  const configIni = config === undefined ? new Map() : parseIni(config);
  const fromConfig = [...configIni.keys()].map((k) => k.replace(/^profile\s+/, "")).filter((k) => k !== "");
  return {
    name,
    creds: credsIni.get(name),
    config: configIni.get(configSection) ??
      (name === "default" ? configIni.get("profile default") : undefined),
    credsFile,
    configFile,
    known: [...new Set([...credsIni.keys(), ...fromConfig])],
  };
}

const shown = (
  path: string,
  home: string,
) => (path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path);

/** The process output of a `credential_process` (`Version: 1`). */
function processCredentials(text: string, what: string): AwsCredentials {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new ConfigError(`Cannot read AWS credentials: ${what} printed no JSON`);
  }
  const o = typeof data === "object" && data !== null ? data as Record<string, unknown> : {};
  if (typeof o.AccessKeyId !== "string" || typeof o.SecretAccessKey !== "string") {
    throw new ConfigError(`Cannot read AWS credentials: ${what} printed no AccessKeyId and SecretAccessKey`);
  }
  const out: AwsCredentials = { accessKeyId: o.AccessKeyId, secretAccessKey: o.SecretAccessKey };
  if (typeof o.SessionToken === "string" && o.SessionToken !== "") out.sessionToken = o.SessionToken;
  if (typeof o.Expiration === "string") out.expiration = new Date(o.Expiration);
  return out;
}

/** Credentials from a command, run again five minutes before they expire. */
function fromProcess(command: string, what: string, io: AwsIO): () => Promise<AwsCredentials> {
  let cached: AwsCredentials | undefined;
  const now = io.now ?? (() => new Date());
  return async () => {
    if (cached && (!cached.expiration || cached.expiration.getTime() - now().getTime() > 5 * 60_000)) {
      return cached;
    }
    let out: string;
    try {
      out = await io.run(command);
    } catch (e) {
      throw new ConfigError(
        `Cannot read AWS credentials: ${what} failed: ${e instanceof Error ? e.message : e}`,
      );
    }
    return cached = processCredentials(out, what);
  };
}

/** The credentials a profile holds, or undefined when it holds none (a refusal for kinds claudius does not read). */
function profileAuth(p: Profile, io: AwsIO, home: string): AwsAuth | undefined {
  const get = (key: string) => p.creds?.get(key) ?? p.config?.get(key);
  const file = p.creds?.has("aws_access_key_id") ? p.credsFile : p.configFile;
  const id = get("aws_access_key_id"), secret = get("aws_secret_access_key");
  if (id && secret) {
    const token = get("aws_session_token") || get("aws_security_token");
    const creds: AwsCredentials = {
      accessKeyId: id,
      secretAccessKey: secret,
      ...(token ? { sessionToken: token } : {}),
    };
    return {
      kind: "sigv4",
      from: `profile '${p.name}' of ${shown(file, home)}`,
      credentials: () => Promise.resolve(creds),
    };
  }
  const process = get("credential_process");
  if (process) {
    const what = `credential_process of profile '${p.name}' (${
      shown(p.config?.has("credential_process") ? p.configFile : p.credsFile, home)
    })`;
    return { kind: "sigv4", from: what, credentials: fromProcess(process, what, io) };
  }
  const kind = get("role_arn")
    ? "assumes a role (role_arn)"
    : get("sso_session") || get("sso_start_url")
    ? "uses AWS SSO"
    : undefined;
  if (kind) {
    throw new ConfigError(
      `Cannot read AWS credentials: profile '${p.name}' ${kind}, which claudius does not resolve; add ` +
        `'credential_process = aws configure export-credentials --profile ${p.name} --format process' to a ` +
        `profile and name it with AWS_PROFILE, or export its credentials (aws configure export-credentials ` +
        `--profile ${p.name} --format env)`,
    );
  }
  return undefined;
}

/**
 * Find Bedrock's credentials and region.
 *
 * @param params the `aws_*` keys of `model_kwargs` (and `api_key`)
 * @param io the environment, files and the runner of `credential_process`
 * @param home the home directory (`~/.aws/...`)
 * @throws {ConfigError} when no credentials are found (naming what to set), or a profile needs what
 *   claudius does not resolve (a role to assume, SSO)
 */
export async function awsAuth(
  params: AwsParams,
  io: AwsIO,
  home: string,
): Promise<{ auth: AwsAuth; region: AwsRegion }> {
  const env = io.env;
  const explicitProfile = params.aws_profile_name ?? (env.AWS_PROFILE_NAME || undefined);
  const profileFrom = params.aws_profile_name !== undefined
    ? "model.model_kwargs.aws_profile_name"
    : ["AWS_PROFILE_NAME", "AWS_PROFILE", "AWS_DEFAULT_PROFILE"].find((n) => env[n]);
  const profileName = explicitProfile ?? (env.AWS_PROFILE || env.AWS_DEFAULT_PROFILE || "default");
  const profile = await loadProfile(profileName, io, home);
  const region = regionOf(params, env, profile, home);
  const auth = await credentialsOf(params, io, home, profile, explicitProfile !== undefined);
  if (auth?.kind === "bearer") return { auth, region };
  if (profileFrom && profileName !== "default" && !profile.creds && !profile.config) {
    // boto3 refuses a named profile that no file defines (ProfileNotFound), whatever else is set.
    const files = `${shown(profile.credsFile, home)} nor ${shown(profile.configFile, home)}`;
    const known = profile.known.length > 0 ? ` (they define ${profile.known.join(", ")})` : "";
    throw new ConfigError(
      `Cannot configure model: ${profileFrom} names the AWS profile '${profileName}', which neither ${files} ` +
        `defines${known}: name one of theirs, or unset ${profileFrom}`,
    );
  }
  if (auth) return { auth, region };
  const named = profileName === "default" ? "" : ` (profile '${profileName}' has none)`;
  throw new ConfigError(`Cannot configure model: no AWS credentials${named}: set ${AWS_CREDENTIALS}`);
}

async function credentialsOf(
  params: AwsParams,
  io: AwsIO,
  home: string,
  profile: Profile,
  explicitProfile: boolean,
): Promise<AwsAuth | undefined> {
  const env = io.env;
  // litellm's order: a Bedrock API key wins over every other credential.
  if (params.api_key) return { kind: "bearer", from: "model.model_kwargs.api_key", token: params.api_key };
  if (env.AWS_BEARER_TOKEN_BEDROCK) {
    return { kind: "bearer", from: "AWS_BEARER_TOKEN_BEDROCK", token: env.AWS_BEARER_TOKEN_BEDROCK };
  }
  if (params.aws_access_key_id && params.aws_secret_access_key) {
    const creds: AwsCredentials = {
      accessKeyId: params.aws_access_key_id,
      secretAccessKey: params.aws_secret_access_key,
      ...(params.aws_session_token ? { sessionToken: params.aws_session_token } : {}),
    };
    return {
      kind: "sigv4",
      from: "model.model_kwargs.aws_access_key_id",
      credentials: () => Promise.resolve(creds),
    };
  }
  // As boto3: the environment's keys first, unless a profile was named explicitly (litellm's aws_profile_name).
  if (!explicitProfile && env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    const token = env.AWS_SESSION_TOKEN || env.AWS_SECURITY_TOKEN;
    const creds: AwsCredentials = {
      accessKeyId: env.AWS_ACCESS_KEY_ID,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
      ...(token ? { sessionToken: token } : {}),
    };
    const from = `AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY${token ? " (with AWS_SESSION_TOKEN)" : ""}`;
    return { kind: "sigv4", from, credentials: () => Promise.resolve(creds) };
  }
  return await Promise.resolve(profileAuth(profile, io, home));
}

/**
 * The region (a plain name: it becomes part of the endpoint's host name, and a value such as
 * `x@evil.example/` would send the signed request and a bearer key to another host).
 * @throws {ConfigError} naming where a region that is no plain name came from
 */
function regionOf(
  params: AwsParams,
  env: Readonly<Record<string, string | undefined>>,
  profile: Profile,
  home: string,
): AwsRegion {
  const region = anyRegionOf(params, env, profile, home);
  if (!/^[a-z0-9-]+$/.test(region.value)) {
    throw new ConfigError(
      `Cannot configure model: the AWS region ${JSON.stringify(region.value)} (from ${region.from}) is no ` +
        "region name (such as us-west-2): give one of lowercase letters, digits and dashes",
    );
  }
  return region;
}

function anyRegionOf(
  params: AwsParams,
  env: Readonly<Record<string, string | undefined>>,
  profile: Profile,
  home: string,
): AwsRegion {
  if (params.aws_region_name) {
    return { value: params.aws_region_name, from: "model.model_kwargs.aws_region_name" };
  }
  const arn = /^arn:[^:]*:bedrock:([^:]+):/.exec(params.model ?? "");
  if (arn) return { value: arn[1]!, from: "the model's ARN" };
  for (const name of ["AWS_REGION_NAME", "AWS_REGION", "AWS_DEFAULT_REGION"]) {
    const value = env[name];
    if (value) return { value, from: name };
  }
  const own = profile.config?.get("region");
  if (own) return { value: own, from: `profile '${profile.name}' of ${shown(profile.configFile, home)}` };
  return { value: DEFAULT_AWS_REGION, from: "litellm's default" };
}

/**
 * Split a `credential_process` command line as a POSIX shell splits words (quotes and backslashes),
 * without running a shell.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = "", inWord = false, quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === "\\" && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}
