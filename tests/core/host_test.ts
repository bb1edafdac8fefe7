/**
 * projectEnvAllows(): what a project's `./.env` may set, checked against every provider's variables
 * and every config key a variable can set, not a hand list (the CLI's precedence: dotenv_test.ts).
 */
import { assert, assertEquals } from "../_support/assert.ts";
import { projectEnvAllows, projectKeyStandsIn } from "../../src/core/host.ts";
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

Deno.test("projectKeyStandsIn(): a provider's key never in front of another of its key variables you set", () => {
  let pairs = 0;
  for (const [name, p] of Object.entries(PROVIDERS)) {
    const group = [...p.keyEnv, ...(p.openaiFallback ? ["OPENAI_API_KEY"] : [])];
    for (const theirs of group) {
      assertEquals(projectKeyStandsIn(theirs, {}), undefined, `${name}: ${theirs} with nothing of yours`);
      for (const mine of group.filter((v) => v !== theirs)) {
        assertEquals(projectKeyStandsIn(theirs, { [mine]: "k" }), mine, `${name}: ${theirs} over ${mine}`);
        pairs++;
      }
    }
  }
  assert(pairs >= 20, `${pairs} pairs`);
  // AWS credentials may be a profile no variable shows: never the project's.
  for (const v of ["AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN"]) {
    assert(projectKeyStandsIn(v, {}), v);
  }
});
