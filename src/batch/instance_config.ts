/**
 * The config of one batch instance (rendered over its record), and the rule that keeps the arms of
 * an ablation out of each other's working directories.
 *
 * @module
 */
import { runsOnHost } from "../core/environments/classes.ts";
import type { ResolvedConfig } from "../core/config/load.ts";
import { ConfigError } from "../core/errors.ts";
import { renderTemplate } from "../lib/python/template/template.ts";
import { swebenchImageName } from "./instances.ts";
import type { Instance } from "./select.ts";

/**
 * The config of one instance: `environment.image` (container classes), `environment.cwd`,
 * `run.env_startup_command` and `model.script` are rendered as templates over the record (its
 * fields at the top level, as upstream renders the startup command, and as `instance`) and `trial`
 * (1-based; an instance's own `trial` field wins at the top level). Without a configured image, a
 * container class uses `image_name` or SWE-bench's naming; without a configured cwd, the local and
 * bubblewrap environments work in `<out>/<id>/workspace`.
 */
export function instanceConfig(
  base: ResolvedConfig,
  instance: Instance,
  outDir: string,
  trial = 1,
): ResolvedConfig {
  const config = structuredClone(base);
  const vars = { trial, ...instance, instance };
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
  else if (runsOnHost(cls)) {
    env.cwd = `${outDir}/${instance.instance_id}/workspace`;
    config.run.create_cwd = true; // the batch's own directory
  }
  render("run", "env_startup_command");
  render("model", "script");
  return config;
}

/**
 * Refuse an absolute `run.atif_path` in a batch (every instance would write it).
 * @throws {ConfigError} naming the path and the arm
 */
export function checkAtifPaths(arms: { name: string; config: ResolvedConfig }[]): void {
  for (const { name, config } of arms) {
    const atif = config.run.atif_path;
    if (typeof atif === "string" && atif.startsWith("/")) {
      throw new ConfigError(
        `Cannot use run.atif_path '${atif}' in a batch${
          name ? ` (arm ${name})` : ""
        }: every instance would ` +
          "write it; give a relative path (taken from each instance's directory)",
      );
    }
  }
}

/**
 * Two episodes working in the same host directory would change each other's files: a configured
 * `environment.cwd` of a local or bubblewrap run must differ between arms, and between instances
 * when instances run side by side (checked on the first two instances: a cwd that does not name the
 * instance is the same for all). One worker running instances in turn in one directory is allowed
 * (a startup command may prepare it each time), with a warning.
 * @returns the warning, if any
 * @throws {ConfigError} naming the directory and the two that share it
 */
export function checkWorkspaces(
  arms: { name: string; config: ResolvedConfig; dir: string; trial?: number | undefined }[],
  instances: Instance[],
  workers: number,
): string | undefined {
  const seen = new Map<string, { arm: string; id: string }>();
  const local = arms.filter((o) => {
    const cls = String(o.config.environment.environment_class);
    return runsOnHost(cls) && o.config.environment.cwd;
  });
  let warning: string | undefined;
  for (const o of local) {
    for (const inst of instances.slice(0, 2)) {
      const cwd = String(instanceConfig(o.config, inst, o.dir, o.trial ?? 1).environment.cwd);
      const other = seen.get(cwd);
      seen.set(cwd, { arm: o.name, id: inst.instance_id });
      if (other === undefined) continue;
      if (other.arm !== o.name) {
        throw new ConfigError(
          `Arms '${other.arm}' and '${o.name}' both work in environment.cwd '${cwd}' and would change each ` +
            `other's files: leave environment.cwd unset (each arm works in <out>/<arm>/<id>/workspace) or ` +
            `give each arm its own` + (o.trial ? " (each trial: name {{trial}} in it)" : ""),
        );
      }
      const fix = "leave environment.cwd unset (each instance works in <out>/<id>/workspace) or name the " +
        "instance in it (e.g. /work/{{instance_id}})";
      if (workers > 1) {
        throw new ConfigError(
          `Instances '${other.id}' and '${inst.instance_id}' would both work in environment.cwd '${cwd}' at ` +
            `the same time (--workers ${workers}) and change each other's files: ${fix}`,
        );
      }
      warning = `warning: every instance works in environment.cwd '${cwd}' and sees what the one before ` +
        `left there: ${fix}`;
    }
  }
  return warning;
}
