/** promptsOf(): where a config's templates came from, one record per kind and release, else `mixed`. */
import { assertEquals } from "../../_support/assert.ts";
import type { ConfigSource } from "../../../src/core/config/load.ts";
import { promptsOf } from "../../../src/core/config/provenance.ts";
import type { UpstreamRelease } from "../../../src/core/config/upstream_store.ts";
import { VERSION } from "../../../src/core/version.ts";

const builtinDir = "/opt/claudius/config";
const table = {
  releases: {
    "2.4.6": { "mini.yaml": "aa", "benchmarks/swebench.yaml": "bb" },
    "2.3.0": { "mini.yaml": "cc" },
  },
};
const release: UpstreamRelease = {
  version: "2.4.6",
  dir: "/home/u/.config/claudius/upstream/2.4.6",
  origin: "imported",
  source: "/src",
  files: {
    "benchmarks/swebench.yaml": { sha256: "bb" },
    "benchmarks/swebench_modal.yaml": { sha256: "dd", modified: true },
  },
};
const prompt = { agent: { system_template: "s", instance_template: "i" } };

Deno.test("promptsOf() records upstream's files of one release as one record, modified when one was kept so", () => {
  const sources: ConfigSource[] = [
    {
      spec: "swebench",
      path: `${release.dir}/benchmarks/swebench.yaml`,
      sha256: "bb",
      release,
      data: prompt,
    },
    {
      spec: "swebench_modal",
      path: `${release.dir}/benchmarks/swebench_modal.yaml`,
      sha256: "dd",
      release,
      data: { model: { observation_template: "o" }, environment: { image: "x" } },
    },
    { spec: "agent.step_limit=5", data: { agent: { step_limit: 5 } } },
  ];
  assertEquals(promptsOf(sources, { builtinDir, table }), {
    source: "upstream",
    version: "2.4.6",
    sha256: { "benchmarks/swebench.yaml": "bb", "benchmarks/swebench_modal.yaml": "dd" },
    origin: "imported",
    modified: true,
  });
});

Deno.test("promptsOf() tells claudius's built-ins, a release's file by path, a user's file and the command line apart", () => {
  const one = (s: ConfigSource) => promptsOf([s], { builtinDir, table });
  assertEquals(one({ spec: "mini", path: `${builtinDir}/mini.yaml`, sha256: "ee", data: prompt }), {
    source: "claudius",
    version: VERSION,
    sha256: { "mini.yaml": "ee" },
  });
  assertEquals(one({ spec: "/x/m.yaml", path: "/x/m.yaml", sha256: "cc", data: prompt }), {
    source: "upstream",
    version: "2.3.0",
    sha256: { "mini.yaml": "cc" },
    origin: "file",
    path: "/x/m.yaml",
  });
  assertEquals(one({ spec: "my.yaml", path: "/x/my.yaml", sha256: "ff", data: prompt }), {
    source: "file",
    path: "/x/my.yaml",
    sha256: "ff",
  });
  assertEquals(one({ spec: "agent.system_template=Hi", data: { agent: { system_template: "Hi" } } }), {
    source: "command line",
    keys: ["agent.system_template"],
  });
});

Deno.test("promptsOf() says mixed, part by part, when the templates come from sources of different kinds", () => {
  const sources: ConfigSource[] = [
    { spec: "mini", path: `${builtinDir}/mini.yaml`, sha256: "ee", data: prompt },
    { spec: "agent.instance_template=Do {{task}}", data: { agent: { instance_template: "Do {{task}}" } } },
  ];
  assertEquals(promptsOf(sources, { builtinDir, table }), {
    source: "mixed",
    parts: [
      {
        source: "claudius",
        version: VERSION,
        sha256: { "mini.yaml": "ee" },
        keys: ["agent.system_template"],
      },
      { source: "command line", keys: ["agent.instance_template"] },
    ],
  });
});

Deno.test("promptsOf() carries a resumed trajectory's own record for its recorded config", () => {
  const recorded = {
    source: "upstream",
    version: "2.4.6",
    sha256: { "mini.yaml": "aa" },
    origin: "imported",
  };
  const sources: ConfigSource[] = [
    { spec: "/runs/a.traj.json", path: "/runs/a.traj.json", data: prompt },
    { spec: "agent.step_limit=9", data: { agent: { step_limit: 9 } } },
  ];
  const ctx = { builtinDir, table, recorded: { spec: "/runs/a.traj.json", prompts: recorded } };
  assertEquals(promptsOf(sources, ctx), recorded);
  assertEquals(promptsOf(sources, { ...ctx, recorded: { spec: "/runs/a.traj.json", prompts: undefined } }), {
    source: "recorded",
    trajectory: "/runs/a.traj.json",
  });
});
