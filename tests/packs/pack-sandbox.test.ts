/**
 * A pack's skill runs in the sandbox like any other (DESIGN.md "Skill packs", "Workers and the
 * sandbox"): installed under PACKS_PATH — a folder every sandbox hides — its own folder is bound back
 * from the snapshot, while the rest of the packs folder (other packs, stored versions) stays hidden.
 * Real bubblewrap, a real worker, through the HTTP API.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Call } from "@/lib/types/call";
import { setUpTestConsole, type TestConsole } from "../helpers/test-console";
import { requestCall } from "../api/approvals-fixtures";
import { enable, stageFolder, writePack } from "./pack-fixtures";

let testConsole: TestConsole;

beforeAll(async () => {
  testConsole = await setUpTestConsole({ SKILL_SANDBOX: "bwrap" });
});

describe("a pack's skill in the sandbox", () => {
  it("reads its own files and nothing else of the packs folder", async () => {
    const sources = path.join(testConsole.dir, "sources");
    const other = writePack(path.join(sources, "other"), "other", "1", { secret: { manifest: { name: "other_skill" }, files: { "secret.txt": "other pack's secret" } } });
    const reader = writePack(path.join(sources, "reader"), "reader", "1", {
      reader: {
        manifest: { name: "pack_reader", sandbox: { network: false } },
        files: { "own.txt": "own file" },
        script: [
          "cat > /dev/null",
          'own=$(cat own.txt)',
          `other=$(cat ${JSON.stringify(path.join(testConsole.dir, "packs", "installed", "other", "secret", "secret.txt"))} 2>&1 || true)`,
          `versions=$(ls ${JSON.stringify(path.join(testConsole.dir, "packs", "versions"))} 2>&1 | head -c 200 || true)`,
          'printf \'{"own": "%s", "other": "%s", "versions": "%s"}\' "$own" "$other" "$versions"',
        ].join("\n"),
      },
    });
    for (const folder of [other, reader]) expect((await enable((await stageFolder(folder)).id)).status).toBe(200);
    const response = await requestCall("pack_reader", { args: {} });
    expect(response.status).toBe(200);
    const { call } = (await response.json()) as { call: Call };
    const result = call.result as { own: string; other: string; versions: string };
    expect(result.own).toBe("own file");
    expect(result.other).not.toContain("other pack's secret");
    // Hidden: empty or not there at all, never the stored versions.
    expect(result.versions).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(fs.readFileSync(path.join(testConsole.dir, "packs", "installed", "other", "secret", "secret.txt"), "utf8")).toBe("other pack's secret");
  });
});
