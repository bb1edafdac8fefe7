/**
 * The fake server, recording every request body as one JSON line (for gen_conformance.py).
 * Usage: deno run -A tests/testdata/conformance/record_server.ts REPLIES.yaml LOG.jsonl
 */
import { startFakeServer } from "../../_support/fake_server.ts";
import { loadScript } from "../../../src/core/models/extra/_script.ts";

const [script, log] = Deno.args;
const server = await startFakeServer(await loadScript(script!), {
  onRequest: (r) => Deno.writeTextFileSync(log!, JSON.stringify({ body: r.body }) + "\n", { append: true }),
});
console.log(server.url);
