/**
 * Python's `textwrap.wrap` as Jinja's `wordwrap` calls it (no tab expansion, whitespace kept,
 * whitespace at line ends dropped).
 * @module
 */
import { fail } from "./_error.ts";
import { codePoints, cpLength, pyStrip } from "./_strings.ts";

const WS = "[\\t\\n\\x0b\\x0c\\r ]";
const NWS = "[^\\t\\n\\x0b\\x0c\\r ]";
const WP = "[\\p{L}\\p{N}_!\"'&.,?]";
const LT = "[\\p{L}\\p{Nl}\\p{No}_]";
const W = "[\\p{L}\\p{N}_]";
let wordsep: RegExp | undefined;
/** Python's `TextWrapper.wordsep_re` (built on first use: a Unicode property class costs ~0.2 ms to build, which start-up would pay). */
const WORDSEP = () =>
  wordsep ??= new RegExp(
    `(${WS}+|(?<=${WP})-{2,}(?=${W})|${NWS}+?(?:-(?:(?<=${LT}{2}-)|(?<=${LT}-${LT}-))(?=${LT}-?${LT})|(?=${WS}|$)|(?<=${WP})(?=-{2,}${W})))`,
    "u",
  );
const WORDSEP_SIMPLE = new RegExp(`(${WS}+)`, "u");

const blank = (s: string) => pyStrip(s) === "";

/** The last chunk (`chunk`) is longer than a line: break it, or give it a line of its own. */
function handleLongWord(
  chunks: string[],
  chunk: string,
  line: string[],
  curLen: number,
  options: { width: number; breakLong: boolean; hyphens: boolean },
): void {
  const { width, breakLong, hyphens } = options;
  const spaceLeft = width < 1 ? 1 : width - curLen;
  if (breakLong) {
    const cps = codePoints(chunk);
    let end = spaceLeft;
    if (hyphens && cps.length > spaceLeft) {
      const hyphen = cps.slice(0, spaceLeft).lastIndexOf("-");
      if (hyphen > 0 && cps.slice(0, hyphen).some((c) => c !== "-")) end = hyphen + 1;
    }
    line.push(cps.slice(0, end).join(""));
    chunks[chunks.length - 1] = cps.slice(end).join("");
  } else if (line.length === 0) {
    line.push(chunk);
    chunks.pop();
  }
}

/** Python `textwrap.wrap(text, width, expand_tabs=False, replace_whitespace=False, ...)`. */
export function wrapText(text: string, width: number, breakLong: boolean, hyphens: boolean): string[] {
  if (width <= 0) fail("ValueError", `invalid width ${width} (must be > 0)`);
  const chunks = text.split(hyphens ? WORDSEP() : WORDSEP_SIMPLE).filter((c) => c !== "").reverse();
  const lines: string[] = [];
  while (chunks.length) {
    const line: string[] = [];
    let curLen = 0;
    const first = chunks.at(-1);
    if (lines.length && first !== undefined && blank(first)) chunks.pop();
    for (let next = chunks.at(-1); next !== undefined; next = chunks.at(-1)) {
      const l = cpLength(next);
      if (curLen + l > width) break;
      line.push(next);
      chunks.pop();
      curLen += l;
    }
    const long = chunks.at(-1);
    if (long !== undefined && cpLength(long) > width) {
      handleLongWord(chunks, long, line, curLen, { width, breakLong, hyphens });
    }
    const last = line.at(-1);
    if (last !== undefined && blank(last)) line.pop();
    if (line.length) lines.push(line.join(""));
  }
  return lines;
}
