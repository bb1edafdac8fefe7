/**
 * Parquet instance files (a dataset exported with `datasets`' `to_parquet`, or a Hugging Face parquet
 * shard), read with `hyparquet` (pure JavaScript, no dependencies; loaded only when a `.parquet` file is
 * read). Uncompressed and snappy files (pyarrow's default) are read; other codecs are refused with
 * the export step that avoids them.
 *
 * @module
 */
import { errorMessage } from "../lib/errors.ts";
import { ConfigError } from "../core/errors.ts";

/** A parquet value as JSON: 64-bit integers become numbers (strings when too large), dates ISO text. */
function toJson(value: unknown): unknown {
  if (typeof value === "bigint") {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  }
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return new TextDecoder().decode(value);
  if (Array.isArray(value)) return value.map(toJson);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJson(v)]));
  }
  return value;
}

/**
 * Read every row of a parquet file as a plain record.
 * @param path the file
 * @throws {ConfigError} naming the file when it is not parquet or uses a codec other than snappy
 */
export async function readParquetRecords(path: string): Promise<Record<string, unknown>[]> {
  const bytes = await Deno.readFile(path);
  const { parquetReadObjects } = await import("hyparquet");
  let rows: Record<string, unknown>[];
  try {
    rows = await parquetReadObjects({ file: bytes.buffer });
  } catch (e) {
    const message = errorMessage(e);
    const hint = /compression|codec/i.test(message)
      ? "; claudius reads uncompressed and snappy parquet: export with to_parquet(..., compression='snappy') " +
        "or to_json(..., lines=True)"
      : "";
    throw new ConfigError(`Cannot read instances ${path}: ${message}${hint}`);
  }
  return rows.map((row) => toJson(row) as Record<string, unknown>);
}
