/**
 * PACKS_PATH named through a symbolic link (a data volume mounted elsewhere): the loaders hold real
 * paths, so every pack check compares real paths too — an update of a pack is not refused as taking
 * over its own skills, and a skill changed on disk is refused, not waved through as "not a pack's".
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { getRegistry } from "@/lib/server/skills/registry";
import { folderOfSkill } from "@/lib/server/skills/registered-skill";
import { setUpTestConsole, type TestConsole } from "../helpers/test-console";
import { requestCall } from "../api/approvals-fixtures";
import { enable, stageFolder, writePack } from "./pack-fixtures";

let testConsole: TestConsole;
let realPacks: string;

beforeAll(async () => {
  const linkDir = fs.mkdtempSync(path.join(fs.realpathSync("/tmp"), "skill-console-packs-link-"));
  realPacks = path.join(linkDir, "real-packs");
  fs.mkdirSync(realPacks);
  fs.symlinkSync(realPacks, path.join(linkDir, "packs"));
  testConsole = await setUpTestConsole({ PACKS_PATH: path.join(linkDir, "packs") });
});

describe("PACKS_PATH through a link", () => {
  it("updates a pack in place and refuses its skill once changed on disk", async () => {
    const sources = path.join(testConsole.dir, "sources");
    const v1 = await stageFolder(writePack(path.join(sources, "v1"), "linked", "1", { a: { manifest: { name: "linked_a" } } }));
    expect((await enable(v1.id)).status).toBe(200);
    expect(folderOfSkill((await getRegistry()).get("linked_a")!)).toBe(path.join(realPacks, "installed", "linked", "a"));
    const v2 = await stageFolder(writePack(path.join(sources, "v2"), "linked", "2", { a: { manifest: { name: "linked_a" }, script: `cat > /dev/null; echo '{"v": 2}'` } }));
    expect(v2.skills.map((skill) => [skill.name, skill.change])).toEqual([["linked_a", "changed"]]);
    expect((await enable(v2.id)).status).toBe(200);
    const ran = await requestCall("linked_a", { args: {} });
    expect(ran.status, await ran.clone().text()).toBe(200);
    fs.appendFileSync(path.join(realPacks, "installed", "linked", "a", "run.sh"), "# changed\n");
    expect((await requestCall("linked_a", { args: {} })).status).toBe(409);
  });
});
