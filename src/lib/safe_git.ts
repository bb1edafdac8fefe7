/**
 * git as claudius runs it on a working tree someone else wrote (the model's, a cloned repository's):
 * one shell preamble that defines `g`, git with none of the tree's programs. A repository's config,
 * hooks and attributes can name commands git runs on its own (`core.fsmonitor`, the hooks,
 * `filter.*.clean`, `diff.*.textconv`, `diff.external`, `core.pager`, a transport's `sshCommand`);
 * claudius's `--patch` runs on the host, so a tree written inside a sandbox would run them there.
 *
 * @module
 */

/**
 * Shell text (POSIX sh and bash) that defines `g`: git with the config keys that run programs set to
 * nothing on the command line (which beats the repository's config), no pager, and no transport (a
 * partial clone's lazy fetch would run `core.sshCommand`). Subprocesses of git (a submodule's)
 * inherit the `-c` settings. Alone it is for a shell {@link SAFE_GIT} started (`find -exec sh -c`);
 * otherwise use {@link SAFE_GIT}.
 */
export const SAFE_GIT_FUNCTION: string = [
  "g() {",
  "  git --no-pager -c safe.directory='*' -c core.quotepath=false -c core.fsmonitor= \\",
  "    -c core.hooksPath=/dev/null -c core.attributesFile=/dev/null -c core.pager=cat \\",
  "    -c diff.external= -c diff.submodule=short -c submodule.recurse=false -c protocol.allow=never \\",
  "    -c core.sshCommand= -c credential.helper= -c gc.auto=0 -c maintenance.auto=false \\",
  '    -c core.untrackedCache=false "$@"',
  "}",
].join("\n");

/**
 * Shell text (POSIX sh and bash) that clears every `GIT_*` variable of the environment (`GIT_DIR`,
 * `GIT_CONFIG_COUNT`, `GIT_EXTERNAL_DIFF`, ...), reads no system or global config (so `HOME` does not
 * matter), and defines `g` ({@link SAFE_GIT_FUNCTION}). What it cannot switch off by key, a filter
 * or diff driver that `.gitattributes` names under a name of its own choosing, needs a config
 * without the repository's: {@link ISOLATED_GIT} gives one.
 */
export const SAFE_GIT: string = [
  // `env` lists names the shell may not unset (`GIT_A B` from a value holding a newline): ignored.
  "for v in $(env | while IFS='=' read -r k _; do case $k in GIT_*) printf '%s\\n' \"$k\";; esac; done); do",
  '  unset "$v" 2>/dev/null || :',
  "done",
  "unset PAGER",
  "export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null",
  "export GIT_TERMINAL_PROMPT=0 GIT_NO_LAZY_FETCH=1 GIT_OPTIONAL_LOCKS=0 GIT_PAGER=cat",
  SAFE_GIT_FUNCTION,
].join("\n");

/** The options of a `git diff` that runs no external diff driver and no text conversion. */
export const SAFE_DIFF_OPTIONS = "--no-ext-diff --no-textconv --no-color --submodule=short";

/** The exit code of {@link ISOLATED_GIT} when the working tree is in no git repository. */
export const NOT_A_REPOSITORY = 3;

/**
 * Shell text, after {@link SAFE_GIT} and `cd` into the tree: it finds the repository's work tree (the
 * directory holding `.git` at or above the tree, whatever `core.worktree` says), then
 * points `GIT_DIR` at a throwaway git directory of claudius's own (in `$tmp/git`, `$tmp` made by the
 * caller) that reads the repository's objects through `objects/info/alternates`, and `GIT_WORK_TREE`
 * at the tree, so no config, hook or attributes file of the repository is read after it: a filter
 * `.gitattributes` names has no command, nor does any other driver. It copies the repository's index
 * (to `$tmp/index`, `GIT_INDEX_FILE`: unchanged files are not read again) and `info/exclude` (plain
 * data), and sets `$base`: HEAD's commit (also the throwaway directory's HEAD), or the empty tree when
 * there is none. New objects go to `$tmp/git`, so the repository is not written either. Exits
 * {@link NOT_A_REPOSITORY}, printing `$PWD` on stderr, when the tree is in no git repository.
 */
export const ISOLATED_GIT: string = [
  // The work tree is the directory holding `.git` at or above this one, found without git: a
  // repository's `core.worktree` (`/`, `~/.ssh`) would otherwise choose what the patch reads.
  "command -v git >/dev/null 2>&1 || { echo 'git: command not found' >&2; exit 127; }",
  'top="$PWD"; while [ ! -e "$top/.git" ] && [ "$top" != / ]; do top="$(dirname "$top")"; done',
  `if [ ! -e "$top/.git" ]; then printf '%s\\n' "$PWD" >&2; exit ${NOT_A_REPOSITORY}; fi`,
  'export GIT_WORK_TREE="$top"',
  'if ! err="$(LC_ALL=C g rev-parse --git-dir 2>&1 >/dev/null)"; then printf \'%s\\n\' "$err" >&2; exit 1; fi',
  'objects="$(cd "$(g rev-parse --git-path objects)" && pwd -P)"',
  'format="$(g rev-parse --show-object-format 2>/dev/null || echo sha1)"',
  "base=\"$(g rev-parse -q --verify 'HEAD^{commit}' || :)\"",
  'mkdir -p "$tmp/git/objects/info" "$tmp/git/refs/heads" "$tmp/git/info"',
  "printf 'ref: refs/heads/patch\\n' > \"$tmp/git/HEAD\"",
  'if [ -n "$base" ]; then printf \'%s\\n\' "$base" > "$tmp/git/refs/heads/patch"; fi',
  "printf '[core]\\n\\trepositoryformatversion = 1\\n[extensions]\\n\\tobjectformat = %s\\n' \"$format\" \\",
  '  > "$tmp/git/config"',
  'printf \'%s\\n\' "$objects" > "$tmp/git/objects/info/alternates"',
  'cp "$(g rev-parse --git-path info/exclude)" "$tmp/git/info/exclude" 2>/dev/null || :',
  'cp "$(g rev-parse --git-path index)" "$tmp/index" 2>/dev/null || rm -f "$tmp/index"',
  'export GIT_DIR="$tmp/git" GIT_WORK_TREE="$top" GIT_INDEX_FILE="$tmp/index"',
  '[ -n "$base" ] || base="$(g hash-object -t tree /dev/null)"',
].join("\n");
