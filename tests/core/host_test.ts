/**
 * projectEnvAllows(): what a project's `./.env` may set, checked against every provider's variables
 * and every config key a variable can set, not a hand list (the CLI's precedence: dotenv_test.ts).
 */
import { assert, assertEquals } from "../_support/assert.ts";
import { projectEnvAllows } from "../../src/core/host.ts";
import { PROVIDERS } from "../../src/core/models/providers.ts";
import { configSchema } from "../../src/cli/schema.ts";
import { loadedSections } from "../../src/core/config/schema.ts";

Deno.test("projectEnvAllows(): every provider's key variable, none of its base URL variables", () => {
  const refused: string[] = [];
  for (const [name, p] of Object.entries(PROVIDERS)) {
    for (const v of p.keyEnv) assert(projectEnvAllows(v), `${name}: ${v} is a key`);
    for (const v of p.baseEnv) {
      assert(!projectEnvAllows(v), `${name}: ${v} would send the key to the project's server`);
      refused.push(v);
    }
  }
  assert(refused.includes("OPENAI_BASE_URL") && refused.includes("ANTHROPIC_BASE_URL"), refused.join(" "));
  assert(refused.length >= 10, refused.join(" "));
});

Deno.test("projectEnvAllows(): no variable a config key reads, no spending guard, no program", () => {
  const fromKeys: string[] = [];
  for (const [, section] of loadedSections(configSchema())) {
    for (const keys of Object.values(section.classes)) {
      for (const def of Object.values(keys)) if (def.envVar) fromKeys.push(def.envVar);
    }
  }
  assert(
    fromKeys.includes("MSWEA_COST_TRACKING") && fromKeys.includes("MSWEA_MODEL_NAME"),
    fromKeys.join(" "),
  );
  const others = [
    "LITELLM_MODEL_REGISTRY_PATH",
    "MSWEA_GLOBAL_COST_LIMIT",
    "MSWEA_GLOBAL_CALL_LIMIT",
    "MSWEA_GLOBAL_CONFIG_DIR",
    "PATH",
    "LD_PRELOAD",
    "GIT_SSH_COMMAND",
    "DOCKER_HOST",
    "HTTPS_PROXY",
    "SSL_CERT_FILE",
    "NODE_AUTH_TOKEN", // a token, but NODE_ chooses a program's behaviour
    "GIT_TOKEN",
  ];
  assertEquals([...fromKeys, ...others].filter(projectEnvAllows), []);
  for (
    const key of ["PORTKEY_API_KEY", "PORTKEY_VIRTUAL_KEY", "REQUESTY_API_KEY", "GITHUB_TOKEN", "HF_TOKEN"]
  ) {
    assert(projectEnvAllows(key), key);
  }
});
