/** `text` as `deno fmt` formats a file of extension `ext` (`md`, `ts`), with the repository's settings. */
export async function denoFmt(text: string, ext: "md" | "ts"): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["fmt", `--ext=${ext}`, "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    cwd: new URL("../..", import.meta.url).pathname,
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const out = await child.output();
  if (!out.success) throw new Error(`deno fmt failed: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}
