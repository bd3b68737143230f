/**
 * What a pack archive may hold (DESIGN.md "Skill packs": bounded size, no path escapes, no links out,
 * no device files), checked on real tar streams made with tar-stream and gzip.
 */
import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { pack as tarPack, type Header } from "tar-stream";
import { describe, expect, it } from "vitest";
import { checkPackEntries, PACK_ENTRY_LIMITS, readTarEntries, type PackLimits } from "./pack-tree";

const LIMITS: PackLimits = { maxBytes: 1024 * 1024, ...PACK_ENTRY_LIMITS };

type Item = Partial<Header> & { name: string; body?: string | Buffer };

async function tarOf(items: readonly Item[]): Promise<Buffer> {
  const archive = tarPack();
  const chunks: Buffer[] = [];
  archive.on("data", (chunk: unknown) => chunks.push(chunk as Buffer));
  const done = new Promise<void>((resolve) => archive.on("end", () => resolve()));
  for (const { body, ...header } of items) {
    await new Promise<void>((resolve, reject) => archive.entry(header as Header, body ?? "", (error) => (error ? reject(error) : resolve())));
  }
  archive.finalize();
  await done;
  return Buffer.concat(chunks);
}

async function read(items: readonly Item[], limits = LIMITS) {
  return checkPackEntries(await readTarEntries(Readable.from([gzipSync(await tarOf(items))]), limits, true), limits);
}

describe("a pack archive", () => {
  it("is read with its files' bytes, executable bits, links inside, and implicit folders", async () => {
    const entries = await read([
      { name: "./pack.json", body: '{"name":"p","version":"1"}' },
      { name: "skill/run.sh", body: "#!/bin/sh\n", mode: 0o755 },
      { name: "skill/docs", type: "symlink", linkname: "../README" },
      { name: "README", body: "hi" },
    ]);
    expect(entries.map((entry) => [entry.path, entry.kind, entry.kind === "file" ? entry.executable : entry.kind === "link" ? entry.target : null])).toEqual([
      ["README", "file", false],
      ["pack.json", "file", false],
      ["skill", "dir", null],
      ["skill/docs", "link", "../README"],
      ["skill/run.sh", "file", true],
    ]);
  });

  it("refuses a path out of the pack, an absolute path, a link out, a hard link, a device, a FIFO", async () => {
    await expect(read([{ name: "../escape", body: "x" }])).rejects.toThrow(`"../escape" is not a plain relative path inside the pack (absolute, '..' or an empty segment)`);
    await expect(read([{ name: "a/../../escape", body: "x" }])).rejects.toThrow(`"a/../../escape" is not a plain relative path inside the pack`);
    await expect(read([{ name: "/etc/cron.d/x", body: "x" }])).rejects.toThrow(`"/etc/cron.d/x" is not a plain relative path inside the pack`);
    await expect(read([{ name: "a/link", type: "symlink", linkname: "../../etc/passwd" }])).rejects.toThrow(`a/link is a link to "../../etc/passwd", which leads out of the pack`);
    await expect(read([{ name: "a/link", type: "symlink", linkname: "/etc/passwd" }])).rejects.toThrow(`a/link is a link to "/etc/passwd": links must be relative and stay inside the pack`);
    await expect(read([{ name: "a", body: "x" }, { name: "b", type: "link", linkname: "a" }])).rejects.toThrow("b is a hard link in the archive: a pack may not hold one");
    await expect(read([{ name: "dev/sda", type: "block-device", devmajor: 8, devminor: 0 }])).rejects.toThrow("dev/sda is a block-device in the archive: a pack may hold only files, folders and links");
    await expect(read([{ name: "tty", type: "character-device", devmajor: 5, devminor: 0 }])).rejects.toThrow("tty is a character-device in the archive");
    await expect(read([{ name: "pipe", type: "fifo" }])).rejects.toThrow("pipe is a fifo in the archive");
  });

  it("refuses a file written through a link, and a name given twice", async () => {
    await expect(read([{ name: "a", type: "symlink", linkname: "b" }, { name: "b", type: "directory" }, { name: "a/x", body: "x" }])).rejects.toThrow("a/x lies below a, which is a link");
    await expect(read([{ name: "x", body: "1" }, { name: "x", body: "2" }])).rejects.toThrow("x appears twice in the pack");
  });

  it("stops a compression bomb as it unpacks, past PACK_MAX_BYTES", async () => {
    const big = Buffer.alloc(4 * 1024 * 1024, 0);
    const gz = gzipSync(await tarOf([{ name: "zeros", body: big }]));
    expect(gz.length).toBeLessThan(64 * 1024);
    await expect(readTarEntries(Readable.from([gz]), LIMITS, true)).rejects.toThrow(`the archive unpacks to more than ${LIMITS.maxBytes} bytes (PACK_MAX_BYTES)`);
  });

  it("counts every unpacked byte, not only files': zeros after the archive's end are a bomb too", async () => {
    const archive = Buffer.concat([await tarOf([{ name: "pack.json", body: "{}" }]), Buffer.alloc(8 * 1024 * 1024, 0)]);
    const small = { maxBytes: 1024, maxEntries: 100, maxDepth: 8 };
    await expect(readTarEntries(Readable.from([gzipSync(archive)]), small, true)).rejects.toThrow(`the archive unpacks to more than ${1024 + 102 * 1024 + 1024 * 1024} bytes (PACK_MAX_BYTES and the tar format's overhead)`);
  });

  it("refuses bytes that are not a gzipped tar", async () => {
    await expect(readTarEntries(Readable.from([Buffer.from("not an archive")]), LIMITS, true)).rejects.toThrow(/^the archive cannot be read: /);
  });
});
