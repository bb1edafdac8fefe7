/**
 * Reading chosen files out of an archive: a tar file (ustar, pax and GNU long names), gzipped or not,
 * or a zip file (stored or deflated entries, as Python wheels and GitHub's zipballs are). Gzip and
 * deflate are the runtime's `DecompressionStream`; a tar is read as it streams in, so only the
 * entries asked for are kept whatever the archive's size.
 *
 * @module
 */

/** An archive that cannot be read: its kind, and what is wrong with it. */
export class ArchiveError extends TypeError {
  constructor(message: string) {
    super(message);
    this.name = "ArchiveError";
  }
}

/** The most bytes a kept entry may have (config files are a few KB). */
const MAX_ENTRY = 16 << 20;
/** The most bytes an archive may unpack to. */
const MAX_TOTAL = 1 << 30;

const isGzip = (b: Uint8Array) => b[0] === 0x1f && b[1] === 0x8b;
const isZip = (b: Uint8Array) => b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;

/**
 * The entries of an archive whose path `want` takes, by path (a leading `./` removed).
 *
 * @param bytes the archive: tar, tar.gz or zip, told apart by their first bytes
 * @param want which entries to keep (given the entry's path)
 * @returns path -> content
 * @throws {ArchiveError} for what is no archive of these kinds, or a damaged one
 *
 * @example
 * ```ts ignore
 * const files = await readArchive(await Deno.readFile("release.tar.gz"), (p) => p.endsWith(".yaml"));
 * ```
 */
export async function readArchive(
  bytes: Uint8Array,
  want: (path: string) => boolean,
): Promise<Map<string, Uint8Array>> {
  if (isZip(bytes)) return await readZip(bytes, want);
  if (isGzip(bytes)) {
    const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream("gzip"));
    try {
      return await readTar(stream, want);
    } catch (e) {
      if (e instanceof ArchiveError) throw e;
      throw new ArchiveError(`a damaged gzip stream (${e instanceof Error ? e.message : e})`);
    }
  }
  if (bytes.length >= 512 && tarMagic(bytes)) {
    return await readTar(new Blob([bytes as BlobPart]).stream(), want);
  }
  throw new ArchiveError("neither a tar, a gzipped tar nor a zip file (its first bytes say none of them)");
}

function tarMagic(header: Uint8Array): boolean {
  return new TextDecoder().decode(header.subarray(257, 262)) === "ustar";
}

const decoder = new TextDecoder();
const field = (h: Uint8Array, at: number, len: number) => {
  const raw = h.subarray(at, at + len);
  const end = raw.indexOf(0);
  return decoder.decode(end < 0 ? raw : raw.subarray(0, end));
};

/** A tar header's number: octal text, or base-256 when the first byte's high bit is set. */
function tarNumber(h: Uint8Array, at: number, len: number): number {
  if (h[at]! & 0x80) {
    let n = h[at]! & 0x7f;
    for (let i = 1; i < len; i++) n = n * 256 + h[at + i]!;
    return n;
  }
  const text = field(h, at, len).trim();
  if (!/^[0-7]*$/.test(text)) throw new ArchiveError(`a tar header with a bad number '${text}'`);
  return text === "" ? 0 : parseInt(text, 8);
}

/** The `path` record of a pax extended header, if it has one. */
function paxPath(body: Uint8Array): string | undefined {
  let at = 0;
  let path: string | undefined;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    if (space < 0) break;
    const len = Number(decoder.decode(body.subarray(at, space)));
    if (!Number.isInteger(len) || len <= 0) break;
    const record = decoder.decode(body.subarray(space + 1, at + len - 1));
    const eq = record.indexOf("=");
    if (record.slice(0, eq) === "path") path = record.slice(eq + 1);
    at += len;
  }
  return path;
}

/** Bytes of a stream, taken as they are asked for. */
class Reader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  #chunks: Uint8Array[] = [];
  #buffered = 0;
  #done = false;
  total = 0;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
  }

  /** Exactly `n` bytes, or undefined at the end of the stream. */
  async take(n: number, keep = true): Promise<Uint8Array | undefined> {
    while (this.#buffered < n && !this.#done) {
      const { value, done } = await this.#reader.read();
      if (done) this.#done = true;
      else {
        this.#chunks.push(value);
        this.#buffered += value.length;
        this.total += value.length;
        if (this.total > MAX_TOTAL) throw new ArchiveError(`it unpacks to more than ${MAX_TOTAL >> 20} MiB`);
      }
    }
    if (this.#buffered < n) return undefined;
    const out = keep ? new Uint8Array(n) : undefined;
    let filled = 0;
    while (filled < n) {
      const chunk = this.#chunks[0]!;
      const part = Math.min(chunk.length, n - filled);
      out?.set(chunk.subarray(0, part), filled);
      filled += part;
      if (part === chunk.length) this.#chunks.shift();
      else this.#chunks[0] = chunk.subarray(part);
    }
    this.#buffered -= n;
    return out ?? new Uint8Array(0);
  }

  cancel(): void {
    this.#reader.cancel().catch(() => {});
  }
}

async function readTar(
  stream: ReadableStream<Uint8Array>,
  want: (path: string) => boolean,
): Promise<Map<string, Uint8Array>> {
  const reader = new Reader(stream);
  const out = new Map<string, Uint8Array>();
  let longName: string | undefined;
  try {
    for (;;) {
      const header = await reader.take(512);
      if (header === undefined || header.every((b) => b === 0)) break;
      if (!tarMagic(header) && header[156] === undefined) throw new ArchiveError("a damaged tar header");
      const size = tarNumber(header, 124, 12);
      const type = String.fromCharCode(header[156]!);
      const prefix = tarMagic(header) ? field(header, 345, 155) : "";
      const name = longName ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
      longName = undefined;
      const padded = Math.ceil(size / 512) * 512;
      const path = name.replace(/^\.\//, "");
      const meta = type === "x" || type === "L";
      const keep = meta ? size <= MAX_ENTRY : (type === "0" || type === "\0") && want(path);
      if (keep && size > MAX_ENTRY) {
        throw new ArchiveError(`its entry ${path} is over ${MAX_ENTRY >> 20} MiB`);
      }
      const body = await reader.take(padded, keep);
      if (body === undefined) throw new ArchiveError(`it ends inside the entry ${path} (a truncated tar)`);
      if (!keep) continue;
      const content = body.subarray(0, size);
      if (type === "x") longName = paxPath(content);
      else if (type === "L") longName = field(content, 0, content.length);
      else out.set(path, content);
    }
  } finally {
    reader.cancel();
  }
  return out;
}

const u16 = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8);
const u32 = (b: Uint8Array, at: number) => (u16(b, at) | (u16(b, at + 2) << 16)) >>> 0;

async function inflate(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data as BlobPart]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function readZip(bytes: Uint8Array, want: (path: string) => boolean): Promise<Map<string, Uint8Array>> {
  // The end-of-central-directory record: within the last 64 KiB + 22 bytes.
  let end = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 65_557); i--) {
    if (u32(bytes, i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new ArchiveError("a zip file without its central directory (truncated?)");
  const count = u16(bytes, end + 10);
  let at = u32(bytes, end + 16);
  const out = new Map<string, Uint8Array>();
  for (let n = 0; n < count; n++) {
    if (u32(bytes, at) !== 0x02014b50) throw new ArchiveError("a damaged zip central directory");
    const method = u16(bytes, at + 10);
    const packed = u32(bytes, at + 20);
    const size = u32(bytes, at + 24);
    const nameLen = u16(bytes, at + 28);
    const extraLen = u16(bytes, at + 30);
    const commentLen = u16(bytes, at + 32);
    const local = u32(bytes, at + 42);
    const path = decoder.decode(bytes.subarray(at + 46, at + 46 + nameLen)).replace(/^\.\//, "");
    at += 46 + nameLen + extraLen + commentLen;
    if (path.endsWith("/") || !want(path)) continue;
    if (size > MAX_ENTRY) throw new ArchiveError(`its entry ${path} is over ${MAX_ENTRY >> 20} MiB`);
    if (u32(bytes, local) !== 0x04034b50) throw new ArchiveError(`a damaged zip entry ${path}`);
    const start = local + 30 + u16(bytes, local + 26) + u16(bytes, local + 28);
    const data = bytes.subarray(start, start + packed);
    if (data.length !== packed) throw new ArchiveError(`it ends inside the entry ${path} (a truncated zip)`);
    let content: Uint8Array;
    if (method === 0) content = data;
    else if (method === 8) {
      content = await inflate(data).catch((e) => {
        throw new ArchiveError(`a damaged zip entry ${path} (${e instanceof Error ? e.message : e})`);
      });
    } else {throw new ArchiveError(
        `its entry ${path} is compressed by method ${method} (only stored and deflate)`,
      );}
    if (content.length !== size) throw new ArchiveError(`its entry ${path} unpacks to the wrong size`);
    out.set(path, content);
  }
  return out;
}
