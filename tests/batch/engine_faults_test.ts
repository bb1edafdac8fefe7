/**
 * runBatch() against engines that fail (a dead socket next to a live engine, an engine without the
 * image), under Docker and Podman (tests/_support/engines.ts): the batch stops giving work to such
 * an engine, says so once, and keeps the engine's own message; the other engines go on.
 */
import { assert, assertEquals, assertMatch } from "../_support/assert.ts";
import { type BatchDeps, type BatchOptions, runBatch } from "../../src/batch/run_batch.ts";
import { readTrajectory } from "../../src/core/trajectory.ts";
import { config, step, submit, writeBatch } from "../_support/batch.ts";
import { type Engine, engineTest, TINY } from "../_support/engines.ts";
import { episodeFeatures } from "../../src/cli/features.ts";

const DEAD = "unix:///nonexistent/claudius-dead.sock";

function deps(lines: string[]): BatchDeps {
  return {
    hostEnv: Deno.env.toObject(),
    features: episodeFeatures,
    cwd: Deno.cwd(),
    write: (t) => lines.push(t),
    live: false,
    log: (l) => lines.push(l),
  };
}

async function batch(
  e: Engine,
  ids: string[],
  more: Partial<BatchOptions>,
  specs: string[] = [],
  images: Record<string, string> = {},
) {
  const fx = await writeBatch(ids.map((id) => ({
    id,
    replies: [step("echo hi"), submit(`p-${id}`)],
    fields: { image_name: images[id] ?? TINY },
  })));
  const cfg = await config([
    ...fx.specs,
    `environment.environment_class=${e.name}`,
    `environment.image=${TINY}`,
    "environment.run_args=[]",
    ...specs,
  ]);
  const options: BatchOptions = {
    instancesPath: fx.instances,
    outDir: fx.out,
    workers: 1,
    config: cfg,
    selection: {},
    redoExisting: false,
    dockerHosts: [],
    verbose: false,
    ...more,
  };
  return { fx, options };
}

engineTest(
  "runBatch() sets a dead engine aside after its first failure; the live engine runs the rest",
  async (e) => {
    const ids = ["a", "b", "c", "d", "e", "f"];
    const { fx, options } = await batch(e, ids, {
      workers: 2,
      dockerHosts: [{ host: e.host2 }, { host: DEAD }],
    });
    const lines: string[] = [];
    const s = await runBatch(options, deps(lines));
    const submitted = s.byStatus.Submitted ?? [];
    assertEquals(submitted.length, 5, lines.join("\n"));
    assertEquals(s.unfinished.length, 1, lines.join("\n"));
    const announced = lines.filter((l) => l.includes("set aside"));
    assertEquals(announced.length, 1, lines.join("\n"));
    assertMatch(announced[0]!, new RegExp(`engine ${DEAD} set aside: .*no more instances go there`));
    assertEquals(s.enginesDown?.length, 1);
    // The one it failed keeps the engine's own words.
    const [left] = s.unfinished;
    const { data } = await readTrajectory(`${fx.out}/${left}/${left}.traj.json`);
    assertMatch(
      String(data.messages[0]?.content),
      e.name === "docker" ? /Cannot connect to the Docker daemon/ : /unable to connect to Podman socket/,
    );
  },
  true,
);

engineTest(
  "runBatch() sets an engine without the image aside after two instances while another engine is left; the last one goes on",
  async (e) => {
    const { options } = await batch(e, ["a", "b", "c", "d", "e", "f"], {
      workers: 2,
      dockerHosts: [{ host: "" }, { host: e.host2 }],
    }, [
      "environment.image=claudius-test-missing:latest",
      "environment.pull_timeout=30",
    ]);
    const lines: string[] = [];
    const t0 = Date.now();
    const s = await runBatch(options, deps(lines));
    const announced = lines.filter((l) => l.includes("set aside"));
    assertEquals(announced.length, 1, lines.join("\n"));
    assertMatch(announced[0]!, /2 instances in a row could not start \(last: /);
    assertEquals(s.enginesDown?.length, 1, lines.join("\n"));
    // The engine left tried every instance the other did not: none is left unstarted.
    assertEquals([...s.unfinished].sort(), ["a", "b", "c", "d", "e", "f"], lines.join("\n"));
    assertEquals(s.notStarted, [], lines.join("\n"));
    assert(Date.now() - t0 < 30_000, `took ${Date.now() - t0} ms`);
  },
  true,
);

engineTest(
  "runBatch() on one engine: two instances in a row whose images are missing fail alone, keeping the engine's message; the rest run",
  async (e) => {
    const missing = "claudius-test-missing:latest";
    const { fx, options } = await batch(e, ["a", "b", "c", "d"], {}, [
      "environment.image={{instance.image_name}}",
      "environment.pull_timeout=30",
    ], { a: missing, b: missing });
    const lines: string[] = [];
    const t0 = Date.now();
    const s = await runBatch(options, deps(lines));
    assertEquals(s.unfinished, ["a", "b"], lines.join("\n"));
    assertEquals(s.notStarted, [], lines.join("\n"));
    assertEquals(s.byStatus.Submitted, ["c", "d"], lines.join("\n"));
    assertEquals(lines.filter((l) => l.includes("set aside")), []);
    assertEquals(s.enginesDown ?? [], []);
    const { data } = await readTrajectory(`${fx.out}/a/a.traj.json`);
    const text = String(data.messages[0]?.content);
    assert(!/Unable to find image .* locally$/.test(text), text);
    assertMatch(text, e.name === "docker" ? /Error response from daemon/ : /short-name/);
    assert(Date.now() - t0 < 30_000, `took ${Date.now() - t0} ms`);
  },
);
