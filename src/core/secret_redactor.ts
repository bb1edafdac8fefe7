/**
 * Known credential values (the API key) found and replaced wherever claudius writes or prints what
 * a run produced: command outputs (before the model sees them), the messages as saved (trajectory,
 * ATIF, `-v`), the patch. Not only the value as it is, but the forms a command or a model turns it
 * into without trying hard: reversed (`rev`), base64 of the value or of any text holding it (`base64`,
 * any offset, wrapped lines, the URL-safe alphabet), hex (`xxd -p`, either case, wrapped),
 * percent-encoded (`encodeURIComponent`, or every byte), JSON-escaped; each in any case (`tr a-z A-Z`)
 * and cut over lines anywhere (`fold`, a heredoc the model typed, `\n` in JSON text). One regular
 * expression holds every form of every value, so a text is scanned once (about 2 ns a character).
 *
 * Not covered (a determined command can always hide a value): other encodings and ciphers (rot13,
 * base32, gzip | base64, base85 in git's binary patches), the value cut by other characters than
 * line breaks, or spaced out.
 *
 * @example
 * ```ts
 * import { SecretRedactor } from "./secret_redactor.ts";
 * const redactor = new SecretRedactor(["sk-test-0123456789abcdef"]);
 * redactor.text(`key: ${btoa("KEY=sk-test-0123456789abcdef\n")}`); // "key: S0VZP[REDACTED]Cg=="
 * ```
 *
 * @module
 */
import { configSecrets, OUTPUT_SECRET_MIN_LENGTH, REDACTED, secretValues } from "./redact.ts";
import { PROVIDERS } from "./models/providers.ts";
import type { StreamSink } from "./types.ts";

const encoder = new TextEncoder();

/** Between two characters of a wrapped encoding: a line break (also as `\n` inside JSON text). */
const WRAP = String.raw`(?:\r?\n|(?:\\r)?\\n)?`;

const escapeRe = (s: string) => s.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");

/** `bytes` as a string of one character per byte (U+0000-U+00FF): how a byte stream is searched. */
function latin1(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 8192) s += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return s;
}

function fromLatin1(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** A wrapped encoding of the value: its characters, line breaks allowed between any two. */
function wrapped(encoded: string, char: (c: string) => string): string {
  return [...encoded].map(char).join(WRAP);
}

const b64Char = (c: string) => (c === "+" ? "[+-]" : c === "/" ? "[/_]" : c);
const hexChar = (c: string) => (/[a-f]/.test(c) ? `[${c}${c.toUpperCase()}]` : c);

/**
 * The regex sources of a value's forms. `literal` is the value as the searched text holds it (the
 * string, or its UTF-8 bytes one character each); the encodings are of its UTF-8 bytes.
 */
function forms(value: string, literal: (s: string) => string): string[] {
  const bytes = encoder.encode(value);
  const out = new Set<string>();
  const add = (s: string) => out.add(escapeRe(literal(s)));
  // The value and its reverse, cut over lines anywhere (one character of a UTF-8 sequence at a time
  // in a byte stream: a break falls between characters, never inside one).
  const lines = (s: string) => [...s].map((c) => escapeRe(literal(c))).join(WRAP);
  out.add(lines(value));
  out.add(lines([...value].reverse().join("")));
  const json = JSON.stringify(value).slice(1, -1);
  if (json !== value) add(json);
  const uri = encodeURIComponent(value);
  if (uri !== value) {
    out.add(escapeRe(uri).replace(/%([0-9A-F]{2})/g, (_, h: string) => `%${hexChar(h.toLowerCase())}`));
  }
  out.add([...bytes].map((b) => `%${[...b.toString(16).padStart(2, "0")].map(hexChar).join("")}`).join(""));
  // base64 of any text holding the value: whatever its offset in that text, the encoding of the
  // value's bytes from its first 3-byte boundary to its last is in the output, unchanged.
  for (let skip = 0; skip < 3; skip++) {
    const whole = Math.floor((bytes.length - skip) / 3) * 3;
    if (whole >= 9) out.add(wrapped(btoa(latin1(bytes.subarray(skip, skip + whole))), b64Char));
  }
  out.add(wrapped([...bytes].map((b) => b.toString(16).padStart(2, "0")).join(""), hexChar));
  return [...out];
}

/** Length of the shortest base64 form of a value of `n` bytes (Infinity when it has none). */
function shortestBase64(n: number): number {
  const whole = Math.floor((n - 2) / 3) * 3;
  return whole >= 9 ? (whole / 3) * 4 : Infinity;
}

/** One regex matching every form of every value (longest first), or undefined for no value. */
function buildRegex(values: readonly string[], literal: (s: string) => string): RegExp | undefined {
  const sources = [...new Set(values.flatMap((v) => forms(v, literal)))].sort((a, b) => b.length - a.length);
  // Any case: a key typed or printed upper-cased (`tr a-z A-Z`) is the key still.
  return sources.length ? new RegExp(sources.join("|"), "gi") : undefined;
}

/**
 * `text` up to `safe` with every match of `re` that starts before it replaced whole (a match may end
 * past `safe`): the redacted text, where it ends in `text`, and how many matches were replaced.
 */
function redactUpTo(re: RegExp, text: string, safe: number): { out: string; cut: number; found: number } {
  let out = "";
  let at = 0;
  let found = 0;
  re.lastIndex = 0;
  for (const m of text.matchAll(re)) {
    if (m.index >= safe) break;
    out += text.slice(at, m.index) + REDACTED;
    at = m.index + m[0].length;
    found++;
  }
  const cut = Math.max(at, safe);
  return { out: out + text.slice(at, cut), cut, found };
}

/** Replaces known credential values, in every form listed in the module doc, by `[REDACTED]`. */
export class SecretRedactor {
  readonly #text: RegExp | undefined;
  readonly #bytes: RegExp | undefined;
  /** Shortest text that can hold a form (shorter strings are returned at once). */
  readonly #min: number;
  /** Longest stretch of text one match can take (the overlap a byte stream keeps between chunks). */
  readonly #maxMatch: number;

  /**
   * A redactor of `values` and their common encodings.
   * @param values the credential values (an empty list redacts nothing; empty strings are ignored)
   */
  constructor(values: readonly string[]) {
    const kept = [...new Set(values.filter((v) => v !== ""))];
    this.#text = buildRegex(kept, (s) => s);
    this.#bytes = kept.every((v) => /^[\x20-\x7e]*$/.test(v))
      ? this.#text
      : buildRegex(kept, (s) => latin1(encoder.encode(s)));
    const lengths = kept.map((v) => encoder.encode(v).length);
    this.#min = Math.min(Infinity, ...kept.map((v, i) => Math.min(v.length, shortestBase64(lengths[i]!))));
    // Percent-encoded every byte (3 each), hex with CRLF between characters (6 each): the widest forms.
    this.#maxMatch = lengths.length ? Math.max(...lengths) * 6 + 16 : 0;
  }

  /** True when there is something to redact. */
  get active(): boolean {
    return this.#text !== undefined;
  }

  /** `text` with every form of every value replaced. */
  text(text: string): string {
    const re = this.#text;
    if (re === undefined || text.length < this.#min) return text;
    re.lastIndex = 0;
    return re.test(text) ? text.replace(re, REDACTED) : text;
  }

  /**
   * `value` with every string in it redacted ({@link SecretRedactor.text}): plain objects and arrays
   * are copied where something changed, and returned as they are otherwise (no copy, no allocation).
   */
  value<T>(value: T): T {
    return this.#text === undefined ? value : this.#walk(value) as T;
  }

  #walk(value: unknown): unknown {
    if (typeof value === "string") return this.text(value);
    if (Array.isArray(value)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const v = this.#walk(value[i]);
        if (v !== value[i]) (out ??= value.slice())[i] = v;
      }
      return out ?? value;
    }
    if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
      let out: Record<string, unknown> | undefined;
      for (const [k, v] of Object.entries(value)) {
        const w = this.#walk(v);
        if (w !== v) (out ??= { ...value })[k] = w;
      }
      return out ?? value;
    }
    return value;
  }

  /**
   * A byte stream with every form of every value replaced (a patch: any bytes, not only UTF-8, so it
   * is searched byte by byte). `onFound` is told how many places were redacted, at the end.
   */
  stream(onFound?: (count: number) => void): TransformStream<Uint8Array, Uint8Array> {
    const re = this.#bytes;
    const hold = this.#maxMatch;
    let carry = "";
    let found = 0;
    const pass = (text: string, final: boolean): Uint8Array => {
      if (re === undefined) return fromLatin1(text);
      // Matches that start in the first part are taken whole; the rest waits for the next chunk.
      const done = redactUpTo(re, text, final ? text.length : Math.max(0, text.length - hold));
      found += done.found;
      carry = text.slice(done.cut);
      return fromLatin1(done.out);
    };
    return new TransformStream({
      transform(chunk, controller) {
        const out = pass(carry + latin1(chunk), false);
        if (out.length) controller.enqueue(out);
      },
      flush(controller) {
        const out = pass(carry, true);
        if (out.length) controller.enqueue(out);
        if (found) onFound?.(found);
      },
    });
  }

  /**
   * `target` given the text of a streamed reply with every form of every value replaced, also one
   * that arrives cut over several pieces: the last stretch one match could take is held back until
   * more text comes or the attempt ends (its `end`, or the next `start`).
   */
  sink(target: StreamSink): StreamSink {
    if (this.#text === undefined) return target;
    const re = this.#text;
    const hold = this.#maxMatch;
    let carry = "";
    const flush = (final: boolean) => {
      // Matches that start before the held stretch are taken whole; the rest waits.
      const { out, cut } = redactUpTo(re, carry, final ? carry.length : Math.max(0, carry.length - hold));
      carry = carry.slice(cut);
      if (out !== "") target({ type: "text", text: out });
    };
    return (event) => {
      if (event.type === "text") {
        carry += event.text;
        flush(false);
        return;
      }
      flush(true);
      target(event);
    };
  }

  /**
   * A redacted view of an append-only message list: each message is redacted once, when first seen
   * (a list that got shorter is started again).
   */
  view<T extends object>(): (messages: readonly T[]) => readonly T[] {
    const shown: T[] = [];
    let first: object | undefined;
    return (messages) => {
      if (this.#text === undefined) return messages;
      if (messages.length < shown.length || messages[0] !== first) shown.length = 0;
      first = messages[0];
      for (let i = shown.length; i < messages.length; i++) shown.push(this.value(messages[i]!));
      return shown;
    };
  }
}

/** The shortest API key hunted in command outputs (`EMPTY`, `none`: no secret anyone keeps). */
const KEY_MIN_LENGTH = 8;

/** Every provider's key variables (the key a request carries comes from one of them, or `api_key_env`). */
const KEY_VARIABLES: ReadonlySet<string> = new Set(
  ["OPENAI_API_KEY", ...Object.values(PROVIDERS).flatMap((p) => p.keyEnv)],
);

/** The credentials of one episode: what configs and messages hide, and what outputs and saves hide. */
export interface EpisodeSecrets {
  /** Every credential value (of the process environment and the model's config). */
  secrets: string[];
  /** Those long enough to hunt in command outputs (the API key, whatever its variable's name). */
  outputSecrets: string[];
  /** Removes the output secrets, in every form, from what is saved and shown. */
  redactor: SecretRedactor;
}

/** The credentials of an episode run with `hostEnv` and the `model` section. */
export function episodeSecrets(
  hostEnv: Readonly<Record<string, string>>,
  model: Record<string, unknown>,
): EpisodeSecrets {
  const secrets = [...secretValues(hostEnv), ...configSecrets(model)];
  // What the model typed is sent back as it is, but saved and shown with the API key (in any of its
  // usual encodings) redacted: trajectory, ATIF, -v, the patch.
  // The keys themselves are hunted from 8 characters (a local server's `token-abc123`); other values
  // with a secret's name from 16, so that a short one does not blank out words the model needs.
  const keys = Object.entries(hostEnv).flatMap(([name, value]) =>
    value.length >= KEY_MIN_LENGTH && (KEY_VARIABLES.has(name) || name === model.api_key_env) ? [value] : []
  );
  const outputSecrets = [
    ...new Set([
      ...keys,
      ...secretValues(hostEnv, OUTPUT_SECRET_MIN_LENGTH, [model.api_key_env]),
      ...configSecrets(model, KEY_MIN_LENGTH),
    ]),
  ];
  return { secrets, outputSecrets, redactor: new SecretRedactor(outputSecrets) };
}
