/**
 * The price table claudius prices calls with when a provider reports no cost: its package and version,
 * as the import map pins them (`deno.json`), for records that must say which prices a run used.
 *
 * @module
 */

/** The package of the price table. */
const PACKAGE = "@pydantic/genai-prices";

/**
 * The price table's name and version (`@pydantic/genai-prices 0.1.8`), read from where the import map
 * resolves it; without the version when this build resolves it elsewhere.
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
    // A bundle that maps no bare names (the installed copy): the version cannot be read here.
  }
  const version = /genai-prices[@/](\d+\.\d+\.\d+)/.exec(resolved)?.[1];
  return version ? `${PACKAGE} ${version}` : PACKAGE;
}
