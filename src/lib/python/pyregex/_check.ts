/**
 * What a translation must refuse: constructs whose JavaScript matches or captures would differ from
 * Python's in ways the translation cannot express, and Python's own compile-time error for a
 * variable-width lookbehind.
 *
 * @module
 */
import { type Alt, altWidth, FLAG, type Node, type Parsed, PatternError } from "./_ast.ts";
import { combine, ignoresCaseThroughout } from "./_emit.ts";

/** An ancestor on the way down the tree. */
interface Step {
  /** The path may skip what is below (an alternative, `?`/`*`, a negative lookaround). */
  optional: boolean;
  /** A repetition that may run more than once. */
  repeats: boolean;
  /** A repetition whose body can match empty and that may run it zero or several times. */
  nullable: boolean;
}

interface Seen {
  path: Step[];
  flags: number;
  pos: number;
}

const step = (optional: boolean, repeats = false, nullable = false): Step => ({
  optional,
  repeats,
  nullable,
});

/**
 * Refuse what JavaScript would match differently: a variable-width lookbehind (Python's own error);
 * a repetition whose body prefers to match empty (Python stops repeating, JavaScript backtracks into
 * the body for a longer match); a backreference to a group that may be unset (JavaScript matches it
 * empty); a group whose value a repetition would reset or record differently (when group values are
 * read); and a CPython search shortcut that uses the wrong flags.
 *
 * @param parsed the parse tree
 * @param pattern the pattern text (for error positions)
 * @param observeGroups group values are read (findall), so capture semantics must match too
 * @throws {PatternError} naming the construct and its position
 */
export function checkPattern(parsed: Parsed, pattern: string, observeGroups: boolean): void {
  const refused = (msg: string, pos: number) => new PatternError(msg, pattern, pos, true);
  const { groups, refs } = walkTree(parsed, pattern, refused);
  const regexI = ignoresCaseThroughout(parsed);
  for (const ref of refs) checkRef(ref, groupOf(groups, ref.id), regexI, refused);
  const observed = observeGroups ? [...groups.keys()] : refs.map((r) => r.id);
  for (const id of observed) {
    const { path, pos } = groupOf(groups, id);
    path.forEach((s, i) => {
      if (s.nullable || (s.repeats && path.slice(i + 1).some((t) => t.optional))) {
        throw refused(
          `group ${id} inside a repetition that can skip it or match empty is not supported ` +
            "(JavaScript records its value differently from Python there)",
          pos,
        );
      }
    });
  }
  if (altWidth(parsed.alt, [])[0] > 0 && charsetPrefixBug(parsed.alt, parsed.flags, parsed.flags)) {
    throw refused(
      "a leading (?a:...) or (?u:...) group starting with \\d, \\w or \\s is not supported (CPython's search " +
        "shortcut reads it with the outer flags, so Python's own results are inconsistent)",
      0,
    );
  }
}

type Refuse = (msg: string, pos: number) => PatternError;

/** Where a group was seen; the parser refuses a reference to a group that does not exist. */
function groupOf(groups: ReadonlyMap<number, Seen>, id: number): Seen {
  const group = groups.get(id);
  if (!group) throw new Error(`Cannot check the pattern: group ${id} was not seen in its tree`);
  return group;
}

/**
 * Walk the tree: where each group and each backreference sits (the path of ancestors down to it),
 * refusing a variable-width lookbehind and a repetition that prefers an empty match on the way.
 */
function walkTree(
  parsed: Parsed,
  pattern: string,
  refused: Refuse,
): { groups: Map<number, Seen>; refs: (Seen & { id: number })[] } {
  const widths: ([number, number] | null)[] = [null];
  const groups = new Map<number, Seen>();
  const refs: (Seen & { id: number })[] = [];
  const walkAlt = (alt: Alt, path: Step[], flags: number) => {
    for (const seq of alt) {
      const inner = alt.length > 1 ? [...path, step(true)] : path;
      for (const node of seq) walk(node, inner, flags);
    }
  };
  const walk = (node: Node, path: Step[], flags: number): void => {
    switch (node.k) {
      case "group": {
        const inner = combine(flags, node.add, node.del);
        walkAlt(node.body, path, inner);
        if (node.id !== null) {
          groups.set(node.id, { path, flags: inner, pos: node.pos });
          widths[node.id] = altWidth(node.body, widths);
        }
        return;
      }
      case "atomic":
        return walkAlt(node.body, path, flags);
      case "look":
        walkAlt(node.body, node.neg ? [...path, step(true)] : path, flags);
        if (node.behind) {
          const [lo, hi] = altWidth(node.body, widths);
          if (lo !== hi) throw new PatternError("look-behind requires fixed-width pattern", pattern);
        }
        return;
      case "rep": {
        const empty = altWidth([[node.item]], widths)[0] === 0;
        if (node.max > 1 && empty && prefersEmpty(node.item, widths)) {
          throw refused(
            "a repetition whose body can match empty before trying longer (a lazy quantifier, or an " +
              "alternative that matches empty ahead of another) is not supported (Python stops repeating at an empty match, JavaScript backtracks for a longer one)",
            node.pos,
          );
        }
        const inner = [
          ...path,
          step(node.min === 0, node.max > 1, empty && (node.min === 0 || node.max > 1)),
        ];
        return walk(node.item, inner, flags);
      }
      case "ref":
        refs.push({ id: node.id, path, flags, pos: node.pos });
        return;
    }
  };
  walkAlt(parsed.alt, [], parsed.flags);
  return { groups, refs };
}

/** Refuse a backreference JavaScript would match differently: case-folded, or to a group that may be unset. */
function checkRef(ref: Seen & { id: number }, group: Seen, regexI: boolean, refused: Refuse): void {
  if ((ref.flags & FLAG.IGNORECASE) && ((ref.flags & FLAG.ASCII) || !regexI)) {
    throw refused(
      `the case-insensitive backreference to group ${ref.id} is not supported unless the whole pattern ` +
        "ignores case the Unicode way",
      ref.pos,
    );
  }
  let common = 0;
  while (common < group.path.length && group.path[common] === ref.path[common]) common++;
  if (group.path.slice(common).some((s) => s.optional)) {
    throw refused(
      `the backreference to group ${ref.id}, which may not take part in the match, is not supported ` +
        "(JavaScript would match it as empty where Python fails)",
      ref.pos,
    );
  }
}

/**
 * The node may choose an empty match before a longer one: a lazy quantifier that may stop at zero,
 * or an alternative that can match empty followed by another alternative.
 */
function prefersEmpty(node: Node, widths: readonly ([number, number] | null)[]): boolean {
  const inAlt = (alt: Alt) =>
    alt.some((seq, i) => i < alt.length - 1 && altWidth([seq], widths)[0] === 0) ||
    alt.some((seq) => seq.some((n) => prefersEmpty(n, widths)));
  switch (node.k) {
    case "group":
    case "atomic":
    case "look":
      return inAlt(node.body);
    case "rep":
      return (node.mode === "lazy" && node.min === 0) || prefersEmpty(node.item, widths);
    default:
      return false;
  }
}

/**
 * CPython's search shortcut (`_compile_info`'s charset prefix) tests the pattern's first class with the
 * pattern's own flags even inside a scoped `(?a:...)` / `(?u:...)`, so for a class with a category
 * there its search results differ from its matching rules.
 */
function charsetPrefixBug(alt: Alt, flags: number, outer: number): boolean {
  const hasCategory = (node: Node | undefined) => node?.k === "set" && node.items.some((i) => i.k === "cat");
  if (alt.length > 1) {
    return alt.some((seq) => hasCategory(seq[0]) && (flags & FLAG.ASCII) !== (outer & FLAG.ASCII));
  }
  const first = alt[0]?.[0];
  if (first?.k === "group") return charsetPrefixBug(first.body, combine(flags, first.add, first.del), outer);
  return hasCategory(first) && (flags & FLAG.ASCII) !== (outer & FLAG.ASCII);
}
