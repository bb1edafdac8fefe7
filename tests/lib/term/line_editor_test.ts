import { assertEquals } from "../../_support/assert.ts";
import { drawEntry, type EditResult, LineEditor } from "../../../src/lib/term/line_editor.ts";
import type { Key } from "../../../src/lib/term/keys.ts";

const NAMED = new Set([
  "enter",
  "altEnter",
  "escape",
  "backspace",
  "delete",
  "left",
  "right",
  "up",
  "down",
  "home",
  "end",
  "wordLeft",
  "wordRight",
  "killEnd",
  "killStart",
  "killWord",
  "ctrlC",
  "ctrlD",
]);

/** Named keys by name; any other string is typed text. */
function type(editor: LineEditor, ...keys: string[]): EditResult {
  let result: EditResult = "edit";
  for (const key of keys) {
    result = editor.handle(NAMED.has(key) ? { kind: key } as Key : { kind: "text", text: key });
  }
  return result;
}

Deno.test("LineEditor edits with the cursor keys and submits on Enter", () => {
  const e = new LineEditor();
  assertEquals(type(e, "l", "s", "left", "left", "x", "end", "!", "home", "delete", "enter"), {
    submit: "ls!",
  });
  const words = new LineEditor();
  assertEquals(type(words, "echo one two", "killWord", "killWord", "enter"), { submit: "echo " });
  assertEquals(type(new LineEditor(), "ctrlD"), "eof");
  assertEquals(type(new LineEditor(), "a", "ctrlC"), "interrupt");
});

Deno.test("LineEditor recalls history with Up and Down, keeping the draft", () => {
  const e = new LineEditor({ history: ["first", "second"] });
  type(e, "dra", "up");
  assertEquals(e.text, "second");
  type(e, "up", "up");
  assertEquals(e.text, "first");
  type(e, "down", "down");
  assertEquals(e.text, "dra");
});

Deno.test("LineEditor in multi-line mode: Enter is a newline, Esc then Enter submits, Up moves a line", () => {
  const e = new LineEditor({ multiline: true, history: ["old"] });
  type(e, "ab", "enter", "cd", "up", "x");
  assertEquals(e.text, "abx\ncd");
  assertEquals(type(e, "escape", "enter"), { submit: "abx\ncd" });
  assertEquals(type(new LineEditor({ multiline: true }), "a", "altEnter"), { submit: "a" });
  const recall = new LineEditor({ multiline: true, history: ["old"] });
  type(recall, "up");
  assertEquals(recall.text, "old");
});

Deno.test("drawEntry() returns to the prompt's row, redraws after it and places the cursor", () => {
  // "> " is 2 columns; 10 columns wide: "abcdefgh" fills the row exactly (pending wrap).
  const full = drawEntry(0, 2, [..."abcdefgh"], 8, 10);
  assertEquals(full.output, "\r\x1b[2C\x1b[Jabcdefgh\r\n");
  assertEquals([full.cursorRow, full.endRow], [1, 1]);
  const back = drawEntry(full.cursorRow, 2, [..."abcdefgh"], 3, 10);
  assertEquals(back.output, "\x1b[1A\r\x1b[2C\x1b[Jabcdefgh\r\n\x1b[1A\r\x1b[5C");
  assertEquals(back.cursorRow, 0);
  const lines = drawEntry(0, 2, [..."ab\ncd"], 1, 10, "hint");
  assertEquals(lines.output, "\r\x1b[2C\x1b[Jab\r\ncd\r\n\x1b[2mhint\x1b[0m\x1b[2A\r\x1b[3C");
  assertEquals([lines.cursorRow, lines.endRow], [0, 2]);
});
