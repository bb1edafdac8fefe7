/**
 * The config of one batch instance (rendered over its record), and the rule that keeps the arms of
 * an ablation out of each other's working directories.
 *
 * @module
 */
import type { ResolvedConfig } from "../config.ts";
import { ConfigError } from "../errors.ts";
import { renderTemplate } from "../template.ts";
import { swebenchImageName } from "./instances.ts";
import type { Instance } from "./select.ts";

/**
 * The config of one instance: `environment.image` (container classes), `environment.cwd`,
 * `run.env_startup_command` and `model.script` are rendered as templates over the record (its
 * fields at the top level, as upstream renders the startup command, and as `instance`). Without a
 * configured image, a container class uses `image_name` or SWE-bench's naming; without a
 * configured cwd, the local and bubblewrap environments work in `<out>/<id>/workspace`.
 */
export function instanceConfig(base: ResolvedConfig, instance: Instance, outDir: string): ResolvedConfig {
  const config = structuredClone(base);
  const vars = { ...instance, instance };
  const render = (name: "environment" | "run" | "model", key: string) => {
    const section: Record<string, unknown> = config[name];
    const value = section[key];
    if (typeof value === "string") section[key] = renderTemplate(value, vars, `${name}.${key}`);
  };
  const env = config.environment;
  const cls = String(env.environment_class);
  if (cls === "docker" || cls === "podman") {
    if (typeof env.image === "string" && env.image !== "") render("environment", "image");
    else env.image = swebenchImageName(instance);
  }
  if (typeof env.cwd === "string" && env.cwd !== "") render("environment", "cwd");
  else if (cls === "local" || cls === "bubblewrap") env.cwd = `${outDir}/${instance.instance_id}/workspace`;
  render("run", "env_startup_command");
  render("model", "script");
  return config;
}

/**
 * Two arms working in the same host directory would change each other's files: a configured
 * `environment.cwd` of a local or bubblewrap arm must differ from every other arm's (checked for
 * one instance: the arms' configs, not the instances, make them equal).
 * @throws {ConfigError} naming the directory and the arms
 */
export function checkArmWorkspaces(
  arms: { name: string; config: ResolvedConfig; dir: string }[],
  inst: Instance,
): void {
  const seen = new Map<string, string>();
  for (const o of arms) {
    const cls = String(o.config.environment.environment_class);
    if ((cls !== "local" && cls !== "bubblewrap") || !o.config.environment.cwd) continue;
    const cwd = String(instanceConfig(o.config, inst, o.dir).environment.cwd);
    const other = seen.get(cwd);
    if (other !== undefined) {
      throw new ConfigError(
        `Arms '${other}' and '${o.name}' both work in environment.cwd '${cwd}' and would change each ` +
          `other's files: leave environment.cwd unset (each arm works in <out>/<arm>/<id>/workspace) or ` +
          `give each arm its own`,
      );
    }
    seen.set(cwd, o.name);
  }
}
