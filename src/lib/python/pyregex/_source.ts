/**
 * Python's pattern tokenizer: one code point at a time, a backslash escape as one token, positions
 * in code points (as Python reports them).
 *
 * @module
 */
import { PatternError } from "./_ast.ts";

/** Python's tokenizer: one code point, or a backslash and the code point after it. */
export class Source {
  readonly pattern: string;
  readonly #chars: string[];
  #index = 0;
  next: string | null = null;
  /** The first valid construct claudius refuses; thrown once the whole pattern has parsed. */
  refused: PatternError | undefined;
  #nextLen = 0;

  constructor(pattern: string) {
    this.pattern = pattern;
    this.#chars = [...pattern];
    this.#advance();
  }

  #advance(): void {
    let i = this.#index;
    const chars = this.#chars;
    let c = chars[i];
    if (c === undefined) {
      this.next = null;
      this.#nextLen = 0;
      return;
    }
    if (c === "\\") {
      i++;
      const escaped = chars[i];
      if (escaped === undefined) {
        throw new PatternError("bad escape (end of pattern)", this.pattern, chars.length - 1);
      }
      c += escaped;
    }
    this.#index = i + 1;
    this.next = c;
    this.#nextLen = c.length > 1 && c[0] === "\\" ? 2 : 1;
  }

  match(c: string): boolean {
    if (this.next !== c) return false;
    this.#advance();
    return true;
  }

  get(): string | null {
    const t = this.next;
    this.#advance();
    return t;
  }

  getWhile(n: number, test: RegExp): string {
    let out = "";
    for (let i = 0; i < n && this.next !== null && test.test(this.next); i++) out += this.get();
    return out;
  }

  getUntil(terminator: string, name: string): string {
    let out = "";
    for (;;) {
      const c = this.get();
      if (c === null) {
        if (out === "") throw this.error(`missing ${name}`);
        throw this.error(`missing ${terminator}, unterminated name`, len(out));
      }
      if (c === terminator) {
        if (out === "") throw this.error(`missing ${name}`, 1);
        return out;
      }
      out += c;
    }
  }

  tell(): number {
    return this.#index - this.#nextLen;
  }

  seek(index: number): void {
    this.#index = index;
    this.#advance();
  }

  error(msg: string, offset = 0): PatternError {
    return new PatternError(msg, this.pattern, this.tell() - offset);
  }

  unsupported(msg: string, pos: number): PatternError {
    return new PatternError(msg, this.pattern, pos, true);
  }
}

/** Length in code points. */
export function len(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}
