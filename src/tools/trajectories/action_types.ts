/**
 * Action types: **claudius's own taxonomy** of what a bash command does, in the spirit of the
 * ProgramBench paper's read / write / probe / execute analysis (the paper's exact rules are not
 * published; these are ours, and results from them are ours, not the paper's).
 *
 * A command is split into simple commands (unquoted `;`, `&&`, `||`, `|`, `&`, newlines,
 * subshells, and the inside of `$(...)`, backticks and `<(...)`); heredoc bodies are data, not
 * commands. Each simple command gets labels:
 * - **write**: creates or changes files: a redirection into a file (`> f`, `>> f`, `&> f`; not
 *   `/dev/null` or a descriptor), `tee FILE`, `sed -i`, `perl -i`, `awk -i inplace`, `patch`,
 *   `git apply/checkout/restore/reset/stash/clean/rm/mv/merge/rebase/cherry-pick/revert/pull/switch/am`,
 *   `cp mv mkdir touch rm rmdir ln chmod chown truncate install dd unzip`, `tar x`, `find -delete`.
 * - **execute**: builds or runs the agent's own code: `./compile.sh` (or `bash compile.sh`),
 *   compilers and build tools (`gcc`, `cargo`, `go`, `make`, `javac`, ...), interpreters given
 *   code (`python3 file.py`, `python3 -c`, `node x.js`, `bash script.sh`), test runners
 *   (`pytest`, `jest`, `ctest`, ...), any program named by a path (`./a.out`, `build/prog`), and
 *   the reference binary once a build has replaced it.
 * - **probe**: runs the reference program (`./executable`, a path ending in `/executable`, or a
 *   name given in {@link ClassifyOptions.reference}) while it is still the reference, also under
 *   `timeout`, `strace`, `valgrind`, `gdb`, `xargs`, `env`, ...
 * - **read**: inspects without changing: `cat head tail less sed -n awk grep rg find ls tree wc
 *   file stat diff cmp sort uniq cut nl od xxd strings objdump readelf nm ldd jq man which ...`,
 *   `git status/log/diff/show/blame/grep/ls-files/...` (a reader with no file operand, such as
 *   `cat > f <<EOF`, reads nothing).
 * - **other**: the submission, package installs (`pip install`, `apt-get`, `npm install`, ...),
 *   git commits and other git bookkeeping, environment setup (`cd`, `export`, `source`, ...),
 *   `echo`/`printf`/`sleep`, and programs not listed here.
 *
 * The primary label of a command or a turn is the first of its labels in the order
 * write > execute > probe > read > other. The reference-binary rule: in ProgramBench a build
 * overwrites `./executable`, so after a command that runs `compile.sh` or writes to the reference
 * (`cp out ./executable`, `gcc -o executable`, `> executable`) and succeeds (exit code 0, or not
 * recorded), running it is execute, not probe.
 *
 * {@link ACTION_TYPE_EXAMPLES} is the table of examples; the test suite checks every row.
 *
 * @module
 */
import {
  ACTION_TYPES,
  type ActionType,
  BUILD_SCRIPT,
  classifyText,
  type ReferenceState,
} from "./_command_labels.ts";
import type { Trajectory } from "./types.ts";

export { ACTION_TYPES, type ActionType, BUILD_SCRIPT, type ReferenceState };

/** The labels of a command or a turn, in precedence order, and the first of them. */
export interface ActionLabels {
  /** Every label that applies, in {@link ACTION_TYPES} order (empty for a turn with no actions). */
  types: ActionType[];
  /** The first of `types`; undefined when there are none. */
  primary: ActionType | undefined;
}

/** The labels of one step (model turn): per tool call, and for the turn as a whole. */
export interface StepLabels extends ActionLabels {
  /** One entry per action of the step, in order. */
  actions: ActionLabels[];
}

/** Options of the classifier. */
export interface ClassifyOptions {
  /**
   * Names of the reference program: a command word equal to one of them, or a path ending in
   * `/<name>`, runs the reference. Default `["executable"]` (ProgramBench's `./executable`).
   */
  reference?: readonly string[];
}

/**
 * The examples that define the rules: `[command, primary, all labels]`, checked by the test suite.
 * Commands marked `(after a build)` are classified with the reference already replaced.
 */
export const ACTION_TYPE_EXAMPLES: readonly [string, ActionType, ActionType[], "after a build"?][] = [
  ["cat src/main.c", "read", ["read"]],
  ["sed -n '1,40p' src/main.c", "read", ["read"]],
  ["nl -ba main.py | sed -n '10,30p'", "read", ["read"]],
  ["grep -rn 'TODO' . | head", "read", ["read"]],
  ["ls -la && git status && git log --oneline -5", "read", ["read"]],
  ["find . -name '*.py' -exec grep -l main {} +", "read", ["read"]],
  ["cat > main.py <<'EOF'\nimport os\nos.remove('x')\nprint(open('f').read())\nEOF", "write", ["write"]],
  ["sed -i 's/a/b/' main.c", "write", ["write"]],
  ["echo 'int x;' >> lib.h", "write", ["write"]],
  ["cat a.txt > b.txt", "write", ["write", "read"]],
  ["mkdir -p src && touch src/__init__.py", "write", ["write"]],
  ["git apply fix.patch && git diff", "write", ["write", "read"]],
  ["cd /app && git checkout -- .", "write", ["write", "other"]],
  ["find . -name '*.o' -delete", "write", ["write", "read"]],
  ["python3 tests/run.py 2>&1 | tail -20", "execute", ["execute", "read"]],
  ["./compile.sh", "execute", ["execute"]],
  ["bash compile.sh && ls -la", "execute", ["execute", "read"]],
  ["gcc -O2 -o mine main.c && ./mine < input.txt", "execute", ["execute"]],
  ["cargo build --release 2>&1 | tail -3", "execute", ["execute", "read"]],
  ["make -j4 && ctest", "execute", ["execute"]],
  ["python3 -c 'print(1)'", "execute", ["execute"]],
  ["python3 -m pytest -q tests/", "execute", ["execute"]],
  ["bash -c 'cat notes.txt'", "read", ["read"]],
  ["./executable --help", "probe", ["probe"]],
  ["echo '1 2' | ./executable", "probe", ["probe", "other"]],
  ["/workspace/executable -v input.txt > expected.txt", "write", ["write", "probe"]],
  ["timeout 5 ./executable < tests/in1", "probe", ["probe"]],
  ["diff <(./executable a.txt) <(./mine a.txt)", "execute", ["execute", "probe", "read"]],
  ["strings ./executable | grep -i usage", "read", ["read"]],
  ["./executable --help", "execute", ["execute"], "after a build"],
  ["./compile.sh && ./executable --help", "execute", ["execute"]],
  ["cp target/release/tool ./executable && ./executable -h", "write", ["write", "execute"]],
  ["pip install -r requirements.txt", "other", ["other"]],
  ["apt-get update && apt-get install -y jq", "other", ["other"]],
  ["git add -A && git commit -m wip", "other", ["other"]],
  ["export PATH=$PATH:/opt/bin; cd src", "other", ["other"]],
  ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "other", ["other"]],
  ["cat <<'EOF' | ./executable\nrm -rf /\nEOF", "probe", ["probe", "other"]],
  ["for f in tests/*.in; do ./executable < $f; done", "probe", ["probe"]],
  ["grep -n 'a; rm -rf x' src/*.c 2>/dev/null # rm -rf", "read", ["read"]],
  ["ls \\\n  -la src", "read", ["read"]],
  ["git -C repo log -3 && git --no-pager diff HEAD~1", "read", ["read"]],
  ["tar xzf deps.tar.gz && tar tzf deps.tar.gz | head", "write", ["write", "read"]],
  ["npm install && npm test", "execute", ["execute", "other"]],
  ["python3 -m pip install requests", "other", ["other"]],
  ['sh -c "./executable < in.txt > out.txt"', "write", ["write", "probe"]],
  ['echo "$(./executable --version)"', "probe", ["probe", "other"]],
];

/**
 * Classify one command (a tool call's `command`, or a text-mode action).
 *
 * @example
 * ```ts
 * import { classifyCommand } from "./action_types.ts";
 * classifyCommand("cat > a.c <<'EOF'\nint main(){}\nEOF\ngcc -o a a.c && ./a");
 * // { types: ["write", "execute"], primary: "write" }
 * ```
 * @param command the bash command
 * @param state whether the reference was replaced; a command that replaces it sets `replaced`
 *   when `returncode` is 0 or undefined
 * @param returncode the command's exit code, when known
 * @param options reference program names
 */
export function classifyCommand(
  command: string,
  state: ReferenceState = { replaced: false },
  returncode?: number,
  options: ClassifyOptions = {},
): ActionLabels {
  const reference = options.reference ?? ["executable"];
  const isReference = (w: string) => reference.some((name) => w === name || w.endsWith(`/${name}`));
  // Within a command a build is taken to have succeeded for what follows it; across commands, only
  // when the command's exit code says so.
  const local: ReferenceState = { replaced: state.replaced };
  const found = classifyText(command, local, isReference);
  if (local.replaced && (returncode === undefined || returncode === 0)) state.replaced = true;
  return labels(found);
}

function labels(found: Set<ActionType>): ActionLabels {
  const types = ACTION_TYPES.filter((t) => found.has(t));
  return { types, primary: types[0] };
}

/**
 * Classify every step of a trajectory in order, carrying the reference-binary state from step to
 * step (a build's success is read from its observation's return code).
 *
 * @example
 * ```ts ignore
 * import { classifySteps } from "./action_types.ts";
 * const labels = classifySteps(trajectory);
 * labels[0]!.primary; // "read"
 * ```
 * @param trajectory the trajectory
 * @param options reference program names
 * @returns one entry per step (format-error turns have no actions and no labels)
 */
export function classifySteps(trajectory: Trajectory, options: ClassifyOptions = {}): StepLabels[] {
  const state: ReferenceState = { replaced: false };
  return trajectory.steps.map((step) => {
    const actions = step.actions.map((a) =>
      classifyCommand(a.command, state, a.observation?.returncode, options)
    );
    const found = new Set(actions.flatMap((a) => a.types));
    return { ...labels(found), actions };
  });
}

/**
 * A {@link classifySteps} for many trajectories: the same labels, with each distinct command
 * classified once (per reference state) and remembered. Commands repeat a lot across a batch
 * (`./compile.sh`, `ls`, the same probes), and classifying is most of the cost of reading one.
 * Only commands up to 1,000 characters are remembered (long heredocs rarely repeat), at most
 * 20,000 of them (then the memory starts afresh).
 *
 * @example
 * ```ts ignore
 * import { cachedStepClassifier } from "./action_types.ts";
 * const classify = cachedStepClassifier();
 * for (const t of trajectories) classify(t); // same as classifySteps(t)
 * ```
 * @param options reference program names
 * @returns a function from a trajectory to its step labels, as {@link classifySteps}
 */
export function cachedStepClassifier(
  options: ClassifyOptions = {},
): (trajectory: Trajectory) => StepLabels[] {
  const cache = new Map<string, { labels: ActionLabels; replaces: boolean }>();
  return (trajectory) => {
    const state: ReferenceState = { replaced: false };
    return trajectory.steps.map((step) => {
      const actions = step.actions.map((a) => {
        const key = (state.replaced ? "1" : "0") + a.command;
        let hit = cache.get(key);
        if (!hit) {
          // What the command does to the reference when it succeeds (the return code decides below).
          const probe: ReferenceState = { replaced: state.replaced };
          hit = { labels: classifyCommand(a.command, probe, 0, options), replaces: probe.replaced };
          if (a.command.length <= 1000) {
            if (cache.size >= 20_000) cache.clear();
            cache.set(key, hit);
          }
        }
        const rc = a.observation?.returncode;
        if (hit.replaces && (rc === undefined || rc === 0)) state.replaced = true;
        return hit.labels;
      });
      const found = new Set(actions.flatMap((a) => a.types));
      return { ...labels(found), actions };
    });
  };
}

/** One remembering classifier per reference-name setting, kept for the life of the process or worker. */
const sharedClassifiers = new Map<string, (t: Trajectory) => StepLabels[]>();

/**
 * The {@link cachedStepClassifier} for `options`, made once and shared by every caller in this
 * process (tools that read many trajectories: `stats`, `report`).
 */
export function sharedStepClassifier(options: ClassifyOptions = {}): (t: Trajectory) => StepLabels[] {
  const key = JSON.stringify(options.reference ?? null);
  let classify = sharedClassifiers.get(key);
  if (!classify) sharedClassifiers.set(key, classify = cachedStepClassifier(options));
  return classify;
}
