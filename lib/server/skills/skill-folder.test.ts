import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readSkillFolder, SkillFolderError } from "./skill-folder";

const temp = fs.mkdtempSync(path.join(os.tmpdir(), "skill-folder-"));
afterAll(() => fs.rmSync(temp, { recursive: true, force: true }));

let counter = 0;
function folderWith(files: Record<string, string | Buffer>): string {
  const folder = path.join(fs.realpathSync(temp), `f${++counter}`);
  for (const [relative, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(folder, relative)), { recursive: true });
    fs.writeFileSync(path.join(folder, relative), content);
  }
  fs.mkdirSync(folder, { recursive: true });
  return folder;
}

async function failure(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SkillFolderError);
  return (error as Error).message;
}

describe("readSkillFolder (DESIGN.md: the digest covers the skill's whole folder, bounded)", () => {
  it("lists every entry in lexical order with each file's SHA-256, executable bit and, on request, its bytes", async () => {
    const folder = folderWith({ "run.sh": "#!/bin/sh\necho hi\n", "b/helper.sh": "x=1\n", "a.txt": "" });
    fs.chmodSync(path.join(folder, "run.sh"), 0o755);
    fs.symlinkSync("../elsewhere", path.join(folder, "link"));
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    const content = await readSkillFolder(folder, { keepBytes: (relative) => relative === "run.sh" });
    expect(content.bytes).toBe(22);
    expect(content.entries).toEqual([
      { path: "a.txt", kind: "file", executable: false, size: 0, sha256: sha("") },
      { path: "b", kind: "dir" },
      { path: "b/helper.sh", kind: "file", executable: false, size: 4, sha256: sha("x=1\n") },
      { path: "link", kind: "link", target: "../elsewhere" },
      { path: "run.sh", kind: "file", executable: true, size: 18, sha256: sha("#!/bin/sh\necho hi\n"), bytes: Buffer.from("#!/bin/sh\necho hi\n") },
    ]);
  });

  it("names the limit it stops at: entries, bytes, depth", async () => {
    const wide = folderWith({ a: "1", b: "2", c: "3" });
    expect(await failure(readSkillFolder(wide, { limits: { maxEntries: 2, maxBytes: 100, maxDepth: 4 } }))).toBe(
      `${wide} holds more than 2 entries (SKILL_FOLDER_MAX_FILES): too many to bind a call to`,
    );
    const heavy = folderWith({ a: "12345", b: "67890" });
    expect(await failure(readSkillFolder(heavy, { limits: { maxEntries: 10, maxBytes: 9, maxDepth: 4 } }))).toBe(
      `${heavy} holds more than 9 bytes of files (SKILL_FOLDER_MAX_BYTES): too much to bind a call to`,
    );
    const deep = folderWith({ "x/y/z/file": "1" });
    expect(await failure(readSkillFolder(deep, { limits: { maxEntries: 10, maxBytes: 100, maxDepth: 2 } }))).toBe(`${deep} nests deeper than 2 levels: too deep to bind a call to`);
  });

  it("refuses a FIFO without blocking on it, and a folder that is a link", async () => {
    const folder = folderWith({ "run.sh": "echo\n" });
    execFileSync("mkfifo", [path.join(folder, "pipe")]);
    expect(await failure(readSkillFolder(folder))).toBe(`pipe in ${folder} is not a regular file, folder or link (a FIFO, socket or device): a skill folder may not hold one`);
    const real = folderWith({ "run.sh": "echo\n" });
    const linked = `${real}-link`;
    fs.symlinkSync(real, linked);
    expect(await failure(readSkillFolder(linked))).toBe(`the skill folder ${linked} is no longer a folder (a link or a file was put in its place)`);
  });

  it("hashes a large file exactly and lets the event loop run while it reads it (synchronous calls in bounded slices)", async () => {
    const big = Buffer.alloc(48 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4096) big[i] = i % 251;
    const folder = folderWith({ "data.bin": big, "run.sh": "echo\n" });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 0);
    try {
      const content = await readSkillFolder(folder);
      const file = content.entries.find((entry) => entry.path === "data.bin");
      expect(file).toEqual({ path: "data.bin", kind: "file", executable: false, size: big.length, sha256: createHash("sha256").update(big).digest("hex") });
    } finally {
      clearInterval(ticker);
    }
    // Reading 48 MiB and hashing it takes far longer than one 4 ms slice: timers must have fired in between.
    expect(ticks).toBeGreaterThan(0);
  });

  it("never follows a subfolder swapped for a symlink mid-walk: each read is the real content or refused", async () => {
    const folder = folderWith({ "run.sh": "echo\n", "sub/public.txt": "public\n" });
    const secret = folderWith({ "secret.txt": "the secret\n" });
    fs.symlinkSync(secret, path.join(folder, "lnk"));
    // Swaps sub between the real folder and the symlink to `secret`, as fast as it can; says "swapping"
    // once its first full cycle is done.
    const swapper = spawn(
      "python3",
      [
        "-c",
        "import os,sys\nd=sys.argv[1]\nfirst=True\nwhile True:\n  os.rename(d+'/sub',d+'/real'); os.rename(d+'/lnk',d+'/sub'); os.rename(d+'/sub',d+'/lnk'); os.rename(d+'/real',d+'/sub')\n  if first:\n    print('swapping', flush=True); first=False",
        folder,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const seen = { real: 0, refused: 0, leaked: 0 };
    try {
      await new Promise<void>((resolve, reject) => {
        let out = "";
        swapper.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes("swapping\n")) resolve();
        });
        swapper.once("error", reject);
        swapper.once("exit", (code, signal) => reject(new Error(`the swapper ended before swapping (code ${code}, signal ${signal}): ${out}`)));
      });
      for (let i = 0; i < 3000; i++) {
        try {
          const content = await readSkillFolder(folder);
          if (content.entries.some((entry) => entry.path.endsWith("secret.txt"))) seen.leaked++;
          else seen.real++;
        } catch (error) {
          if (!(error instanceof SkillFolderError)) throw error;
          seen.refused++;
        }
      }
      // Still swapping when the last read ended: every read raced it.
      expect([swapper.exitCode, swapper.signalCode]).toEqual([null, null]);
    } finally {
      swapper.kill("SIGKILL");
    }
    expect(seen.leaked).toBe(0);
    expect(seen.real + seen.refused).toBe(3000);
    // The race was really exercised: some walks met the swap and were refused.
    expect(seen.refused).toBeGreaterThan(0);
  }, 60_000);
});
