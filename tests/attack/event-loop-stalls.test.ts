/**
 * No request may stall the console's event loop, whatever its body within the limits (issue 10 point 1).
 * Measured as a concurrent client would feel it: the longest gap between ticks of a 5 ms timer while
 * the hostile request is served. Tried as an attacker would: 2.7 million `{}` in 8.1 MB (it froze the
 * console for 18 s), 600,000 keys (12.7 s), and an array of 90,000 numbers that the schema refuses
 * with `maxItems: 10` (2.7 s). The bound is generous: it catches the multi-second cases, not tens of
 * milliseconds (the benchmark measures those). Nothing may start: invalid args never start a process.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import canonicalize from "canonicalize";
import { beforeAll, describe, expect, it } from "vitest";
import * as skillCallsRoute from "@/app/api/v1/skills/[name]/calls/route";
import * as toolsCallRoute from "@/app/api/v1/tools/call/route";
import * as importRoute from "@/app/api/v1/personas/import/route";
import { db } from "@/lib/server/db";
import { digestCall } from "@/lib/server/skills/skill-digest";
import { invoke } from "../helpers/route-client";
import { worstStall } from "../helpers/stall-watch";
import { reloadTestConsole, setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { createPersonaRow } from "../api/approvals-fixtures";
import { SKILL_NAME_MAX_LENGTH } from "@/lib/validation/manifest-schema";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** Far above the tens of milliseconds the benchmark measures; far below the seconds the attacks took. */
const STALL_BOUND_MS = 1000;

let testConsole: TestConsole;
let ranMarker: string;

/** Serves `body` to the call route and measures the longest event-loop gap meanwhile. */
async function callWithStallWatch(body: string): Promise<{ status: number; error: { code: string; message: string } | null; worstGapMs: number }> {
  const { value, stallMs } = await worstStall(async () => {
    const response = await invoke(skillCallsRoute.POST, "/api/v1/skills/picky/calls", { body, params: { name: "picky" } });
    const answer = (await response.json()) as { error?: { code: string; message: string } };
    return { status: response.status, error: answer.error ?? null };
  });
  return { ...value, worstGapMs: stallMs };
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ MARKER_DIR: "" });
  process.env.MARKER_DIR = testConsole.dir;
  ranMarker = path.join(testConsole.dir, "picky-ran");
  writeSkill(
    testConsole.root,
    "picky",
    { name: "picky", env_allow: ["MARKER_DIR"], schema: { type: "object", properties: { items: { type: "array", maxItems: 10 } } } },
    'touch "$MARKER_DIR/picky-ran"; echo "{}"',
  );
});

describe("hostile call bodies", () => {
  it("refuses 2.7 million {} (8.1 MB) as too many values before parsing them, without stalling", async () => {
    const body = `{"args":{"items":[${Array(2_700_000).fill("{}").join(",")}]}}`;
    expect(body.length).toBeGreaterThan(8_000_000);
    const answer = await callWithStallWatch(body);
    expect(answer.status).toBe(413);
    expect(answer.error).toEqual({ code: "args_too_large", message: "request body has more than 100000 JSON values (SKILL_ARGS_MAX_NODES)" });
    expect(answer.worstGapMs).toBeLessThan(STALL_BOUND_MS);
  });

  it("refuses 600,000 keys the same way", async () => {
    const keys = Array.from({ length: 600_000 }, (_, i) => `"k${i}":0`).join(",");
    const answer = await callWithStallWatch(`{"args":{${keys}}}`);
    expect(answer.status).toBe(413);
    expect(answer.error?.code).toBe("args_too_large");
    expect(answer.worstGapMs).toBeLessThan(STALL_BOUND_MS);
  });

  it("refuses 90,000 numbers against maxItems 10 as invalid args, without stalling", async () => {
    const answer = await callWithStallWatch(`{"args":{"items":[${Array(90_000).fill("7").join(",")}]}}`);
    expect(answer.status).toBe(400);
    expect(answer.error).toMatchObject({ code: "invalid_args", message: "args do not match the schema of picky" });
    expect(answer.worstGapMs).toBeLessThan(STALL_BOUND_MS);
  });

  it("refuses a body nested past the depth limit as it streams in", async () => {
    const answer = await callWithStallWatch(`{"args":${"[".repeat(200)}${"]".repeat(200)}}`);
    expect(answer.status).toBe(400);
    expect(answer.error).toEqual({ code: "bad_request", message: "request body nests deeper than 130 levels" });
  });

  it("started nothing and stored no call", async () => {
    expect(fs.existsSync(ranMarker)).toBe(false);
    expect(await db().call.count({ where: { skill: "picky" } })).toBe(0);
  });
});

describe("hostile tool-call arguments", () => {
  it("refuses 20,000 unknown argument keys at once, its message bounded (a quadratic error list froze the console for 14 s)", async () => {
    const keys = Array.from({ length: 20_000 }, (_, i) => `"k${i}":0`).join(",");
    const { value: response, stallMs: worstGapMs } = await worstStall(() => invoke(toolsCallRoute.POST, "/api/v1/tools/call", { body: `{"name":"skill_search","arguments":{"query":"x",${keys}}}` }));
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; message: string; details: unknown[] } };
    expect(error.code).toBe("invalid_args");
    // The first 100 errors are kept (details), the message names 20 and counts the rest.
    expect(error.message).toMatch(/; and 80 more$/);
    expect(error.details).toHaveLength(100);
    expect(worstGapMs).toBeLessThan(STALL_BOUND_MS);
  });

  it("refuses a skill_* tool's arguments past 256 KiB before parsing them (they are parsed on the main thread)", async () => {
    const keys = Array.from({ length: 30_000 }, (_, i) => `"k${i}":0`).join(",");
    const response = await invoke(toolsCallRoute.POST, "/api/v1/tools/call", { body: `{"name":"skill_search","arguments":{"query":"x",${keys}}}` });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: unknown }).error).toEqual({ code: "args_too_large", message: "arguments of skill_search exceed 262144 bytes" });
  });
});

describe("hostile persona globs", () => {
  it("matches a many-star allow entry against a long skill name without stalling (a backtracking RegExp took seconds)", async () => {
    const longName = "a".repeat(SKILL_NAME_MAX_LENGTH);
    writeSkill(testConsole.root, "long-name", { name: longName }, 'echo "{}"');
    await reloadTestConsole();
    await createPersonaRow("starry", "dual-sign-required", ["a*a*a*a*a*a*a*a*a*a*a*a*c"]);
    const { value: response, stallMs: worstGapMs } = await worstStall(() => invoke(skillCallsRoute.POST, `/api/v1/skills/${longName}/calls`, { body: { args: {}, persona: "starry" }, params: { name: longName } }));
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(`${longName}: ${longName} is not in persona starry's skills.allow`);
    expect(worstGapMs).toBeLessThan(STALL_BOUND_MS);
  });
});

describe("hostile persona imports", () => {
  it("parses a YAML import off the main thread: 30,000 keys (the library's unique-key check is quadratic) are refused at the budget, the console serving meanwhile", async () => {
    // 20,000 keys took 1.6–2.0 s on a quiet machine, at the 2 s budget itself: 30,000 (2.25 times the
    // work, 240 KB, still under the import's 256 KiB) are past it on any machine this runs on.
    const yaml = Array.from({ length: 30_000 }, (_, i) => `k${i.toString(36)}: v`).join("\n");
    const { value: response, stallMs } = await worstStall(() =>
      invoke(importRoute.POST, "/api/v1/personas/import", { body: yaml, headers: { "content-type": "text/yaml" } }),
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: unknown }).error).toEqual({ code: "bad_request", message: "the YAML does not parse: parsing the YAML took longer than 2000 ms; it is refused" });
    expect(stallMs).toBeLessThan(STALL_BOUND_MS);
  });
});

describe("the call digest", () => {
  it("composed around the canonical args text equals the canonical JSON of the whole document", async () => {
    // The last two are hashed in slices of 1 Mi code units; in the last, a surrogate pair straddles the first slice's end.
    const cases: unknown[] = [
      {},
      { b: 1, a: [3, { z: null, y: "é\u2028" }] },
      { n: 1e21, m: 0.1, s: "\"quoted\"\n" },
      { deep: [[[[{ x: true }]]]] },
      { long: "x".repeat(3 * 1024 * 1024) },
      { long: `${"y".repeat(1024 * 1024 - 10)}\u{1F600}${"z".repeat(1024 * 1024)}` },
    ];
    for (const args of cases) {
      const canonicalArgs = canonicalize(args)!;
      let turned = false;
      setImmediate(() => (turned = true));
      const digest = digestCall("disk_usage", "s".repeat(64), canonicalArgs);
      await digest;
      // Longer args are hashed a slice per turn of the event loop: an immediate set before came first.
      expect(turned).toBe(canonicalArgs.length > 1024 * 1024);
      expect(await digest).toEqual({
        digest: sha256(canonicalize({ skill: "disk_usage", skillDigest: "s".repeat(64), args })!),
        text: canonicalize({ skill: "disk_usage", skillDigest: "s".repeat(64), args }),
      });
    }
  });
});
