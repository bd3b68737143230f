import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { addSkill, load, makeTempDir, writeManifest } from "./loader-fixtures";

const registered = (name: string, manifest: string) => `skill loader: registered subprocess skill "${name}" from ${manifest}`;
const duplicate = (name: string, manifest: string) => `skill loader: skill "${name}" already registered, skipping ${manifest}`;
const parseMessage = (text: string) => {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${text} parses`);
};

describe("subprocess loader: a root's manifests read before any is settled, settled in walk order", () => {
  it("reads every manifest of a root before registering the first (so a manifest changed after an earlier one is registered keeps what was read)", async () => {
    const root = makeTempDir();
    const first = addSkill(root, "a", { name: "first" });
    const second = addSkill(root, "b", { name: "second" });
    const lines: string[] = [];
    // When "first" is registered, "second" has already been read: it was examined alongside "first".
    // A one-by-one loader reads "second" only now, after this sink has broken it.
    const { report } = await load([root], {
      log: (line) => {
        lines.push(line);
        if (line === registered("first", first)) fs.writeFileSync(second, "{ broken");
      },
    });
    expect(report.log).toEqual([registered("first", first), registered("second", second)]);
    expect(lines).toEqual(report.log);
    expect(report.count).toBe(2);
  });

  it("keeps the one-by-one order of every line, the first-wins choice and the report over many folders", async () => {
    const root = makeTempDir();
    const other = makeTempDir();
    const expected: string[] = [];
    const names: string[] = [];
    const failedPaths: string[] = [];
    // 3 × 25 skill folders (more than the read-ahead and the concurrency), lexical order = creation order.
    for (let group = 0; group < 3; group++) {
      for (let index = 0; index < 25; index++) {
        const folder = `g${group}/s${String(index).padStart(2, "0")}`;
        const n = group * 25 + index;
        if (index === 12) {
          // A folder past the depth limit, walked before this folder's skill.json ("deep" < "skill.json"):
          // its line comes between the previous manifest's lines and this one's.
          fs.mkdirSync(path.join(root, folder, "deep", "deeper"), { recursive: true });
          expected.push(`skill loader: not descending into ${path.join(root, folder, "deep", "deeper")}: deeper than 3 levels below ${root}`);
        }
        if (n % 11 === 3) {
          const text = `{"name": "broken_${n}",`;
          const file = writeManifest(path.join(root, folder), text);
          expected.push(`skill loader: parse ${file}: ${parseMessage(text)}`);
          failedPaths.push(file);
        } else if (n % 13 === 5) {
          const file = writeManifest(path.join(root, folder), { name: `no_entry_${n}`, description: "x", entry: "missing.sh" });
          expected.push(`skill loader: build "no_entry_${n}": entry ${path.join(root, folder, "missing.sh")} does not exist`);
          failedPaths.push(file);
        } else if (n % 7 === 6) {
          // The name of the very first skill: first wins.
          const file = addSkill(root, folder, { name: "skill_0" });
          expected.push(duplicate("skill_0", file));
        } else if (n % 17 === 9) {
          const file = addSkill(root, folder, { name: `skill_${n}`, extra: true });
          expected.push(registered(`skill_${n}`, file), `skill loader: warning "skill_${n}" in ${file}: unknown field "extra" in skill.json ignored`);
          names.push(`skill_${n}`);
        } else {
          const file = addSkill(root, folder, { name: `skill_${n}` });
          expected.push(registered(`skill_${n}`, file));
          names.push(`skill_${n}`);
        }
      }
    }
    // A second root: its first manifest's name was taken in the first root.
    const late = addSkill(other, "x", { name: "skill_0" });
    expected.push(duplicate("skill_0", late));

    const result = await load([root, other], { walkLimits: { maxDepth: 3, maxEntries: 100_000 } });
    expect(result.report.log).toEqual(expected);
    expect(result.skills.map((skill) => skill.name)).toEqual(names);
    expect(result.report.failed.map((entry) => entry.path)).toEqual(failedPaths);
    expect(result.report.count).toBe(names.length);
    // Same result again (deterministic).
    const again = await load([root, other], { walkLimits: { maxDepth: 3, maxEntries: 100_000 } });
    expect(again.report.log).toEqual(expected);
  });
});
