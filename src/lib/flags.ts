/**
 * Command lines from one table per command: each flag defined once (name, short form, type, value
 * name, documentation, the config key it sets), and from that table the parser, the help text, the
 * shell completions and the README's flag lists. `node:util` `parseArgs` is not used: importing it
 * costs ~5 ms of start-up, more than this whole file.
 *
 * @module
 */
import { nearestKey } from "./spelling.ts";

/** A bad command line: printed with a hint, exit code 2. */
export class UsageError extends TypeError {
  /** The subcommand whose command line it is (its `--help` is the one to read), when there is one. */
  command?: string;
  /** @param message one line naming the flag and the problem */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * Run a subcommand: a usage error it throws names it (its own `--help` is the one to read).
 * @param name the subcommand's word (`batch`, `swebench`)
 */
export async function asSubcommand<T>(name: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof UsageError) e.command ??= name;
    throw e;
  }
}

/** What a flag's value is. */
export type FlagType = "string" | "boolean" | "number" | "int";

/** One flag, defined once. */
export interface FlagDef {
  type: FlagType;
  /** The one-letter form, `-x`. */
  short?: string;
  /** Repeatable (strings): the values are collected in order. */
  multiple?: boolean;
  /** The value's name in help (`FILE`, `N`). */
  value?: string;
  /** What it does, a sentence or two (help wraps it). */
  doc: string;
  /** The config key it sets, dotted (`agent.step_limit`). */
  key?: string;
  /** A boolean flag: the value it gives `key` (`-y`: `agent.mode` = `yolo`). */
  sets?: string | number | boolean;
  /** The allowed values (checked, listed in help, completed). */
  choices?: readonly string[];
  /** Numbers: the least value (default 0). */
  min?: number;
  /** Numbers: the greatest value. */
  max?: number;
  /** Other long names of the same flag (`--environment-class` for `--env`). */
  aliases?: readonly string[];
  /** Completion of the value: file or directory names, or a config (a file or a built-in's name). */
  complete?: "file" | "dir" | "config";
}

/** A flag definition with its literal types kept (what {@link parseCommandLine} types its values by). */
export const flag = <const D extends FlagDef>(def: D): D => def;

/** A command's flags, by long name (without `--`). */
export type FlagTable = Readonly<Record<string, FlagDef>>;

/** The parsed value of a flag definition. */
export type FlagValue<D extends FlagDef> = D["type"] extends "boolean" ? boolean
  : D["multiple"] extends true ? string[]
  : D["type"] extends "number" | "int" ? number
  : string;

/** Parsed flags, by long name: absent when not given (repeatable flags: an empty list). */
export type FlagValues<T extends FlagTable> = { [K in keyof T]?: FlagValue<T[K]> };

/** A command: its name, what it is for, how it is called, examples, and its flag table. */
export interface CommandSpec<T extends FlagTable = FlagTable> {
  /** As typed: `claudius batch`. */
  name: string;
  /** One line: what it does (the command list, the help's first line). */
  summary: string;
  /** Synopsis lines after the name (`INSTANCES [options]`). */
  usage: readonly string[];
  /** Examples shown first: the command line and what it does. */
  examples: readonly (readonly [string, string])[];
  /** A paragraph or two after the examples. */
  description?: string;
  flags: T;
  /** How many positional arguments it takes, and what a missing one is called. */
  positionals?: { min: number; max: number; name: string };
  /** More sections of the help after the options (`Exit codes`, `Environment`), title and text. */
  sections?: readonly (readonly [string, string])[];
}

/** One flag's long names: its own and its aliases. */
function longNames(name: string, def: FlagDef): string[] {
  return [name, ...(def.aliases ?? [])];
}

/** The flag a long or short name stands for. */
function lookup(table: FlagTable, arg: string, isShort: boolean): [string, FlagDef] | undefined {
  for (const [name, def] of Object.entries(table)) {
    if (isShort ? def.short === arg : longNames(name, def).includes(arg)) return [name, def];
  }
  return undefined;
}

/** `--name` or `-x` that names no flag: the error, with the nearest flag when one is close. */
function unknownFlag(table: FlagTable, shown: string): UsageError {
  const known = Object.entries(table).flatMap(([n, d]) => longNames(n, d).map((l) => `--${l}`));
  const hint = shown.startsWith("--") ? nearestKey(shown, known) : undefined;
  return new UsageError(`unknown option '${shown}'${hint ? ` (did you mean '${hint}'?)` : ""}`);
}

/** A value given to a flag, converted and checked against its definition. */
function convert(shown: string, def: FlagDef, text: string): string | number {
  if (def.choices && !def.choices.includes(text)) {
    throw new UsageError(`${shown} must be one of ${def.choices.join(", ")}, got '${text}'`);
  }
  if (def.type !== "number" && def.type !== "int") return text;
  const n = decimalNumber(text);
  const min = def.min ?? 0;
  const whole = def.type === "int";
  if (
    n === undefined || n < min || (def.max !== undefined && n > def.max) || (whole && !Number.isInteger(n))
  ) {
    const range = def.max !== undefined ? `from ${min} to ${def.max}` : `>= ${min}`;
    throw new UsageError(`${shown} must be a ${whole ? "whole " : ""}number ${range}, got '${text}'`);
  }
  return n;
}

/**
 * Parse argv against a command's flags; everything after `--` is positional.
 *
 * @example
 * ```ts
 * import { parseCommandLine } from "./flags.ts";
 * const flags = {
 *   config: { type: "string", short: "c", multiple: true, doc: "a config" },
 *   workers: { type: "int", short: "w", min: 1, doc: "how many" },
 * } as const;
 * parseCommandLine(flags, ["-c", "a", "--config=b", "-w", "4", "x"]);
 * // { values: { config: ["a", "b"], workers: 4 }, positionals: ["x"] }
 * ```
 * @throws {UsageError} for an unknown flag (naming the nearest one), a missing value, a value given
 *   to a boolean flag, a value not allowed, or a non-repeatable flag given twice
 */
export function parseCommandLine<T extends FlagTable>(
  table: T,
  argv: readonly string[],
): { values: FlagValues<T>; positionals: string[] } {
  const values: Record<string, string | number | boolean | string[]> = {};
  /** How each flag was spelled when first given (`--env`, or its alias). */
  const spelled: Record<string, string> = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    const long = /^--([^=]+)(?:=([\s\S]*))?$/.exec(arg);
    const short = long ? null : /^-([^-])(?:=([\s\S]*)|([\s\S]+))?$/.exec(arg);
    const given = long?.[1] ?? short?.[1];
    if (given === undefined) {
      positionals.push(arg);
      continue;
    }
    const shown = long ? `--${given}` : `-${given}`;
    const found = lookup(table, given, !long);
    if (!found) throw unknownFlag(table, shown);
    const [name, def] = found;
    const inline = long ? long[2] : short?.[2] ?? short?.[3];
    if (def.type === "boolean") {
      if (inline !== undefined) throw new UsageError(`option '${shown}' takes no value`);
      values[name] = true;
      continue;
    }
    let text = inline;
    if (text === undefined) {
      if (i + 1 >= argv.length) {
        throw new UsageError(`option '${shown} ${def.value ?? "<value>"}' needs a value`);
      }
      text = argv[++i] ?? "";
    }
    const value = convert(`--${name}`, def, text);
    const previous = values[name];
    if (def.multiple) values[name] = [...(Array.isArray(previous) ? previous : []), String(value)];
    else if (previous === undefined) [values[name], spelled[name]] = [value, shown];
    else if (spelled[name] === shown) throw new UsageError(`option '${shown}' given more than once`);
    else if (previous !== value) {
      throw new UsageError(`${spelled[name]} and ${shown} name different values ('${previous}', '${value}')`);
    }
  }
  for (const [name, def] of Object.entries(table)) if (def.multiple) values[name] ??= [];
  return { values: values as FlagValues<T>, positionals };
}

/**
 * The config layer the given flags make: each flag with a `key` sets it (its value, or its `sets`
 * value for a boolean).
 *
 * @example
 * ```ts
 * import { flagsConfig } from "./flags.ts";
 * flagsConfig({ yolo: { type: "boolean", key: "agent.mode", sets: "yolo", doc: "" } }, { yolo: true });
 * // { agent: { mode: "yolo" } }
 * ```
 */
export function flagsConfig(
  table: FlagTable,
  values: Readonly<Record<string, unknown>>,
): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, def] of Object.entries(table)) {
    const value = values[name];
    if (!def.key || value === undefined || value === false) continue;
    const [section = "", ...rest] = def.key.split(".");
    let at = (out[section] ??= {});
    for (const part of rest.slice(0, -1)) {
      const next = at[part];
      at = at[part] = typeof next === "object" && next !== null ? next as Record<string, unknown> : {};
    }
    at[rest.at(-1) ?? ""] = def.type === "boolean" ? def.sets ?? true : value;
  }
  return out;
}

/** Check the count of positional arguments. */
export function checkPositionals(spec: CommandSpec, positionals: readonly string[]): void {
  const p = spec.positionals ?? { min: 0, max: 0, name: "" };
  if (positionals.length > p.max) {
    throw new UsageError(`unexpected argument '${positionals[p.max]}' (see ${spec.name} --help)`);
  }
  if (positionals.length < p.min) {
    throw new UsageError(`${spec.name.replace(/^claudius /, "")} needs ${p.name}`);
  }
}

/** A plain decimal number as a person writes it (`3`, `0.5`, `1e-3`; not `0x10`, `Infinity` or `''`). */
export function decimalNumber(text: string): number | undefined {
  if (!/^\s*\+?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}
