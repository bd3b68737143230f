/**
 * SQLite is one console's database (issue 10 point 2): scripts/start.mjs takes the file's lock before
 * migrating and hands it to the server. A second console on the same file is refused, naming the first;
 * whatever name the file is reached by; the lock lives as long as any holder (the launcher killed -9
 * leaves it with the server), and is free once every holder is gone. Real processes and a real kernel lock.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const SCRIPTS = path.resolve(__dirname, "../../scripts");
const temp = fs.mkdtempSync(path.join(os.tmpdir(), "console-lock-"));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  fs.rmSync(temp, { recursive: true, force: true });
});

/**
 * A process that takes the lock of `databaseUrl` like start.mjs and prints its first line: "locked" or
 * the refusal. With `handOff`, it then starts a child holding the lock's pipe (as start.mjs starts the
 * server) and prints that child's pid.
 */
function locker(databaseUrl: string, handOff = false): Promise<{ child: ChildProcess; lines: string[] }> {
  const script = `
    import { spawn } from "node:child_process";
    const { lockConsoleDatabase } = await import(${JSON.stringify(path.join(SCRIPTS, "console-lock.mjs"))});
    let lock;
    try { lock = await lockConsoleDatabase(${JSON.stringify(databaseUrl)}, { url: "http://127.0.0.1:3999" }); } catch (error) { console.log(error.message); process.exit(3); }
    console.log("locked");
    if (${handOff}) {
      const server = spawn("sleep", ["600"], { stdio: ["ignore", "ignore", "ignore", "ignore", lock.pipe], detached: true });
      console.log(String(server.pid));
    }
    setInterval(() => undefined, 1000);`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  return new Promise((resolve) => {
    let text = "";
    const wanted = handOff ? 2 : 1;
    child.stdout!.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const lines = text.split("\n").filter(Boolean);
      if (lines.length >= wanted || (lines[0] !== undefined && lines[0] !== "locked")) resolve({ child, lines });
    });
  });
}

/** locker(), tried again every `everyMs` while refused, at most `tries` times: the last locker. */
async function lockerOnceFree(databaseUrl: string, tries: number, everyMs: number): Promise<{ child: ChildProcess; lines: string[] }> {
  let attempt = await locker(databaseUrl);
  for (let tried = 0; attempt.lines[0] !== "locked" && tried < tries; tried++) {
    await exited(attempt.child);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
    attempt = await locker(databaseUrl);
  }
  return attempt;
}

function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

describe("the one-console lock of a SQLite file", () => {
  it("refuses a second console, naming the first, and is free again once every holder is gone", async () => {
    const url = `file:${path.join(temp, "a", "console.db")}`;
    const first = await locker(url, true);
    expect(first.lines[0]).toBe("locked");
    const serverPid = Number(first.lines[1]);

    const second = await locker(url);
    expect(second.lines[0]).toMatch(
      new RegExp(
        `^the database ${path.join(temp, "a", "console.db").replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} is in use by the console started by pid ${first.child.pid} \\(http://127\\.0\\.0\\.1:3999, since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z, in .+\\)\\. A SQLite database serves one console: stop that one, or give this one its own DATABASE_URL \\(several consoles on one database need a postgresql:\\/\\/ DATABASE_URL\\)\\.$`,
      ),
    );
    expect(await exited(second.child)).toBe(3);
    // Another name of the same file (a symlinked folder, a hard link) meets the same lock.
    fs.symlinkSync(path.join(temp, "a"), path.join(temp, "alias"));
    fs.linkSync(path.join(temp, "a", "console.db"), path.join(temp, "hard-link.db"));
    for (const other of [`file:${path.join(temp, "alias", "console.db")}`, `file:${path.join(temp, "a", "..", "a", "console.db")}`]) {
      const refused = await locker(other);
      expect(refused.lines[0]).toContain(`the database ${path.join(temp, "a", "console.db")} is in use by the console started by pid ${first.child.pid} `);
      expect(await exited(refused.child)).toBe(3);
    }
    // A hard link has no name in common with the first: refused all the same, its holder named from
    // the name the kernel says it locked.
    const linked = await locker(`file:${path.join(temp, "hard-link.db")}`);
    expect(linked.lines[0]).toContain(`the database ${path.join(temp, "hard-link.db")} is in use by the console started by pid ${first.child.pid} (http://127.0.0.1:3999, since `);
    expect(await exited(linked.child)).toBe(3);

    // The launcher dies by kill -9: the server it handed the lock to still holds it.
    first.child.kill("SIGKILL");
    await exited(first.child);
    const third = await locker(url);
    expect(third.lines[0]).toMatch(/ is in use by the console started by pid /);
    expect(await exited(third.child)).toBe(3);

    // The server ends too: nothing holds the lock any more.
    process.kill(serverPid, "SIGKILL");
    // The kernel lets go once the holder's `cat` has read the end of its pipe and exited.
    const fourth = await lockerOnceFree(url, 50, 100);
    expect(fourth.lines[0]).toBe("locked");
  });

  it("is taken again when its holder process is killed, and the console is told to stop when another took it meanwhile", async () => {
    const file = path.join(temp, "watched", "console.db");
    const url = `file:${file}`;
    const holderPid = () => {
      const inode = fs.statSync(file).ino;
      const line = fs
        .readFileSync("/proc/locks", "utf8")
        .split("\n")
        .find((entry) => entry.trim().split(/\s+/)[1] === "FLOCK" && entry.trim().split(/\s+/)[5]!.endsWith(`:${inode}`));
      return line ? Number(line.trim().split(/\s+/)[4]) : null;
    };
    // The lock is held by flock(1) and the `cat` it runs (both have the file open); killing the `cat`
    // ends flock too, and the lock goes.
    const killHolder = () => {
      const pid = holderPid()!;
      const cat = Number(fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/)[0]);
      expect(fs.readFileSync(`/proc/${cat}/comm`, "utf8").trim()).toBe("cat");
      process.kill(cat, "SIGKILL");
      return pid;
    };
    // A launcher takes the lock and hands its pipe to a "server" that watches it as console-server.mjs does.
    const watcherScript = (everyMs: number) => `
      const { watchConsoleLock } = await import(${JSON.stringify(path.join(SCRIPTS, "console-lock.mjs"))});
      watchConsoleLock({ fd: 4, databaseUrl: ${JSON.stringify(url)}, who: { url: "http://watcher" }, everyMs: ${everyMs},
        onRetaken: () => console.log("retaken"), onLost: (error) => console.log("lost: " + error.message) });
      console.log("watching");
      setInterval(() => undefined, 1000);`;
    const launch = async (everyMs: number) => {
      const { lockConsoleDatabase } = (await import(path.join(SCRIPTS, "console-lock.mjs"))) as { lockConsoleDatabase: (url: string, who: { url: string }) => Promise<{ pipe: unknown; release(): void }> };
      const lock = await lockConsoleDatabase(url, { url: "http://launcher" });
      const server = spawn(process.execPath, ["--input-type=module", "-e", watcherScript(everyMs)], { stdio: ["ignore", "pipe", "inherit", "ignore", lock.pipe as never] });
      children.push(server);
      // This test process is the launcher: it lets its own copy go, as start.mjs's dies with the server.
      (lock.pipe as { destroy(): void }).destroy();
      const lines: string[] = [];
      const next = (wanted: string) =>
        new Promise<string>((resolve) => {
          const check = () => {
            const found = lines.find((line) => line.startsWith(wanted));
            if (found) resolve(found);
            else server.stdout!.once("data", (chunk: Buffer) => (lines.push(...chunk.toString().split("\n").filter(Boolean)), check()));
          };
          check();
        });
      await next("watching");
      return { server, next };
    };

    const watched = await launch(100);
    const first = killHolder();
    expect(await watched.next("retaken")).toBe("retaken");
    const again = holderPid();
    expect(again).not.toBeNull();
    expect(again).not.toBe(first);
    const refused = await locker(url);
    expect(refused.lines[0]).toContain(`is in use by the console started by pid ${watched.server.pid} (http://watcher, since `);
    watched.server.kill("SIGKILL");
    await exited(watched.server);

    // Its holder killed while it waits between probes, another console takes the file first: it is told.
    const free = await lockerOnceFree(url, 50, 100);
    free.child.kill("SIGKILL");
    await exited(free.child);
    for (let attempt = 0; holderPid() !== null && attempt < 50; attempt++) await new Promise((resolve) => setTimeout(resolve, 100));
    const slow = await launch(3000);
    killHolder();
    const other = await lockerOnceFree(url, 20, 50);
    expect(other.lines[0]).toBe("locked");
    expect(await slow.next("lost: ")).toMatch(new RegExp(`^lost: the database .+ is in use by the console started by pid ${other.child.pid} `));
  }, 30_000);

  it("locks nothing for a database that is not a SQLite file", async () => {
    const { lockConsoleDatabase } = (await import(path.join(SCRIPTS, "console-lock.mjs"))) as { lockConsoleDatabase: (url: string, who: { url: string }) => Promise<unknown> };
    expect(await lockConsoleDatabase("postgresql://db.example/console", { url: "http://x" })).toBeNull();
  });
});
