/**
 * The modules of the model and environment classes not every run needs, loaded when a config picks
 * such a class: the scripted and Responses models, the Python-regex translator of text mode, the
 * container and sandbox environments; and the YAML reader of config files (a built-in config as shipped
 * needs none).
 *
 * @module
 */
import type { ComponentModules } from "../core/episode.ts";
import type { YamlModule } from "../core/config/load.ts";

/** Loads each module on first use (see {@link ComponentModules}). */
export const MODULES: ComponentModules = {
  scripted: () => import("../core/models/extra/scripted.ts"),
  responses: () => import("../core/models/extra/responses.ts"),
  bedrock: () => import("../core/models/extra/bedrock.ts"),
  vertex: () => import("../core/models/extra/vertex.ts"),
  pyregex: () => import("../lib/python/pyregex/pyregex.ts"),
  docker: () => import("../core/environments/extra/docker.ts"),
  bubblewrap: () => import("../core/environments/extra/bubblewrap.ts"),
  singularity: () => import("../core/environments/extra/singularity.ts"),
};

/** The YAML reader of config files ({@link ConfigIO.yaml}), loaded on first use. */
export const YAML = (): Promise<YamlModule> => import("../lib/python/yaml.ts");
