/**
 * claudius's own directories in the user's home: its config directory (`$XDG_CONFIG_HOME/claudius`,
 * else `~/.config/claudius`: the `.env`, the prompt history, upstream's imported config files) and its
 * cache directory (`$XDG_CACHE_HOME/claudius`, else `~/.cache/claudius`).
 *
 * @module
 */

/** The process environment, as these lookups read it. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * claudius's config directory, or undefined when neither `XDG_CONFIG_HOME` nor `HOME` is set.
 *
 * @example
 * ```ts
 * import { claudiusConfigDir } from "./user_dirs.ts";
 * claudiusConfigDir({ HOME: "/home/ada" }); // "/home/ada/.config/claudius"
 * ```
 */
export function claudiusConfigDir(env: Env): string | undefined {
  const home = env.XDG_CONFIG_HOME || (env.HOME ? `${env.HOME}/.config` : "");
  return home ? `${home}/claudius` : undefined;
}

/**
 * claudius's cache directory (what can be recomputed), or undefined without `XDG_CACHE_HOME` and `HOME`.
 *
 * @example
 * ```ts
 * import { claudiusCacheDir } from "./user_dirs.ts";
 * claudiusCacheDir({ HOME: "/home/ada" }); // "/home/ada/.cache/claudius"
 * ```
 */
export function claudiusCacheDir(env: Env): string | undefined {
  const home = env.XDG_CACHE_HOME || (env.HOME ? `${env.HOME}/.cache` : "");
  return home ? `${home}/claudius` : undefined;
}
