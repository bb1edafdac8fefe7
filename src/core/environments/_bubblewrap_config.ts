/**
 * The bubblewrap environment's config keys (a small file: read at start-up, bubblewrap.ts only
 * when used).
 *
 * @module
 */
import type { ConfigOf, Keys } from "../config/keys.ts";
import { COMMON_ENVIRONMENT_KEYS } from "./_common_keys.ts";

/** The keys of `environment_class: bubblewrap`. */
export const BUBBLEWRAP_KEYS = {
  ...COMMON_ENVIRONMENT_KEYS,
  executable: {
    type: "string",
    default: "bwrap",
    envVar: "MSWEA_BUBBLEWRAP_EXECUTABLE",
    doc: "The bubblewrap binary.",
  },
  wrapper_args: {
    type: "string[]",
    defaultDoc: "upstream's, less `--new-session`",
    doc: "Arguments right after `bwrap`. Default: `--unshare-user-try`, `/usr /bin /sbin /lib /lib64 /etc` " +
      "read-only (those that exist; symlinks stay symlinks), `--tmpfs /tmp --proc /proc --dev /dev`, " +
      "`--setenv PATH /usr/local/bin:/usr/sbin:/usr/bin:/bin`. claudius then adds `--die-with-parent`, " +
      "`--bind <cwd> <cwd> --chdir <cwd>` and one `--setenv` per `env` entry.",
  },
  network: {
    type: "bool",
    default: true,
    doc: "`false` adds `--unshare-net`: the sandbox sees only a loopback interface.",
  },
} as const satisfies Keys;

/** The resolved config of `BubblewrapEnvironment` (`wrapper_args` filled in by the environment). */
export type BubblewrapEnvironmentConfig = ConfigOf<typeof BUBBLEWRAP_KEYS>;
