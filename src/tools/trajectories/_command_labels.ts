/**
 * The rules behind {@link classifyCommand}: the program lists and how each simple command of a
 * bash command is labelled (see `action_types.ts` for the taxonomy and its examples).
 *
 * @module
 */
import { type Redirect, type Segment, shellSegments } from "./_shell.ts";

/** The labels, in precedence order (the primary label is the first present). */
export const ACTION_TYPES = ["write", "execute", "probe", "read", "other"] as const;

/** One label. */
export type ActionType = typeof ACTION_TYPES[number];

/** Whether the reference program has been replaced by a build (changes as a trajectory goes on). */
export interface ReferenceState {
  replaced: boolean;
}

/** The build script whose successful run replaces the reference (ProgramBench's convention). */
export const BUILD_SCRIPT = "compile.sh";

/** True for a word that names the reference program. */
export type IsReference = (word: string) => boolean;

const READERS = new Set(
  ("cat head tail less more sed awk gawk mawk grep egrep fgrep rg ag ack find ls ll tree wc file stat du df " +
    "pwd which whereis type man info help diff cmp comm sort uniq cut tr nl od xxd hexdump strings objdump " +
    "readelf nm ldd jq yq column basename dirname realpath readlink md5sum sha1sum sha256sum cksum locate " +
    "zcat bat view printenv uname id whoami date ps free nproc lscpu history tac rev fold fmt expand paste " +
    "join look hd test [ [[").split(" "),
);
const WRITERS = new Set(
  "cp mv mkdir touch rm rmdir ln chmod chown truncate install unzip patch ed shred".split(" "),
);
const BUILDERS = new Set(
  ("gcc g++ cc c++ clang clang++ rustc cargo go make gmake cmake ninja meson javac java kotlinc scalac ghc " +
    "stack cabal dotnet mvn gradle ant tsc node deno bun ruby php lua luajit rscript julia swift swiftc zig nim " +
    "ocaml ocamlfind dune elixir mix erl erlc escript gfortran nasm as ld ar ccache pytest py.test tox nox jest " +
    "mocha vitest ctest bats tclsh guile racket sbcl clisp dart crystal v odin gnatmake fpc").split(" "),
);
const INTERPRETERS = /^(python\d*(\.\d+)?|pypy\d*|perl|bash|sh|zsh|dash|ksh)$/;
const SETUP = new Set(
  ("cd pushd popd export set unset source . alias unalias ulimit umask true false : sleep wait kill pkill " +
    "killall exit echo printf clear reset trap shopt hash read let declare local eval return break continue " +
    "jobs fg bg disown").split(" "),
);
const INSTALLERS = new Set(
  "apt apt-get aptitude dpkg yum dnf apk brew conda mamba pip pip3 pipx gem".split(" "),
);
const KEYWORDS = new Set(
  "if then else elif fi do done while until for case esac in ! function select".split(" "),
);
const DEV_TARGETS = /^(\/dev\/(null|stdout|stderr|tty|fd\/\d+)|-|\d+)$/;
/** Wrappers that run the program named after their own options, with the options that take a value. */
const WRAPPERS: ReadonlyMap<string, Set<string>> = new Map(Object.entries({
  sudo: new Set(["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"]),
  env: new Set(["-u", "-C", "-S"]),
  time: new Set(["-f", "-o"]),
  timeout: new Set(["-s", "-k", "--signal", "--kill-after"]),
  nice: new Set(["-n"]),
  nohup: new Set(),
  command: new Set(),
  exec: new Set(["-a"]),
  builtin: new Set(),
  stdbuf: new Set(["-i", "-o", "-e"]),
  setsid: new Set(),
  unbuffer: new Set(),
  xargs: new Set(["-n", "-I", "-P", "-d", "-L", "-s", "-E", "-a", "-i"]),
  strace: new Set(["-o", "-e", "-p", "-s", "-E", "-u", "-P", "-a"]),
  ltrace: new Set(["-o", "-e", "-p", "-s", "-n", "-u"]),
  valgrind: new Set(),
  gdb: new Set(["-ex", "-x", "-p", "-cd", "-d", "-s", "-e", "-c"]),
  perf: new Set(["-o", "-e", "-p"]),
  "/usr/bin/time": new Set(["-f", "-o"]),
}));
const GIT_READ = new Set(
  ("status log diff show blame grep ls-files ls-tree rev-parse describe shortlog reflog cat-file rev-list " +
    "whatchanged name-rev count-objects help version").split(" "),
);
const GIT_WRITE = new Set(
  "apply am checkout restore reset stash clean rm mv merge rebase cherry-pick revert pull switch".split(" "),
);

const base = (word: string) => word.slice(word.lastIndexOf("/") + 1);

/** The labels of every simple command of `command` (its substitutions included). */
export function classifyText(
  command: string,
  state: ReferenceState,
  isReference: IsReference,
): Set<ActionType> {
  const found = new Set<ActionType>();
  for (const segment of shellSegments(command)) {
    for (const label of classifySegment(segment, state, isReference)) found.add(label);
  }
  return found;
}

/** The labels of one simple command; `state.replaced` is set when it replaces the reference. */
function classifySegment(seg: Segment, state: ReferenceState, isReference: IsReference): ActionType[] {
  const out = redirectLabels(seg.redirects, state, isReference);
  const program = programWords(seg.words);
  if (program === "loop") return out;
  if (program === "wrapper") return out.length ? out : ["other"];
  const [cmd, ...args] = program;
  if (cmd === undefined) return out;
  const found = programLabels(cmd, args, seg, state, isReference);
  // Text from a heredoc or the command line, passed on or written to a file: only the write counts.
  if (found === "text") return out.length ? out : ["other"];
  return [...out, ...found];
}

/** A write for each redirection into a file (not `/dev/null` or a descriptor). */
function redirectLabels(
  redirects: Redirect[],
  state: ReferenceState,
  isReference: IsReference,
): ActionType[] {
  const out: ActionType[] = [];
  for (const r of redirects) {
    if (/>/.test(r.op) && !r.op.endsWith("&") && !DEV_TARGETS.test(r.target)) {
      out.push("write");
      if (isReference(r.target)) state.replaced = true;
    }
  }
  return out;
}

/**
 * The program and its arguments, after the keywords and assignments before it and the wrappers
 * (`timeout 5`, `env -i`, `xargs -n1`, `strace -f`, ...) that run the program after them.
 * @returns the words from the program on; `"loop"` for a `for`/`select`/`case` head (it runs
 *   nothing), `"wrapper"` for a wrapper with no program after it
 */
function programWords(all: string[]): string[] | "loop" | "wrapper" {
  let words = all;
  for (let w = words[0]; w !== undefined && (KEYWORDS.has(w) || /^\w+=/.test(w)); w = words[0]) {
    if (w === "for" || w === "select" || w === "case") return "loop";
    words = words.slice(1);
  }
  for (let wrapper = words[0]; wrapper !== undefined; wrapper = words[0]) {
    const takesValue = WRAPPERS.get(wrapper);
    if (!takesValue) break;
    let k = 1;
    for (let w = words[k]; w !== undefined && (w.startsWith("-") || /^\w+=/.test(w)); w = words[k]) {
      if (w === "--args" || w === "--") {
        k++;
        break;
      }
      k += takesValue.has(w) ? 2 : 1;
    }
    if (wrapper === "timeout" && k < words.length) k++; // the duration
    if (k >= words.length) return "wrapper";
    words = words.slice(k);
  }
  return words;
}

/** The labels of a program run with `args`, or `"text"` for one that only passes text on. */
function programLabels(
  cmd: string,
  args: string[],
  seg: Segment,
  state: ReferenceState,
  isReference: IsReference,
): ActionType[] | "text" {
  const name = base(cmd).toLowerCase();
  const operands = args.filter((a) => !a.startsWith("-"));
  if (isReference(cmd)) return [state.replaced ? "execute" : "probe"];
  if (name === BUILD_SCRIPT || (INTERPRETERS.test(name) && base(operands[0] ?? "") === BUILD_SCRIPT)) {
    state.replaced = true;
    return ["execute"];
  }
  // A program that writes its output to the reference (`gcc -o executable`, `go build -o executable`).
  const o = args.findIndex((a) => a === "-o" || a === "--output");
  if (
    (o >= 0 && isReference(args[o + 1] ?? "")) || args.some((a) => /^-o./.test(a) && isReference(a.slice(2)))
  ) {
    state.replaced = true;
  }
  const found = editLabels(name, args, operands, state, isReference) ??
    runLabels(name, args, operands, state, isReference);
  if (found) return found;
  const heredoc = seg.redirects.some((r) => r.op.includes("<<"));
  const passesText = (name === "echo" || name === "printf") ||
    (heredoc && operands.length === 0 && /^(cat|tee|head|tail|sort|uniq|cut|tr|nl)$/.test(name));
  if (passesText) return "text";
  if (READERS.has(name)) return ["read"];
  if (SETUP.has(name)) return ["other"];
  return [cmd.includes("/") ? "execute" : "other"];
}

/** Programs that read or change files depending on their arguments (git, sed, tar, find, cp, ...). */
function editLabels(
  name: string,
  args: string[],
  operands: string[],
  state: ReferenceState,
  isReference: IsReference,
): ActionType[] | undefined {
  const flag = (re: RegExp) => args.some((a) => re.test(a));
  if (name === "git") return [gitLabel(args)];
  if (name === "sed" || name === "perl") {
    if (flag(/^-[a-zA-Z]*i/) || flag(/^--in-place/)) return ["write"];
    return [name === "sed" ? "read" : "execute"];
  }
  if (name === "awk" || name === "gawk") return [args.includes("inplace") ? "write" : "read"];
  if (name === "tee") return [operands.some((a) => !DEV_TARGETS.test(a)) ? "write" : "other"];
  if (name === "dd") return [args.some((a) => a.startsWith("of=")) ? "write" : "read"];
  if (name === "tar") return [/^-?[a-zA-Z]*[xc]/.test(args[0] ?? "") ? "write" : "read"];
  if (name === "find") return findLabels(args, state, isReference);
  if (!WRITERS.has(name)) return undefined;
  const copies = name === "cp" || name === "mv" || name === "install" || name === "ln";
  if (copies && isReference(operands.at(-1) ?? "")) state.replaced = true;
  return ["write"];
}

/** `find`: reads, writes with `-delete`, and runs what `-exec` names. */
function findLabels(args: string[], state: ReferenceState, isReference: IsReference): ActionType[] {
  const out: ActionType[] = [];
  if (args.includes("-delete")) out.push("write");
  const exec = args.findIndex((a) => a === "-exec" || a === "-execdir");
  if (exec >= 0) {
    const end = args.findIndex((a, k) => k > exec && (a === ";" || a === "+"));
    const sub = args.slice(exec + 1, end < 0 ? undefined : end).filter((a) => a !== "{}");
    out.push(...classifySegment({ words: sub, redirects: [] }, state, isReference));
  }
  return [...out, "read"];
}

/** Installers, interpreters, package managers and build tools. */
function runLabels(
  name: string,
  args: string[],
  operands: string[],
  state: ReferenceState,
  isReference: IsReference,
): ActionType[] | undefined {
  if (INSTALLERS.has(name)) return ["other"];
  if (INTERPRETERS.test(name)) {
    const c = args.indexOf("-c");
    const script = c >= 0 ? args[c + 1] : undefined;
    if (/^(bash|sh|zsh|dash|ksh)$/.test(name) && script !== undefined) {
      return [...classifyText(script, state, isReference)];
    }
    const m = args.indexOf("-m");
    if (m >= 0 && /^(pip|ensurepip|venv|virtualenv)$/.test(args[m + 1] ?? "")) return ["other"];
    return ["execute"];
  }
  if (/^(npm|yarn|pnpm)$/.test(name)) {
    return [
      /^(install|i|ci|add|remove|uninstall|update|init)$/.test(operands[0] ?? "") ? "other" : "execute",
    ];
  }
  if (
    (name === "cargo" || name === "go") && /^(install|get|fetch|mod|env|version)$/.test(operands[0] ?? "")
  ) {
    return ["other"];
  }
  return BUILDERS.has(name) ? ["execute"] : undefined;
}

function gitLabel(args: string[]): ActionType {
  let k = 0;
  for (let a = args[0]; a !== undefined && a.startsWith("-"); a = args[k]) {
    k += /^(-C|-c|--git-dir|--work-tree)$/.test(a) ? 2 : 1;
  }
  const sub = args[k] ?? "";
  if (GIT_READ.has(sub)) return "read";
  if (sub === "stash" && args[k + 1] === "list") return "read";
  if ((sub === "branch" || sub === "tag" || sub === "remote") && args.length === k + 1) return "read";
  if (GIT_WRITE.has(sub)) return "write";
  return "other";
}
