/**
 * What may change between the moment a call is accepted and the moment its process is spawned: the
 * entry file or its folder on disk (a hostile skill author swapping in a symlink after the loader
 * checked it), or the registry itself (a reload that changes the skill's class while the call waits for
 * a slot). And a queued call must be cancellable while it waits (DESIGN.md "Subprocess skills", policy).
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as callRoute from "@/app/api/v1/calls/[id]/route";
import * as cancelRoute from "@/app/api/v1/calls/[id]/cancel/route";
import * as skillCallsRoute from "@/app/api/v1/skills/[name]/calls/route";
import { reloadRegistry } from "@/lib/server/skills/registry";
import type { Call } from "@/lib/types/call";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";

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
  // What a hostile author wants the console to run instead: a file outside every allow-list root.
  fs.writeFileSync(path.join(outside, "run.sh"), '#!/bin/bash\ntouch "$MARKER_DIR/outside-ran"\necho "{}"\n', { mode: 0o755 });
  await reloadRegistry();
});

describe("the entry is checked again just before it is spawned", () => {
  it("refuses to run an entry replaced by a symlink leading outside the root after the loader checked it", async () => {
    const entry = path.join(testConsole.root, "swap_file", "run.sh");
    fs.rmSync(entry);
    fs.symlinkSync(path.join(outside, "run.sh"), entry);
    const { call } = await start("swap_file", {});
    expect(call.status).toBe("failed");
    expect(call.error).toMatch(/escapes allowlist root/);
    expect(fs.existsSync(path.join(markers, "outside-ran"))).toBe(false);
  });

  it("refuses to run when the skill's folder was replaced by a symlink leading outside the root", async () => {
    const folder = path.join(testConsole.root, "swap_dir");
    fs.renameSync(folder, path.join(testConsole.dir, "swap_dir-moved"));
    fs.symlinkSync(outside, folder);
    const { call } = await start("swap_dir", {});
    expect(call.status).toBe("failed");
    expect(call.error).toMatch(/escapes allowlist root/);
    expect(fs.existsSync(path.join(markers, "outside-ran"))).toBe(false);
  });
});

describe("a queued call runs only the skill it was authorised for", () => {
  it("does not run a call whose skill became dangerous through a reload while it waited for a slot", async () => {
    const slot = await occupySlot("one");
    const { call } = await start("flip", { wait: false });
    expect(call.status).toBe("queued");
    const manifest = path.join(testConsole.root, "flip", "skill.json");
    fs.writeFileSync(manifest, JSON.stringify({ ...JSON.parse(fs.readFileSync(manifest, "utf8")), class: "dangerous" }));
    await reloadRegistry();
    await slot.release();
    const ended = await waitForStatus(call.id, ["succeeded", "failed", "cancelled", "denied", "expired"]);
    expect(ended.status).toBe("failed");
    expect(ended.error).toMatch(/changed/);
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
