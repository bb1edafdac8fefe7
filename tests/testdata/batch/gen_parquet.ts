/**
 * Writes the parquet fixtures of tests/batch/instances_test.ts with an independent writer (the Apache
 * Arrow Rust implementation, as WebAssembly), the way a dataset exported to parquet looks: string
 * columns, a 64-bit integer column and a timestamp. Run by hand (needs the npm registry):
 *
 *   deno run -A --no-lock tests/testdata/batch/gen_parquet.ts
 *
 * Not part of the checked sources (deno.json `exclude`): its two npm packages are for this generator only.
 */
import * as arrow from "npm:apache-arrow@21.2.0";
import initWasm, * as pq from "npm:parquet-wasm@0.8.0/esm";

const here = new URL(".", import.meta.url).pathname;
const wasm = new URL(import.meta.resolve("npm:parquet-wasm@0.8.0/esm/parquet_wasm_bg.wasm")).pathname;
await initWasm({ module_or_path: await Deno.readFile(wasm) });

const table = arrow.tableFromArrays({
  instance_id: ["acme__widget-1", "acme__widget-2"],
  repo: ["acme/widget", "acme/widget"],
  problem_statement: ["Widgets crash on naïve input.\nSecond line.", "Add a --verbose flag."],
  FAIL_TO_PASS: ['["tests/test_w.py::test_naive"]', "[]"],
  patch_lines: BigInt64Array.from([12n, 9007199254740993n]),
  created_at: arrow.vectorFromArray(
    [new Date("2024-05-01T12:00:00Z"), new Date("2024-06-02T08:30:00Z")],
    new arrow.TimestampMillisecond(),
  ),
});

for (const [name, codec] of [["swebench.parquet", pq.Compression.SNAPPY], ["swebench_zstd.parquet", pq.Compression.ZSTD]] as const) {
  const properties = new pq.WriterPropertiesBuilder().setCompression(codec).build();
  const bytes = pq.writeParquet(pq.Table.fromIPCStream(arrow.tableToIPC(table, "stream")), properties);
  await Deno.writeFile(`${here}${name}`, bytes);
  console.log(`${name}: ${bytes.length} bytes`);
}
