/**
 * The YAML reader of config files, loaded when a config file is read (a built-in config as shipped
 * needs none).
 *
 * @module
 */
import type { YamlModule } from "../core/config/load.ts";

/** The YAML reader of config files ({@link ConfigIO.yaml}), loaded on first use. */
export const YAML = (): Promise<YamlModule> => import("../lib/python/yaml.ts");
