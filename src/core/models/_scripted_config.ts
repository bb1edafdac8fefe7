/**
 * The scripted model classes' config keys (a small file: read at start-up, the script loader only
 * when used).
 *
 * @module
 */
import type { Keys } from "../config/keys.ts";

/** The `model:` keys of `scripted` and `scripted_textbased`. */
export const SCRIPTED_KEYS = {
  model_name: { type: "string", default: "scripted", doc: "Echoed as the responses' `model`." },
  script: { type: "string", doc: "Scripted models: a YAML or JSON file of replies (see `examples/`)." },
  replies: { type: "list", doc: "Scripted models: the replies inline." },
} as const satisfies Keys;
