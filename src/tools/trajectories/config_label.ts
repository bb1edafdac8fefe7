/**
 * A trajectory's config in a few words, so that sets of runs (`claudius report`) are told apart by
 * more than their paths: how the model writes its actions, where the commands ran, the limits, the
 * mechanisms that were on, and the prompts: where they came from (`info.prompts`) and a fingerprint
 * (the same words with other prompts differ in it).
 *
 * @module
 */
import type { Trajectory } from "./types.ts";
import { promptsLabel, UNRECORDED } from "./prompts_source.ts";

/** `claudius.environments.DockerEnvironment` / `minisweagent.environments.docker.DockerEnvironment` -> `docker`. */
function environmentName(type: string | undefined): string[] {
  const name = (type?.split(".").pop() ?? "").replace(/Environment$/, "").toLowerCase();
  return name ? [name] : [];
}

/** Four hex digits of FNV-1a over `text` (a fingerprint to tell prompts apart, not a digest). */
export function fingerprint(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return ((h >>> 16) ^ (h & 0xffff)).toString(16).padStart(4, "0");
}

const positive = (x: unknown) => (typeof x === "number" && x > 0 ? x : undefined);

/**
 * The label of a trajectory's config.
 *
 * @example
 * ```ts ignore
 * configLabel(await loadTrajectory("runs/x.traj.json")); // "toolcall, local, 100 steps, $3, prompts upstream 2.4.6 1c2d"
 * ```
 */
export function configLabel(t: Trajectory): string {
  const agent = t.config.agent;
  const parts = [t.actionFormat, ...environmentName(t.config.environmentType)];
  const steps = positive(agent.step_limit);
  const cost = positive(agent.cost_limit);
  if (steps) parts.push(`${steps} steps`);
  if (cost) parts.push(`$${cost}`);
  const info = t.info.config;
  const on = info && typeof info === "object" && "mechanisms" in info ? info.mechanisms : undefined;
  if (on && typeof on === "object") parts.push(...Object.keys(on));
  const prompts = [agent.system_template, agent.instance_template].map((
    p,
  ) => (typeof p === "string" ? p : ""));
  const source = promptsLabel(t.info);
  const named = source === UNRECORDED ? "" : `${source} `;
  if (prompts.some(Boolean)) parts.push(`prompts ${named}${fingerprint(prompts.join("\0"))}`);
  return parts.join(", ");
}
