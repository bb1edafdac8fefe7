/**
 * A config against another: where a predecessor's `info.config` differs from a resumed run's (recorded
 * as `info.resumed_from.config`), and that config put back from the differences (what `claudius replay`
 * renders a resumed trajectory's kept messages with).
 *
 * @module
 */
import { isPlainObject } from "../../lib/json.ts";

/** `before`'s values where they differ from `after`'s (a section's keys one by one; `null`: not in `before`). */
export function configChanges(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const [b, a] = [before[key], after[key]];
    if (isPlainObject(b) && isPlainObject(a)) {
      const changed: Record<string, unknown> = {};
      for (const k of new Set([...Object.keys(b), ...Object.keys(a)])) {
        if (!same(b[k], a[k])) changed[k] = b[k] ?? null;
      }
      if (Object.keys(changed).length) out[key] = changed;
    } else if (!same(b, a)) out[key] = b ?? null;
  }
  return out;
}

/**
 * `after` with `changes` ({@link configChanges}) put back: the config `changes` were recorded against,
 * as it was before.
 */
export function undoChanges(
  after: Record<string, unknown>,
  changes: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(after);
  for (const [key, value] of Object.entries(changes)) {
    if (isPlainObject(value) && isPlainObject(out[key])) {
      const section = out[key] as Record<string, unknown>;
      for (const [k, v] of Object.entries(value)) {
        if (v === null) delete section[k];
        else section[k] = v;
      }
    } else if (value === null) delete out[key];
    else out[key] = value;
  }
  return out;
}
