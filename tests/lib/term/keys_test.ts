import { assertEquals } from "../../_support/assert.ts";
import { type Key, KeyParser } from "../../../src/lib/term/keys.ts";

const kinds = (keys: Key[]) => keys.map((k) => ("text" in k ? `${k.kind}:${k.text}` : k.kind));

Deno.test("KeyParser.feed() turns terminal input into keys, waiting for split sequences", () => {
  const p = new KeyParser();
  assertEquals(kinds(p.feed("ab\x1b[Aé\r")), ["text:ab", "up", "text:é", "enter"]);
  assertEquals(kinds(p.feed("\x1b[")), []);
  assertEquals(kinds(p.feed("3~x")), ["delete", "text:x"]);
  assertEquals(kinds(p.feed("\x1b")), ["escape"]);
  assertEquals(kinds(p.feed("\x1b\r\x03\x04\x7f\x1bOH\x1b[1;5D")), [
    "altEnter",
    "ctrlC",
    "ctrlD",
    "backspace",
    "home",
    "wordLeft",
  ]);
  assertEquals(kinds(p.feed("\x1b[200~line 1\r\nline 2\x1b[20")), []);
  assertEquals(kinds(p.feed("1~\r")), ["paste:line 1\nline 2", "enter"]);
});
