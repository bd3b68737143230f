/**
 * Attacks on skill packs found by the review of the first cut (issue 13), each closed for its whole
 * kind and kept here: a pack taking over another pack's skill at enabling, a pack's subprocess skill
 * shadowing a native skill of the skills path, files a pack's skills share changed without a second
 * admin (in an update, or on disk), a repository's `.git` in an upload, and a local git source that is
 * the console's own folder. Real folders, loaders and calls; the worker runs without the sandbox, as
 * `SKILL_SANDBOX=none` would (the sandbox hides the packs folder from skills).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/server/db";
import { getRegistry } from "@/lib/server/skills/registry";
import { folderOfSkill } from "@/lib/server/skills/registered-skill";
import type { Call } from "@/lib/types/call";
import type { Pack } from "@/lib/types/pack";
import { reloadTestConsole, setUpTestConsole, writeNativeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, signIn, TEST_ADMIN, type TestPerson } from "../helpers/test-people";
import { createPersonaRow, requestCall, sign } from "../api/approvals-fixtures";
import { enable, git, stage, stageFolder, upload, writePack } from "./pack-fixtures";

let testConsole: TestConsole;
let sources: string;
let secondAdmin: TestPerson;

beforeAll(async () => {
  testConsole = await setUpTestConsole();
  sources = path.join(testConsole.dir, "sources");
  fs.mkdirSync(sources);
  secondAdmin = await createPerson("admin", "attack-second-admin");
  await createPersonaRow("two-person", "dual-sign-required");
});

async function errorOf(response: Response): Promise<{ status: number; message: string }> {
  return { status: response.status, message: ((await response.json()) as { error: { message: string } }).error.message };
}

async function enableWithSecondAdmin(id: string): Promise<void> {
  const asked = await enable(id);
  if (asked.status === 200) return;
  expect(asked.status).toBe(202);
  const { approvalId } = (await asked.json()) as { approvalId: string };
  expect((await sign(approvalId, secondAdmin.headers)).status).toBe(200);
}

describe("one pack never takes over another's skill", () => {
  it("refuses to enable a pack with a skill name an enabled pack lists, though both were staged before either was enabled", async () => {
    const zzz = await stageFolder(writePack(path.join(sources, "zzz"), "zzz-tools", "1", { w: { manifest: { name: "shared_wipe", class: "dangerous" } } }));
    const aaa = await stageFolder(writePack(path.join(sources, "aaa"), "aaa-tools", "1", { w: { manifest: { name: "shared_wipe", class: "safe" } } }));
    await enableWithSecondAdmin(zzz.id);
    expect(await errorOf(await enable(aaa.id))).toEqual({ status: 409, message: "skill name shared_wipe is pack zzz-tools 1's: a pack cannot take over another pack's skill" });
    const holder = (await getRegistry()).get("shared_wipe")!;
    expect({ class: holder.class, folder: folderOfSkill(holder) }).toEqual({ class: "dangerous", folder: path.join(testConsole.dir, "packs", "installed", "zzz-tools", "w") });
  });

  it("never lets a pack's subprocess skill shadow a native skill of the skills path", async () => {
    await enableWithSecondAdmin((await stageFolder(writePack(path.join(sources, "later"), "later", "1", { b: { manifest: { name: "later_nat" } } }))).id);
    expect(folderOfSkill((await getRegistry()).get("later_nat")!)).toBe(path.join(testConsole.dir, "packs", "installed", "later", "b"));
    writeNativeSkill(testConsole.nativeRoot, "cat", "later_nat", { frontmatter: "name: later_nat\ndescription: the skills path's own" });
    await reloadTestConsole();
    const holder = (await getRegistry()).get("later_nat")!;
    expect({ kind: holder.kind, folder: folderOfSkill(holder) }).toEqual({ kind: "native", folder: path.join(testConsole.nativeRoot, "cat", "later_nat") });
  });
});

describe("files a pack's skills share", () => {
  it("count as a change of every skill: an update of them needs a second admin, and an edit on disk stops the skills", async () => {
    const libPath = path.join(testConsole.dir, "packs", "installed", "ops", "lib", "impl.sh");
    const script = `cat > /dev/null; . ${JSON.stringify(libPath)}; echo "{\\"v\\": \\"$V\\"}"`;
    const v1 = writePack(path.join(sources, "ops-1"), "ops", "1", { reboot: { manifest: { name: "ops_reboot", class: "dangerous" }, script } });
    fs.mkdirSync(path.join(v1, "lib"));
    fs.writeFileSync(path.join(v1, "lib", "impl.sh"), "V=reviewed\n");
    await enableWithSecondAdmin((await stageFolder(v1)).id);

    const v2 = writePack(path.join(sources, "ops-2"), "ops", "2", { reboot: { manifest: { name: "ops_reboot", class: "dangerous" }, script } });
    fs.mkdirSync(path.join(v2, "lib"));
    fs.writeFileSync(path.join(v2, "lib", "impl.sh"), "V=unreviewed\n");
    const staged = await stageFolder(v2);
    expect(staged.skills.map((skill) => [skill.name, skill.change])).toEqual([["ops_reboot", "changed"]]);
    expect((await enable(staged.id)).status).toBe(202);

    // Edited on disk: the skill does not run, and is listed unavailable once rescanned.
    fs.writeFileSync(libPath, "V=edited-on-disk\n");
    const refused = await errorOf(await requestCall("ops_reboot", { args: {}, persona: "two-person" }));
    expect(refused).toEqual({
      status: 409,
      message: "ops_reboot cannot run this call: files of pack ops 1 changed on disk since it was enabled (lib/impl.sh), and a dangerous skill runs only while every file of its pack is the enabled version's: stage and enable the pack again to run ops_reboot",
    });
    await reloadTestConsole();
    expect((await getRegistry()).get("ops_reboot")?.available).toBe(false);
    const calls = await db().call.count({ where: { skill: "ops_reboot", status: "succeeded" } });
    expect(calls).toBe(0);
  });
});

describe("a dangerous skill and its siblings' files", () => {
  it("needs a second admin for an update that changes only a safe sibling's files, and stops when a sibling's file changes on disk", async () => {
    const helper = path.join(testConsole.dir, "packs", "installed", "xs", "helper", "impl.sh");
    const script = `cat > /dev/null; . ${JSON.stringify(helper)}; echo "{\\"v\\": \\"$V\\"}"`;
    const version = (n: string, value: string) =>
      writePack(path.join(sources, `xs-${n}`), "xs", n, {
        reboot: { manifest: { name: "xs_reboot", class: "dangerous" }, script },
        helper: { manifest: { name: "xs_helper", class: "safe" }, files: { "impl.sh": `V=${value}\n` } },
      });
    await enableWithSecondAdmin((await stageFolder(version("1", "reviewed"))).id);
    const v2 = await stageFolder(version("2", "unreviewed"));
    expect(v2.skills.map((skill) => [skill.name, skill.class, skill.change])).toEqual([
      ["xs_helper", "safe", "changed"],
      ["xs_reboot", "dangerous", "same"],
    ]);
    expect((await enable(v2.id)).status).toBe(202);
    // On disk: the sibling's file edited stops the dangerous skill; the sibling itself is refused by its own digest.
    fs.writeFileSync(helper, "V=edited-on-disk\n");
    const refused = await errorOf(await requestCall("xs_reboot", { args: {}, persona: "two-person" }));
    expect(refused.status).toBe(409);
    expect(refused.message).toMatch(/^xs_reboot cannot run this call: files of pack xs 1 changed on disk since it was enabled \(helper\/impl\.sh\), and a dangerous skill runs only while every file of its pack is the enabled version's/);
    // A version that removes the dangerous skill needs no second admin: nothing dangerous is left to read the files.
    const v3 = await stageFolder(writePack(path.join(sources, "xs-3"), "xs", "3", { helper: { manifest: { name: "xs_helper", class: "safe" }, files: { "impl.sh": "V=other\n" } } }));
    expect(v3.skills.map((skill) => [skill.name, skill.change])).toEqual([
      ["xs_helper", "changed"],
      ["xs_reboot", "removed"],
    ]);
    expect((await enable(v3.id)).status).toBe(200);
  });
});

describe("sources", () => {
  it("drops a repository's .git from an upload, so the staged pack can be enabled", async () => {
    const folder = writePack(path.join(sources, "with-git"), "with-git", "1", { a: { manifest: { name: "with_git_skill" } } });
    git(folder, "init", "--quiet");
    const archive = path.join(sources, "with-git.tar.gz");
    execFileSync("tar", ["-czf", archive, "-C", folder, "."]);
    const response = await upload(fs.readFileSync(archive), await signIn(TEST_ADMIN.email, TEST_ADMIN.password));
    expect(response.status).toBe(201);
    const pack = ((await response.json()) as { pack: Pack }).pack;
    expect((await enable(pack.id)).status).toBe(200);
    const ran = await requestCall("with_git_skill", { args: {} });
    expect(((await ran.json()) as { call: Call }).call.status).toBe("succeeded");
  });

  it("refuses a local git source that is or holds the console's own folders", async () => {
    expect(await errorOf(await stage({ type: "git", url: process.cwd(), ref: "HEAD" }))).toEqual({
      status: 400,
      message: expect.stringMatching(new RegExp(`^the pack cannot be staged: ${process.cwd()} is or holds .*, which the console keeps to itself: a pack cannot be staged from it$`)),
    });
    expect((await stage({ type: "git", url: `file://${path.join(testConsole.dir, "packs")}`, ref: "HEAD" })).status).toBe(400);
  });

  it("refuses a local repository whose .git file or alternates lead into the console's own repository", async () => {
    const gitfile = path.join(sources, "gitfile");
    fs.mkdirSync(gitfile);
    fs.writeFileSync(path.join(gitfile, ".git"), `gitdir: ${path.join(process.cwd(), ".git")}\n`);
    const viaFile = await errorOf(await stage({ type: "git", url: gitfile, ref: "HEAD" }));
    expect(viaFile.status).toBe(400);
    expect(viaFile.message).toMatch(new RegExp(`^the pack cannot be staged: ${gitfile} is or holds .*, which the console keeps to itself`));
    const bare = path.join(sources, "alternates.git");
    git(sources, "init", "--quiet", "--bare", bare);
    fs.writeFileSync(path.join(bare, "objects", "info", "alternates"), `${path.join(process.cwd(), ".git", "objects")}\n`);
    const viaAlternates = await errorOf(await stage({ type: "git", url: bare, ref: "HEAD" }));
    expect(viaAlternates.status).toBe(400);
    expect(viaAlternates.message).toMatch(new RegExp(`^the pack cannot be staged: ${bare} is or holds .*, which the console keeps to itself`));
  });
});
