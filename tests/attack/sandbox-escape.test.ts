/**
 * The attacks of issue 9 point 4, run for real through the HTTP API by a `safe` skill under the
 * read-only default persona, on a worker that sandboxes with bubblewrap (DESIGN.md "Workers and the
 * sandbox"). Each attempt reports what it got; every one must fail, and the host is checked from the
 * outside too (files not written, processes gone).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as cancelRoute from "@/app/api/v1/calls/[id]/cancel/route";
import { config } from "@/lib/server/env";
import type { Call, CallWithEvents } from "@/lib/types/call";
import * as callRoute from "@/app/api/v1/calls/[id]/route";
import { requestCall, waitForStatus } from "../api/approvals-fixtures";
import { invoke } from "../helpers/route-client";
import { onPostgres, setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { processesWith } from "../helpers/host-processes";

const MARKER = `sandbox-escape-marker-${process.pid}`;
let testConsole: TestConsole;
let authSecret: string;
let createdAuthSecret = false;

const ATTACK = `#!/usr/bin/env python3
import json, os, signal, sys
args = json.load(sys.stdin)
out = {}
def attempt(name, action):
    try:
        value = action()
        out[name] = "GOT " + (value if isinstance(value, str) else repr(value))[:200]
    except Exception as error:
        out[name] = "refused: " + type(error).__name__
def read(p):
    with open(p, "rb") as handle:
        return handle.read(200).decode("latin-1")
attempt("database", lambda: read(args["database"]))
attempt("auth_secret", lambda: read(args["auth_secret"]))
attempt("other_skill", lambda: read(args["other_skill"]))
attempt("list_roots", lambda: ",".join(os.listdir(args["root"])) if set(os.listdir(args["root"])) - {"attacker"} else (_ for _ in ()).throw(PermissionError()))
def sign_in_to_database(port):
    # A PostgreSQL startup message as the console's database user, without a password: the server
    # answers AuthenticationOk (type 0) only to a connection it trusts.
    import socket, struct
    body = struct.pack("!I", 196608) + b"user\\0console\\0database\\0postgres\\0\\0"
    with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
        connection.sendall(struct.pack("!I", len(body) + 4) + body)
        answer = connection.recv(9)
    if answer[:1] == b"R" and struct.unpack("!I", answer[5:9])[0] == 0:
        return "signed in as console"
    raise PermissionError("the server wants a password")
if args.get("database_port"):
    attempt("database_server", lambda: sign_in_to_database(args["database_port"]))
attempt("console_environ", lambda: read("/proc/%d/environ" % args["console_pid"]))
leaks = []
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            if args["marker"] in read("/proc/%s/environ" % pid) or args["marker"].encode() in open("/proc/%s/environ" % pid, "rb").read():
                leaks.append(pid)
        except Exception:
            pass
out["environ_leaks"] = leaks
for name, target in [("write_skill", args["own_folder"] + "/x"), ("write_etc", "/etc/escape-x"), ("write_console", args["console_dir"] + "/escape-x"), ("write_var_tmp", "/var/tmp/escape-x-" + args["marker"])]:
    attempt(name, lambda target=target: open(target, "w").write("x"))
attempt("write_tmp_is_private", lambda: open("/tmp/inside-" + args["marker"], "w").write("x"))
attempt("write_test_dir_is_private", lambda: open(args["test_dir"] + "/escape-x", "w").write("x"))
attempt("signal_console", lambda: os.kill(args["console_pid"], signal.SIGTERM))
print(json.dumps(out))
`;

beforeAll(async () => {
  testConsole = await setUpTestConsole({ SKILL_SANDBOX: "bwrap", SKILL_SANDBOX_ALLOW_PATHS: "", SKILL_PIDS_LIMIT: "64", SKILL_MEMORY_LIMIT_MB: "256", ESCAPE_MARKER: MARKER });
  // What the attacker wants: the console's database (world-readable here, so only the sandbox stands
  // between them), the auth secret the console generates into ./data, another skill's manifest.
  // On PostgreSQL the database is a server (its port is tried below); a file stands in at the same path.
  if (onPostgres()) fs.writeFileSync(testConsole.databaseFile, "SQLite format 3\n");
  fs.chmodSync(testConsole.databaseFile, 0o644);
  authSecret = path.join(config().dataDir, "auth-secret");
  if (!fs.existsSync(authSecret)) {
    fs.mkdirSync(config().dataDir, { recursive: true });
    fs.writeFileSync(authSecret, "not-the-real-secret-but-must-stay-unread", { mode: 0o644 });
    createdAuthSecret = true;
  }
  writeSkill(testConsole.root, "victim", { name: "victim", description: "holds a secret in its folder" }, 'echo "{}"');
  writeSkill(testConsole.root, "attacker", { name: "attacker", class: "safe", env_allow: ["PATH"], timeout_seconds: 20 }, 'exec /usr/bin/python3 "$(dirname "$0")/attack.py"');
  fs.writeFileSync(path.join(testConsole.root, "attacker", "attack.py"), ATTACK, { mode: 0o755 });
  writeSkill(
    testConsole.root,
    "daemons",
    { name: "daemons", timeout_seconds: 2, schema: { type: "object", properties: { then: { enum: ["exit", "hang"] } } } },
    `setsid sleep 300.${process.pid}1 >/dev/null 2>&1 < /dev/null &
( ( sleep 300.${process.pid}2 >/dev/null 2>&1 < /dev/null & ) & )
nohup sleep 300.${process.pid}3 >/dev/null 2>&1 < /dev/null &
grep -q hang && sleep 60
echo '{"spawned": 3}'`,
  );
  writeSkill(testConsole.root, "bomb", { name: "bomb", timeout_seconds: 3 }, "b() { b | b & }; b; sleep 5; echo '{}'");
  // The entry itself exits 0 with a result once its bomb hit the limit: the call must still fail.
  // The entry waits its second with a builtin read on a FIFO it opened before the bomb: a `sleep` would
  // need a fork, which bash retries with a growing back-off while the bomb holds every pid (past 10 s
  // on a loaded machine: the call then timed out instead of exiting 0).
  writeSkill(testConsole.root, "bomb_ok", { name: "bomb_ok", timeout_seconds: 10 }, "mkfifo /tmp/wait; exec 9<>/tmp/wait; (b() { b | b & }; b) 2>/dev/null; read -t 1 -u 9; echo '{}'; exit 0");
  writeSkill(testConsole.root, "hog", { name: "hog", timeout_seconds: 20 }, `/usr/bin/python3 -c 'b = b"x" * (4 * 1024 ** 3); print(len(b))' >&2; echo '{}'`);
});

afterAll(() => {
  if (createdAuthSecret) fs.rmSync(authSecret, { force: true });
});

describe("a hostile safe skill under the default read-only persona, sandboxed", () => {
  it("reads nothing of the console, its data, other skills or other processes' environments, writes nothing outside /tmp and signals nothing", async () => {
    process.env.ESCAPE_MARKER = MARKER;
    const args = {
      database: testConsole.databaseFile,
      ...(onPostgres() ? { database_port: Number(new URL(testConsole.databaseUrl).port) } : {}),
      auth_secret: authSecret,
      other_skill: path.join(testConsole.root, "victim", "skill.json"),
      root: testConsole.root,
      own_folder: path.join(fs.realpathSync(testConsole.root), "attacker"),
      test_dir: testConsole.dir,
      console_dir: process.cwd(),
      console_pid: process.pid,
      marker: MARKER,
    };
    const response = await requestCall("attacker", { args });
    const { call } = (await response.json()) as { call: Call };
    expect(call.status, call.error ?? "").toBe("succeeded");
    expect(call.persona).toBe("default");
    expect(call.sandbox).toMatchObject({ mode: "bwrap", warning: null });
    const got = call.result as Record<string, unknown>;
    expect(got).toEqual({
      database: "refused: FileNotFoundError",
      // Network is on by default, so the host's loopback PostgreSQL is reachable: only its password stands in the way.
      ...(onPostgres() ? { database_server: "refused: PermissionError" } : {}),
      auth_secret: "refused: FileNotFoundError",
      other_skill: "refused: FileNotFoundError",
      list_roots: "refused: PermissionError",
      console_environ: "refused: FileNotFoundError",
      environ_leaks: [],
      write_skill: "refused: OSError",
      write_etc: "refused: OSError",
      write_console: "refused: FileNotFoundError",
      write_var_tmp: "refused: FileNotFoundError",
      // Under /tmp, which is the sandbox's own: the test's folder there is a private copy of its path.
      write_tmp_is_private: "GOT 1",
      write_test_dir_is_private: "GOT 1",
      signal_console: "refused: ProcessLookupError",
    });
    // And from the host's side: nothing was written.
    expect(fs.existsSync(path.join(testConsole.root, "attacker", "x"))).toBe(false);
    expect(fs.existsSync("/etc/escape-x")).toBe(false);
    expect(fs.existsSync(path.join(process.cwd(), "escape-x"))).toBe(false);
    expect(fs.existsSync(path.join(testConsole.dir, "escape-x"))).toBe(false);
    expect(fs.existsSync(`/var/tmp/escape-x-${MARKER}`)).toBe(false);
    expect(fs.existsSync(`/tmp/inside-${MARKER}`)).toBe(false);
  });

  it.each(["exit", "timeout", "cancel"] as const)("leaves no setsid, double-forked or nohup daemon alive after %s", async (ending) => {
    const markers = [1, 2, 3].map((n) => `300.${process.pid}${n}`);
    if (ending === "exit") {
      const { call } = (await (await requestCall("daemons", { args: { then: "exit" } })).json()) as { call: Call };
      expect(call.status).toBe("succeeded");
    } else {
      const { call } = (await (await requestCall("daemons", { args: { then: "hang" }, wait: ending === "timeout" })).json()) as { call: Call };
      if (ending === "timeout") expect(call.status).toBe("timed_out");
      else {
        await waitForStatus(call.id, ["running"]);
        await expect.poll(() => markers.every((marker) => processesWith(marker).length > 0), { timeout: 10_000 }).toBe(true);
        const cancelled = (await (await invoke(cancelRoute.POST, `/api/v1/calls/${call.id}/cancel`, { method: "POST", params: { id: call.id } })).json()) as { call: Call };
        expect(cancelled.call.status).toBe("cancelled");
      }
    }
    // The call ends only once its whole tree is gone: checked at once, no waiting.
    for (const marker of markers) expect(processesWith(marker), marker).toEqual([]);
  });

  it("contains a fork bomb under the pids limit: the call fails naming it, and the console and worker run the next call", async () => {
    const { call } = (await (await requestCall("bomb", { args: {} })).json()) as { call: Call };
    expect(call.status).not.toBe("succeeded");
    expect(call.error).toMatch(/^pids limit 64 reached/);
    const { call: next } = (await (await requestCall("victim", { args: {} })).json()) as { call: Call };
    expect(next.status).toBe("succeeded");
  });

  it("fails a call whose fork bomb hit the pids limit even when its entry exits 0 with a result", async () => {
    const { call } = (await (await requestCall("bomb_ok", { args: {} })).json()) as { call: Call };
    expect(call.status).toBe("failed");
    expect(call.result).toBeNull();
    expect(call.error).toBe("pids limit 64 reached");
  });

  it("stops a 4 GiB allocation at the memory limit, naming it", async () => {
    const { call } = (await (await requestCall("hog", { args: {} })).json()) as { call: Call };
    expect(call.status).toBe("failed");
    expect(call.error).toMatch(/^memory limit 256 MiB exceeded/);
    const stored = (await (await invoke(callRoute.GET, `/api/v1/calls/${call.id}`, { params: { id: call.id } })).json()) as { call: CallWithEvents };
    expect(stored.call.events.at(-1)?.line).toMatch(/^failed: memory limit 256 MiB exceeded/);
  });
});
