/**
 * Upstream's global config: the directory `$MSWEA_GLOBAL_CONFIG_DIR` (else `mini-swe-agent` under the
 * user's config directory), its `.env` (read at start-up by `main.ts`), the default trajectory paths
 * of `mini` and `mini-extra swebench-single`, and the `.env` edits of `mini-extra config`
 * (`setup`, `set`, `unset`, `edit`), written as python-dotenv's `set_key` writes them.
 *
 * @module
 */
import { DOTENV_MAX_BYTES, parseDotEnv, setDotEnvKey, unsetDotEnvKey } from "../lib/python/dotenv.ts";
import { UsageError } from "../lib/flags.ts";
import { ConfigError } from "../core/errors.ts";
import { writeFileAtomic } from "../lib/files.ts";

/** Upstream's global config directory (`platformdirs.user_config_dir("mini-swe-agent")` on Linux). */
export function globalConfigDir(env: Readonly<Record<string, string>>): string {
  if (env.MSWEA_GLOBAL_CONFIG_DIR) return env.MSWEA_GLOBAL_CONFIG_DIR;
  const home = env.XDG_CONFIG_HOME || `${env.HOME ?? ""}/.config`;
  return `${home}/mini-swe-agent`;
}

/** Upstream's global `.env`. */
export function globalConfigFile(env: Readonly<Record<string, string>>): string {
  return `${globalConfigDir(env)}/.env`;
}

/** Read the global `.env` ("" when there is none). */
async function readFile(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return "";
    throw e;
  }
}

/** Owner-only: the file holds API keys (python-dotenv's `set_key` writes it so too). */
const PRIVATE = 0o600;

/**
 * Change the global `.env` by `edit` (its text in, the new text or undefined for no change out): one
 * process at a time (a lock file beside it, so concurrent `config set`s all land), written whole
 * through a temporary file owner-only (0600, also when the file was readable by others before), and
 * never past what claudius reads at start-up ({@link DOTENV_MAX_BYTES}).
 * @returns whether the file changed
 * @throws {ConfigError} naming `key` when the file would be too large to be read
 */
async function editFile(
  path: string,
  key: string,
  edit: (text: string) => string | undefined,
): Promise<boolean> {
  const dir = path.slice(0, path.lastIndexOf("/"));
  await Deno.mkdir(dir, { recursive: true });
  const lock = await Deno.open(`${path}.lock`, { create: true, write: true, mode: PRIVATE });
  try {
    await lock.lock(true);
    const text = edit(await readFile(path));
    if (text === undefined) return false;
    const bytes = new TextEncoder().encode(text).length;
    if (bytes > DOTENV_MAX_BYTES) {
      throw new ConfigError(
        `Cannot set ${key} in ${path}: the file would be ${bytes} bytes, more than the ${DOTENV_MAX_BYTES} ` +
          "claudius reads at start-up (it would skip the whole file, every key in it); keep large values in a file " +
          "and name its path instead",
      );
    }
    await writeFileAtomic(path, text, { mode: PRIVATE });
    await Deno.chmod(path, PRIVATE); // a umask wider than 077 cannot widen it either
    return true;
  } finally {
    lock.close();
  }
}

/**
 * Set `key` in the global `.env` (creating the file and its directory) and in `env`, as upstream's
 * `set_key` followed by its reload does.
 * @throws {ConfigError} when the file would be too large to be read at start-up
 */
export async function setGlobalKey(env: Record<string, string>, key: string, value: string): Promise<void> {
  await editFile(globalConfigFile(env), key, (text) => setDotEnvKey(text, key, value));
  env[key] = value;
}

/**
 * Remove `key` from the global `.env` (upstream warns, and changes nothing, when it is not there).
 * @returns false when the file sets no such key
 */
export function unsetGlobalKey(env: Record<string, string>, key: string): Promise<boolean> {
  return editFile(globalConfigFile(env), key, (text) => unsetDotEnvKey(text, key));
}

/** What a setup dialogue needs: one question answered per call (null when the input ended). */
export type Ask = (question: string) => Promise<string | null>;

/**
 * Upstream's first-run setup: the default model and one API key into the global `.env`, then
 * `MSWEA_CONFIGURED=true`. Blank answers skip a setting.
 * @param say writes one paragraph to the user
 */
export async function setup(
  env: Record<string, string>,
  ask: Ask,
  say: (text: string) => void,
): Promise<void> {
  const file = globalConfigFile(env);
  say(
    `Setting up the global config file ${file} (edit it later with mini-extra config set, unset or edit).\n` +
      "Always give the model with its provider, e.g. anthropic/claude-sonnet-4-5-20250929 (ANTHROPIC_API_KEY) " +
      "or openai/gpt-5-mini (OPENAI_API_KEY). Leave an answer blank to skip it.",
  );
  const model = (await ask(`Default model${env.MSWEA_MODEL_NAME ? ` [${env.MSWEA_MODEL_NAME}]` : ""}:`))
    ?.trim();
  if (model) await setGlobalKey(env, "MSWEA_MODEL_NAME", model);
  const keyName =
    (await ask("Name of your API key's variable (e.g. OPENAI_API_KEY; blank if it is set already):"))
      ?.trim();
  if (keyName) {
    const value = (await ask(`Value of ${keyName}:`))?.trim();
    if (value) await setGlobalKey(env, keyName, value);
    else say("No key saved: set it in your environment, or with mini-extra config set.");
  }
  await setGlobalKey(env, "MSWEA_CONFIGURED", "true");
  say("Config saved. Run mini-extra config setup to go through it again.");
}

/**
 * `mini-extra config edit`: `$EDITOR` (default `nano`) on the global `.env`, then its values reloaded
 * into `env` (the file's values win, as upstream's reload with `override=True`).
 * @returns the editor's exit code
 * @throws {UsageError} when the editor cannot be started
 */
export async function editGlobalConfig(env: Record<string, string>): Promise<number> {
  const path = globalConfigFile(env);
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  // Created owner-only before the editor writes keys into it (an editor keeps a file's mode).
  await Deno.writeTextFile(path, "", { append: true, mode: PRIVATE });
  const editor = env.EDITOR || "nano";
  let status: Deno.CommandStatus;
  try {
    status = await new Deno.Command(editor, { args: [path], env }).spawn().status;
  } catch (e) {
    throw new UsageError(`Cannot start the editor '${editor}' ($EDITOR): ${(e as Error).message}`);
  }
  Object.assign(env, parseDotEnv(await readFile(path), {}));
  return status.code;
}
