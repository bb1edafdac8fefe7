/**
 * The price table claudius prices calls with when a provider reports no cost: its package and version,
 * as the import map pins them (`deno.json`) or the install recorded them, for records that must say
 * which prices a run used.
 *
 * @module
 */

import { DATA_URL } from "./price_db.ts";

/** The package of the price table. */
const PACKAGE = "@pydantic/genai-prices";

/**
 * The price table's name and version (`@pydantic/genai-prices 0.1.8`), read from where the import map
 * resolves it, else (the installed bundle maps no bare names) from the head of the data file the install
 * wrote beside the modules; without the version when neither says it.
 *
 * @example
 * ```ts
 * import { priceTable } from "./price_table.ts";
 * priceTable(); // "@pydantic/genai-prices 0.1.8"
 * ```
 */
export function priceTable(): string {
  let resolved = "";
  try {
    resolved = import.meta.resolve(PACKAGE);
  } catch {
    // The installed bundle maps no bare names: its data file says the version.
  }
  const version = /genai-prices[@/](\d+\.\d+\.\d+)/.exec(resolved)?.[1];
  return version ? `${PACKAGE} ${version}` : installedTable() ?? PACKAGE;
}

/** The `table` the install wrote at the head of its data file, if there is one. */
function installedTable(): string | undefined {
  let file: Deno.FsFile | undefined;
  try {
    file = Deno.openSync(DATA_URL);
    const head = new Uint8Array(200);
    const n = file.readSync(head) ?? 0;
    return /^\{"table":"([^"]+)"/.exec(new TextDecoder().decode(head.subarray(0, n)))?.[1];
  } catch {
    return undefined;
  } finally {
    file?.close();
  }
}
