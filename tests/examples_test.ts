/**
 * Every guide in examples/ works as written: the `claudius` lines of its `sh` blocks run, in order, offline
 * (scripted models), from a copy of the repository's examples as the current directory, each exiting 0 or
 * with the code its comment names (`# (exit 3)`); a guide's terminal session (a `text` block that starts with
 * `$ claudius`) is typed into a real terminal (tmux): after each prompt the input the session shows, and it
 * must end with exit 0. The product runs with the run task's permissions.
 */
import { assert, assertEquals } from "./_support/assert.ts";
import { Tmux } from "./_support/tmux.ts";
import { commandLines, words } from "./readme_reference.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const MAIN = `${ROOT}main.ts`;

/** The `deno run` flags of the run task (V8 flags and permissions), as deno.json gives them. */
async function runFlags(): Promise<string[]> {
  const tasks = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)).tasks as Record<string, string>;
  const run = tasks.run?.split(/\s+/) ?? [];
  return run.slice(2, run.indexOf("main.ts"));
}

/** A fresh directory holding a copy of examples/, and a home of its own. */
async function workspace(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "claudius-examples-" });
  const copy = await new Deno.Command("cp", { args: ["-r", `${ROOT}examples`, dir] }).output();
  assert(copy.success, "cp -r examples");
  await Deno.mkdir(`${dir}/home`);
  return dir;
}

const guides: string[] = [];
for await (const e of Deno.readDir(`${ROOT}examples`)) {
  if (e.isDirectory && await Deno.stat(`${ROOT}examples/${e.name}/README.md`).catch(() => undefined)) {
    guides.push(e.name);
  }
}
guides.sort();

for (const guide of guides) {
  const text = await Deno.readTextFile(`${ROOT}examples/${guide}/README.md`);
  const lines = commandLines(text, ["sh"]);
  if (lines.length === 0) continue;
  Deno.test(`examples/${guide}/README.md: its ${lines.length} claudius lines run as written`, async () => {
    const dir = await workspace();
    const flags = await runFlags();
    try {
      for (const line of lines) {
        const expected = Number(/#.*\(exit (\d+)\)/.exec(line)?.[1] ?? 0);
        const out = await new Deno.Command(Deno.execPath(), {
          args: ["run", ...flags, MAIN, ...words(line).slice(1)],
          cwd: dir,
          env: { HOME: `${dir}/home`, NO_COLOR: "1" },
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
        const d = new TextDecoder();
        assertEquals(
          out.code,
          expected,
          `examples/${guide}: ${line}\n${d.decode(out.stdout).slice(-2000)}\n${
            d.decode(out.stderr).slice(-2000)
          }`,
        );
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

/** A terminal session of a guide: the command, then each prompt with what is typed at it. */
interface Session {
  command: string;
  inputs: { prompt: string; text: string; multiline: boolean }[];
}

/**
 * The session of a `text` block that starts with `$ claudius`: a line `> X` is typed at the prompt on the
 * line before it; the line after the task question is the task (a multi-line entry).
 */
function sessions(text: string): Session[] {
  const out: Session[] = [];
  for (const [, body = ""] of text.matchAll(/```text\n(\$ claudius[\s\S]*?)```/g)) {
    const lines = body.split("\n");
    const session: Session = { command: (lines[0] ?? "").slice(2), inputs: [] };
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i] ?? "";
      if (line === "What do you want to do?") {
        session.inputs.push({ prompt: line, text: lines[i + 1] ?? "", multiline: true });
      } else if (line === ">" || line.startsWith("> ")) {
        session.inputs.push({ prompt: lines[i - 1] ?? "", text: line.slice(2), multiline: false });
      }
    }
    out.push(session);
  }
  return out;
}

const tmuxMissing = await new Deno.Command("tmux", { args: ["-V"] }).output().then(
  (o) => !o.success,
  () => true,
);
if (tmuxMissing) {
  console.error("examples_test.ts: no tmux: the terminal sessions are ignored (set CI to fail)");
}

for (const guide of guides) {
  const text = await Deno.readTextFile(`${ROOT}examples/${guide}/README.md`);
  for (const session of sessions(text)) {
    Deno.test({
      name: `examples/${guide}/README.md: the terminal session runs as shown`,
      ignore: tmuxMissing && !Deno.env.get("CI"),
      fn: async () => {
        const dir = await workspace();
        const tmux = await Tmux.start(200, 50, { HOME: `${dir}/home`, NO_COLOR: "1" });
        try {
          const flags = (await runFlags()).join(" ");
          const args = words(session.command).slice(1).map((w) => `'${w.replaceAll("'", `'\\''`)}'`).join(
            " ",
          );
          await tmux.run(`cd ${dir} && ${Deno.execPath()} run ${flags} ${MAIN} ${args}; echo "EXIT=$?"`);
          const seen = new Map<string, number>();
          for (const input of session.inputs) {
            const n = (seen.get(input.prompt) ?? 0) + 1;
            seen.set(input.prompt, n);
            const shown = async () => (await tmux.history()).split(input.prompt).length - 1 >= n;
            const deadline = Date.now() + 30_000;
            while (!(await shown())) {
              assert(Date.now() < deadline, `no prompt #${n} '${input.prompt}':\n${await tmux.history()}`);
              await new Promise((r) => setTimeout(r, 100));
            }
            await tmux.type(input.text);
            await tmux.keys(...(input.multiline ? ["Escape", "Enter"] : ["Enter"]));
          }
          const screen = await tmux.waitFor((s) => /EXIT=\d+/.test(s), "the end of the session", 30_000);
          assertEquals(/EXIT=(\d+)/.exec(screen)?.[1], "0", await tmux.history());
          const history = await tmux.history();
          for (const line of text.split("\n").filter((l) => /^claudius \(step \d+/.test(l))) {
            assert(history.includes(line), `the session shows no '${line}'`);
          }
        } finally {
          await tmux.close();
          await removeSettled(dir);
        }
      },
    });
  }
}

/**
 * Remove `dir` once nothing writes in it: a session cut short by a failed check leaves claudius
 * saving its ending (Hangup) there while tmux closes, which would turn the check's error into ENOTEMPTY.
 */
async function removeSettled(dir: string): Promise<void> {
  for (let attempt = 1;; attempt++) {
    try {
      return await Deno.remove(dir, { recursive: true });
    } catch (e) {
      if (attempt === 20 || !(e instanceof Error) || !/os error 39/.test(e.message)) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
