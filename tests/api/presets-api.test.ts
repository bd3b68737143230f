import { beforeAll, describe, expect, it } from "vitest";
import * as presetRoute from "@/app/api/v1/skills/[name]/presets/[presetId]/route";
import * as presetsRoute from "@/app/api/v1/skills/[name]/presets/route";
import type { ArgPreset } from "@/lib/types/preset";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill } from "../helpers/test-console";

const base = "/api/v1/skills/scan/presets";

function create(body: unknown, skill = "scan") {
  return invoke(presetsRoute.POST, `/api/v1/skills/${skill}/presets`, { body, params: { name: skill } });
}

async function list(skill = "scan"): Promise<ArgPreset[]> {
  return ((await (await invoke(presetsRoute.GET, `/api/v1/skills/${skill}/presets`, { params: { name: skill } })).json()) as { presets: ArgPreset[] }).presets;
}

beforeAll(async () => {
  const testConsole = await setUpTestConsole();
  writeSkill(
    testConsole.root,
    "scan",
    { name: "scan", schema: { type: "object", properties: { path: { type: "string" }, limit: { type: "integer", minimum: 1 } }, required: ["path"] } },
    'echo "{}"',
  );
});

describe("argument presets", () => {
  it("saves named presets that everyone lists, sorted by name, with the exact args", async () => {
    const saved = await create({ name: "  var log  ", args: { path: "/var/log", limit: 5 } });
    expect(saved.status).toBe(201);
    const { preset } = (await saved.json()) as { preset: ArgPreset };
    expect(preset).toMatchObject({ skill: "scan", name: "var log", args: { path: "/var/log", limit: 5 }, createdBy: "admin@console.local" });
    expect((await create({ name: "empty limit", args: { path: "", limit: 1 } })).status).toBe(201);
    expect((await list()).map((entry) => [entry.name, entry.args])).toEqual([
      ["empty limit", { path: "", limit: 1 }],
      ["var log", { path: "/var/log", limit: 5 }],
    ]);
  });

  it("refuses args the skill's schema refuses, a taken name, a bad name, unknown fields and unknown skills", async () => {
    const invalid = await create({ name: "bad", args: { limit: 0 } });
    expect(invalid.status).toBe(400);
    const body = (await invalid.json()) as { error: { code: string; details: Array<{ keyword: string }> } };
    expect(body.error.code).toBe("invalid_args");
    expect(body.error.details.map((detail) => detail.keyword).sort()).toEqual(["minimum", "required"]);

    const taken = await create({ name: "var log", args: { path: "/tmp" } });
    expect(taken.status).toBe(409);
    expect(await taken.json()).toEqual({ error: { code: "conflict", message: 'scan already has a preset named "var log"' } });

    expect((await create({ name: "", args: { path: "/" } })).status).toBe(400);
    expect((await create({ name: "x".repeat(101), args: { path: "/" } })).status).toBe(400);
    expect((await create({ name: "tab\there", args: { path: "/" } })).status).toBe(400);
    const typo = await create({ name: "typo", argz: { path: "/" } });
    expect(typo.status).toBe(400);
    expect(((await typo.json()) as { error: { message: string } }).error.message).toBe('unknown field "argz"; a preset has name, args');
    expect((await create({ name: "ghost", args: {} }, "ghost")).status).toBe(404);
    expect((await list()).map((entry) => entry.name)).toEqual(["empty limit", "var log"]);
  });

  it("refuses a preset's args past 64 KiB before parsing them, and a skill's 101st preset", async () => {
    const big = await create({ name: "big", args: { path: "x".repeat(64 * 1024) } });
    expect(big.status).toBe(413);
    expect(await big.json()).toEqual({ error: { code: "args_too_large", message: "a preset's args may be at most 65536 bytes (these are 65547); a call's may be larger" } });
    const before = (await list()).length;
    for (let i = before; i < 100; i++) expect((await create({ name: `p${String(i).padStart(3, "0")}`, args: { path: "/" } })).status).toBe(201);
    const over = await create({ name: "one too many", args: { path: "/" } });
    expect(over.status).toBe(409);
    expect(await over.json()).toEqual({ error: { code: "conflict", message: "scan has 100 presets, the most a skill may have; delete one first" } });
    for (const preset of await list()) if (/^p\d{3}$/.test(preset.name)) await invoke(presetRoute.DELETE, `${base}/${preset.id}`, { method: "DELETE", params: { name: "scan", presetId: preset.id } });
    expect((await list()).length).toBe(before);
  });

  it("renames, replaces args and deletes a preset", async () => {
    const [first] = await list();
    const renamed = await invoke(presetRoute.PUT, `${base}/${first!.id}`, { method: "PUT", body: { name: "root", args: { path: "/" } }, params: { name: "scan", presetId: first!.id } });
    expect(renamed.status).toBe(200);
    expect(((await renamed.json()) as { preset: ArgPreset }).preset).toMatchObject({ id: first!.id, name: "root", args: { path: "/" } });

    const clash = await invoke(presetRoute.PUT, `${base}/${first!.id}`, { method: "PUT", body: { name: "var log" }, params: { name: "scan", presetId: first!.id } });
    expect(clash.status).toBe(409);
    const invalid = await invoke(presetRoute.PUT, `${base}/${first!.id}`, { method: "PUT", body: { args: { path: 7 } }, params: { name: "scan", presetId: first!.id } });
    expect(invalid.status).toBe(400);

    const deleted = await invoke(presetRoute.DELETE, `${base}/${first!.id}`, { method: "DELETE", params: { name: "scan", presetId: first!.id } });
    expect(deleted.status).toBe(200);
    expect((await list()).map((entry) => entry.name)).toEqual(["var log"]);
    const again = await invoke(presetRoute.DELETE, `${base}/${first!.id}`, { method: "DELETE", params: { name: "scan", presetId: first!.id } });
    expect(again.status).toBe(404);
  });

  it("does not let a preset id be used through another skill's path", async () => {
    const [preset] = await list();
    const response = await invoke(presetRoute.DELETE, `/api/v1/skills/other/presets/${preset!.id}`, { method: "DELETE", params: { name: "other", presetId: preset!.id } });
    expect(response.status).toBe(404);
    expect(await list()).toHaveLength(1);
  });
});
