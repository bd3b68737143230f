/**
 * What may change between the moment a skill is loaded and the moment a call of it is planned: the
 * entry file or its folder on disk (a hostile skill author swapping in a symlink after the loader
 * checked it), or the registry itself (a reload that changes the skill's class while the call waits for
 * a worker). And a queued call must be cancellable while it waits (DESIGN.md "Subprocess skills", policy).
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as callRoute from "@/app/api/v1/calls/[id]/route";
import * as cancelRoute from "@/app/api/v1/calls/[id]/cancel/route";
import * as skillCallsRoute from "@/app/api/v1/skills/[name]/calls/route";
import { db } from "@/lib/server/db";
import { reloadRegistry } from "@/lib/server/skills/registry";
import type { Call } from "@/lib/types/call";
import { invoke } from "../helpers/route-client";
import { reloadTestConsole, setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";

let testConsole: TestConsole;
let markers: string;
let outside: string;

async function start(skill: string, body: unknown): Promise<{ status: number; call: Call }> {
  const response = await invoke(skillCallsRoute.POST, `/api/v1/skills/${skill}/calls`, { body, params: { name: skill } });
  return { status: response.status, call: ((await response.json()) as { call: Call }).call };
}

async function fetchCall(id: string): Promise<Call> {
  return ((await (await invoke(callRoute.GET, `/api/v1/calls/${id}`, { params: { id } })).json()) as { call: Call }).call;
}

async function waitForStatus(id: string, statuses: string[], timeoutMs = 10_000): Promise<Call> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const call = await fetchCall(id);
    if (statuses.includes(call.status)) return call;
    if (Date.now() > deadline) throw new Error(`call ${id} stayed ${call.status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Occupies the only call slot until `release(name)` is called. */
async function occupySlot(name: string): Promise<{ call: Call; release: () => Promise<Call> }> {
  const { call } = await start("blocker", { args: { release: name }, wait: false });
  await waitForStatus(call.id, ["running"]);
  return {
    call,
    release: async () => {
      fs.writeFileSync(path.join(markers, name), "");
      return waitForStatus(call.id, ["succeeded", "failed"]);
    },
  };
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ SKILL_MAX_CONCURRENT_CALLS: "1", MARKER_DIR: "" });
  markers = path.join(testConsole.dir, "markers");
  outside = path.join(testConsole.dir, "outside");
  fs.mkdirSync(markers);
  fs.mkdirSync(outside);
  process.env.MARKER_DIR = markers;
  const { root } = testConsole;
  writeSkill(
    root,
    "blocker",
    { name: "blocker", env_allow: ["MARKER_DIR", "PATH"], schema: { type: "object", properties: { release: { type: "string", pattern: "^[a-z0-9]+$" } }, required: ["release"] } },
    `name=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["release"])'); while [ ! -e "$MARKER_DIR/$name" ]; do sleep 0.02; done; echo '{}'`,
  );
  writeSkill(root, "swap_file", { name: "swap_file", env_allow: ["MARKER_DIR"] }, 'echo "{}"');
  writeSkill(root, "swap_dir", { name: "swap_dir", env_allow: ["MARKER_DIR"] }, 'echo "{}"');
  writeSkill(root, "flip", { name: "flip", env_allow: ["MARKER_DIR"] }, 'touch "$MARKER_DIR/flip-ran"; echo "{}"');
  writeSkill(root, "quick", { name: "quick" }, 'echo "{}"');
  writeSkill(root, "link_chain", { name: "link_chain" }, 'echo "{}"');
  // A skill whose entry lives outside its folder (under the same root), in a folder that will be swapped.
  fs.mkdirSync(path.join(root, "shared_tools"));
  fs.writeFileSync(path.join(root, "shared_tools", "tool.sh"), '#!/bin/bash\necho "{}"\n', { mode: 0o755 });
  writeSkill(root, "outside_entry", { name: "outside_entry", entry: "../shared_tools/tool.sh" }, 'echo "{}"');
  const inside = path.join(root, "link_inside");
  writeSkill(root, "link_inside", { name: "link_inside" }, 'echo "{}"');
  fs.mkdirSync(path.join(inside, "lib", "deep"), { recursive: true });
  fs.symlinkSync("lib/deep", path.join(inside, "shortcut"));
  fs.symlinkSync("shortcut/..", path.join(inside, "up"));
  fs.symlinkSync(path.join(fs.realpathSync(inside), "lib"), path.join(inside, "absolute"));
  // What a hostile author wants the console to run instead: a file outside every allow-list root.
  fs.writeFileSync(path.join(outside, "run.sh"), '#!/bin/bash\ntouch "$MARKER_DIR/outside-ran"\necho "{}"\n', { mode: 0o755 });
  await reloadRegistry();
});

describe("the skill's folder is read again for every call", () => {
  it("refuses a call of a skill whose entry was replaced by a symlink leading outside the root, storing nothing", async () => {
    const entry = path.join(testConsole.root, "swap_file", "run.sh");
    fs.rmSync(entry);
    fs.symlinkSync(path.join(outside, "run.sh"), entry);
    const response = await invoke(skillCallsRoute.POST, "/api/v1/skills/swap_file/calls", { body: {}, params: { name: "swap_file" } });
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({
      error: { code: "conflict", message: `swap_file cannot run this call: run.sh in ${path.join(fs.realpathSync(testConsole.root), "swap_file")} is a link out of the skill's folder (to ${path.join(outside, "run.sh")}): a call cannot be bound to what it names` },
    });
    expect(await db().call.count({ where: { skill: "swap_file" } })).toBe(0);
    expect(fs.existsSync(path.join(markers, "outside-ran"))).toBe(false);
  });

  it("follows a chain of links, each of which looks inside, to where it really ends (out of the folder: refused)", async () => {
    const folder = path.join(testConsole.root, "link_chain");
    fs.mkdirSync(path.join(folder, "C"));
    fs.symlinkSync("..", path.join(folder, "C", "D"));
    fs.symlinkSync("C/D", path.join(folder, "B"));
    fs.symlinkSync("B/..", path.join(folder, "A"));
    fs.symlinkSync("A/..", path.join(folder, "E"));
    // Read as text, every link stays in the folder; followed as the kernel does, A ends one folder up.
    // (Node's JavaScript fs.realpathSync gets this wrong — it applies the ".." before following B — so
    // only the native realpath, which asks the kernel's rules of libc, is used for such checks.)
    // Precondition of the fixture (not a check of the console): A really leads out of the folder.
    expect(fs.realpathSync.native(path.join(folder, "A"))).toBe(path.dirname(fs.realpathSync.native(folder)));
    const response = await invoke(skillCallsRoute.POST, "/api/v1/skills/link_chain/calls", { body: {}, params: { name: "link_chain" } });
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({
      error: { code: "conflict", message: `link_chain cannot run this call: A in ${fs.realpathSync(folder)} is a link out of the skill's folder (to B/..): a call cannot be bound to what it names` },
    });
  });

  it("refuses an entry outside the folder whose parent folder was swapped for a link, hashing nothing there", async () => {
    const secret = path.join(testConsole.dir, "secret-tools");
    fs.mkdirSync(secret, { mode: 0o700 });
    fs.writeFileSync(path.join(secret, "tool.sh"), "#!/bin/bash\n# the-secret\necho '{}'\n", { mode: 0o700 });
    const shared = path.join(testConsole.root, "shared_tools");
    fs.renameSync(shared, `${shared}.real`);
    fs.symlinkSync(secret, shared);
    const response = await invoke(skillCallsRoute.POST, "/api/v1/skills/outside_entry/calls", { body: {}, params: { name: "outside_entry" } });
    expect(response.status).toBe(409);
    const real = path.join(fs.realpathSync(testConsole.root), "shared_tools", "tool.sh");
    expect(await response.json()).toEqual({
      error: { code: "conflict", message: `outside_entry cannot run this call: entry ${real} now resolves to ${path.join(fs.realpathSync(secret), "tool.sh")}: a folder on its path was replaced by a link` },
    });
    expect(await db().call.count({ where: { skill: "outside_entry" } })).toBe(0);
  });

  it("accepts links that really stay inside, through other links too", async () => {
    const response = await invoke(skillCallsRoute.POST, "/api/v1/skills/link_inside/calls", { body: {}, params: { name: "link_inside" } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { call: Call }).call.status).toBe("succeeded");
  });

  it("refuses a call of a skill whose folder was replaced by a symlink leading outside the root, storing nothing", async () => {
    const folder = path.join(testConsole.root, "swap_dir");
    fs.renameSync(folder, path.join(testConsole.dir, "swap_dir-moved"));
    fs.symlinkSync(outside, folder);
    const response = await invoke(skillCallsRoute.POST, "/api/v1/skills/swap_dir/calls", { body: {}, params: { name: "swap_dir" } });
    expect(response.status).toBe(409);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      `swap_dir cannot run this call: the skill folder ${path.join(fs.realpathSync(testConsole.root), "swap_dir")} is no longer a folder (a link or a file was put in its place)`,
    );
    expect(await db().call.count({ where: { skill: "swap_dir" } })).toBe(0);
    expect(fs.existsSync(path.join(markers, "outside-ran"))).toBe(false);
  });
});

describe("a queued call runs only the skill it was authorised for", () => {
  it("does not run a call whose skill became dangerous through a reload while it waited for a worker", async () => {
    const slot = await occupySlot("one");
    const { call } = await start("flip", { wait: false });
    expect(call.status).toBe("queued");
    const manifest = path.join(testConsole.root, "flip", "skill.json");
    fs.writeFileSync(manifest, JSON.stringify({ ...JSON.parse(fs.readFileSync(manifest, "utf8")), class: "dangerous" }));
    await reloadTestConsole();
    const ended = await waitForStatus(call.id, ["succeeded", "failed", "cancelled", "denied", "expired"]);
    expect(ended).toMatchObject({ status: "failed", error: "skill flip changed (loader reload) while the call was queued; it was not started, start it again", startedAt: null });
    await slot.release();
    expect(fs.existsSync(path.join(markers, "flip-ran"))).toBe(false);
  });
});

describe("cancelling a queued call", () => {
  it("ends it at once, without waiting for a slot to free", async () => {
    const slot = await occupySlot("two");
    try {
      const { call } = await start("quick", { wait: false });
      expect(call.status).toBe("queued");
      const cancel = invoke(cancelRoute.POST, `/api/v1/calls/${call.id}/cancel`, { method: "POST", params: { id: call.id } });
      const outcome = await Promise.race([cancel, new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 5000))]);
      expect(outcome).not.toBe("hung");
      const { call: cancelled } = (await (outcome as Response).json()) as { call: Call };
      expect(cancelled.status).toBe("cancelled");
      expect((await fetchCall(slot.call.id)).status).toBe("running");
    } finally {
      await slot.release();
    }
  });
});
