/**
 * Skill packs (issue 13 points 1–3, DESIGN.md "Skill packs"): staged from a folder, an upload or a git
 * repository at a pinned commit; reviewed (every skill, its digest, every file's diff) before anything
 * of it runs; enabled (a dangerous skill needs a second admin), updated, rolled back and uninstalled,
 * each voiding the pending approvals of the skills whose digest changes; a pack changed on disk after
 * enabling shows as modified and its changed skills do not run. Real folders, a real git repository, a
 * real loader, calls run by the test worker.
 */
import { execFileSync, spawn } from "node:child_process";
import net from "node:net";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as auditRoute from "@/app/api/v1/audit/route";
import * as callRoute from "@/app/api/v1/calls/[id]/route";
import { db } from "@/lib/server/db";
import { resetConfigForTests } from "@/lib/server/env";
import { getRegistry } from "@/lib/server/skills/registry";
import type { Call } from "@/lib/types/call";
import type { Pack } from "@/lib/types/pack";
import { invoke } from "../helpers/route-client";
import { reloadTestConsole, setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, signIn, TEST_ADMIN, type TestPerson } from "../helpers/test-people";
import { createPersonaRow, deny, requestCall, requestWaitingCall, sign } from "../api/approvals-fixtures";
import { enable, git, listPacks, marketplace, remove, review, rollback, signingKey, signPack, stage, stageFolder, upload, writePack } from "./pack-fixtures";

let testConsole: TestConsole;
let sources: string;
let secondAdmin: TestPerson;
const key = signingKey("release");

beforeAll(async () => {
  testConsole = await setUpTestConsole({ CONSOLE_PACK_TRUSTED_KEYS: key.trusted });
  sources = path.join(testConsole.dir, "sources");
  fs.mkdirSync(sources);
  writeSkill(testConsole.root, "root-skill", { name: "root_skill", class: "safe" }, `cat > /dev/null; echo '{"root": true}'`);
  await createPersonaRow("two-person", "dual-sign-required");
  secondAdmin = await createPerson("admin", "second-admin");
});

async function errorOf(response: Response): Promise<{ status: number; message: string }> {
  return { status: response.status, message: ((await response.json()) as { error: { message: string } }).error.message };
}

/** A TCP port free on loopback now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** Asks again (for up to 5 s) while the answer says the git daemon is not listening yet. */
async function eventuallyAnswer(ask: () => Promise<Response>): Promise<Response> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const response = await ask();
    if (response.status !== 400 || Date.now() > deadline) return response;
    const text = await response.clone().text();
    if (!text.includes("Connection refused") && !text.includes("unable to connect")) return response;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function packOf(response: Response): Promise<Pack> {
  return ((await response.json()) as { pack: Pack }).pack;
}

async function packRows(): Promise<number> {
  return db().pack.count();
}

function versionFolders(): string[] {
  const folder = path.join(testConsole.dir, "packs", "versions");
  return fs.existsSync(folder) ? fs.readdirSync(folder) : [];
}

async function resultOf(response: Response): Promise<Call> {
  return ((await response.json()) as { call: Call }).call;
}

describe("a pack staged from a local folder", () => {
  it("is reviewed with every skill and file, and nothing of it runs before it is enabled", async () => {
    const folder = writePack(path.join(sources, "tools-v1"), "tools", "1.0.0", {
      hello: { manifest: { name: "pack_hello", class: "safe", sandbox: { network: false } } },
      "fix-disk": { manifest: { name: "pack_fix", class: "safe", sandbox: { network: true } } },
    });
    const pack = await stageFolder(folder);
    expect(pack).toMatchObject({ name: "tools", version: "1.0.0", status: "staged", source: { type: "folder", path: folder }, commit: null, signedBy: null, previousVersion: null, approvalId: null });
    expect(pack.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(pack.skills.map(({ name, kind, class: skillClass, change, folder: skillFolder, sandbox }) => ({ name, kind, class: skillClass, change, folder: skillFolder, network: sandbox.network }))).toEqual([
      { name: "pack_fix", kind: "subprocess", class: "safe", change: "added", folder: "fix-disk", network: true },
      { name: "pack_hello", kind: "subprocess", class: "safe", change: "added", folder: "hello", network: false },
    ]);
    for (const skill of pack.skills) expect(skill.digest).toMatch(/^[0-9a-f]{64}$/);

    const { files, digestList } = await review(pack.id);
    expect(files.map((file) => [file.path, file.change])).toEqual([
      ["fix-disk/run.sh", "added"],
      ["fix-disk/skill.json", "added"],
      ["hello/run.sh", "added"],
      ["hello/skill.json", "added"],
      ["pack.json", "added"],
    ]);
    expect(files.find((file) => file.path === "hello/run.sh")?.diff).toContain(`+cat > /dev/null; echo '{"ok": true, "from": "hello"}'`);
    expect(digestList.split("\n")[0]).toBe("skill-console pack digests v1");

    // Staged only: the registry does not hold it, a call of it is unknown.
    expect((await getRegistry()).get("pack_hello")).toBeUndefined();
    expect((await requestCall("pack_hello", { args: {} })).status).toBe(404);
  });

  it("runs once enabled; an update shows what changed, voids pending approvals of changed skills, and rolls back", async () => {
    const v1 = (await listPacks()).find((pack) => pack.name === "tools" && pack.version === "1.0.0")!;
    const enabled = await enable(v1.id);
    expect(enabled.status).toBe(200);
    expect((await packOf(enabled)).status).toBe("enabled");
    const ran = await requestCall("pack_hello", { args: {} });
    expect(ran.status).toBe(200);
    expect((await resultOf(ran)).result).toEqual({ ok: true, from: "hello" });

    // A dangerous skill added by the update waits for a second admin.
    const v2Folder = writePack(path.join(sources, "tools-v2"), "tools", "2.0.0", {
      hello: { manifest: { name: "pack_hello", class: "safe", sandbox: { network: false } } },
      "fix-disk": { manifest: { name: "pack_fix", class: "safe", sandbox: { network: true } }, script: `cat > /dev/null; echo '{"ok": true, "from": "fix v2"}'` },
      wipe: { manifest: { name: "pack_wipe", class: "dangerous" } },
    });
    const v2 = await stageFolder(v2Folder);
    expect(v2.skills.map((skill) => [skill.name, skill.change])).toEqual([
      ["pack_fix", "changed"],
      ["pack_hello", "same"],
      ["pack_wipe", "added"],
    ]);
    const diff = (await review(v2.id)).files.filter((file) => file.change !== "same");
    expect(diff.map((file) => [file.path, file.change])).toEqual([
      ["fix-disk/run.sh", "changed"],
      ["pack.json", "changed"],
      ["wipe/run.sh", "added"],
      ["wipe/skill.json", "added"],
    ]);
    expect(diff[0]!.diff!.split("\n").slice(0, 2)).toEqual(["--- a/fix-disk/run.sh", "+++ b/fix-disk/run.sh"]);
    expect(diff[0]!.diff).toContain(`-cat > /dev/null; echo '{"ok": true, "from": "fix-disk"}'\n+cat > /dev/null; echo '{"ok": true, "from": "fix v2"}'`);

    const asked = await enable(v2.id);
    expect(asked.status).toBe(202);
    const { pack: awaiting, approvalId } = (await asked.json()) as { pack: Pack; approvalId: string };
    expect(awaiting.status).toBe("awaiting_approval");
    expect(awaiting.approvalId).toBe(approvalId);
    // Not yet: v1 still runs, pack_wipe does not exist.
    expect((await getRegistry()).get("pack_wipe")).toBeUndefined();
    const own = await sign(approvalId, "admin");
    expect(own.status).toBe(403);
    expect(((await own.json()) as { error: { message: string } }).error.message).toBe("the admin who asked to enable the pack cannot sign it: a second admin must");
    const signed = await sign(approvalId, secondAdmin.headers);
    expect(signed.status).toBe(200);
    expect(((await signed.json()) as { pack: Pack }).pack).toMatchObject({ id: v2.id, status: "enabled", previousVersion: { id: v1.id, version: "1.0.0" } });
    expect((await getRegistry()).get("pack_wipe")?.class).toBe("dangerous");
    const fixed = await requestCall("pack_fix", { args: {} });
    expect(fixed.status).toBe(200);
    expect((await resultOf(fixed)).result).toEqual({ ok: true, from: "fix v2" });
    expect((await listPacks()).find((pack) => pack.id === v1.id)?.status).toBe("disabled");

    // Rolling back to 1.0.0 removes a dangerous skill and changes pack_fix: no dangerous skill is added
    // or changed, so it needs no second admin; the pending approval of a call of the removed skill is void.
    const waiting = await requestWaitingCall("pack_wipe", "two-person", "admin");
    expect(waiting.approvalId).not.toBeNull();
    const back = await rollback(v2.id);
    expect(back.status).toBe(200);
    const voided = await db().approval.findUniqueOrThrow({ where: { id: waiting.approvalId! } });
    expect(voided).toMatchObject({ status: "void", reason: "pack tools was rolled back to 1.0.0, which changes this skill" });
    expect(await packOf(back)).toMatchObject({ id: v1.id, status: "enabled", previousVersion: { id: v2.id } });
    expect((await getRegistry()).get("pack_wipe")).toBeUndefined();
    expect((await resultOf(await requestCall("pack_fix", { args: {} }))).result).toEqual({ ok: true, from: "fix-disk" });

    // The enabled version's review compares it with the one before it; the version it replaced is
    // kept for rolling back, so it cannot be discarded.
    const enabledReview = await review(v1.id);
    expect(enabledReview.filesAgainst).toEqual({ kind: "previous", version: "2.0.0" });
    expect(enabledReview.pack.comparedWith).toEqual({ id: v2.id, version: "2.0.0", enabledNow: false });
    expect(await (await remove(v2.id)).json()).toEqual({ error: { code: "conflict", message: "pack tools 2.0.0 is what rolling 1.0.0 back returns to: it is kept" } });
    // A version not enabled is compared with the one enabled now, whatever was enabled when it was staged.
    expect((await review(v2.id)).pack.skills.map((skill) => [skill.name, skill.change])).toEqual([
      ["pack_fix", "changed"],
      ["pack_hello", "same"],
      ["pack_wipe", "added"],
    ]);
    const trail = (await (await invoke(auditRoute.GET, "/api/v1/audit?limit=50")).json()) as { entries: Array<{ action: string; details: Record<string, unknown> }> };
    const actions = trail.entries.map((entry) => entry.action).filter((action) => action.startsWith("pack."));
    expect(actions).toEqual(["pack.rolled_back", "pack.enabled", "pack.approval.signed", "pack.enable_requested", "pack.staged", "pack.enabled", "pack.staged"]);
    const rolledBack = trail.entries.find((entry) => entry.action === "pack.rolled_back")!;
    expect(rolledBack.details.voidedApprovals).toEqual([waiting.approvalId]);
    expect(rolledBack.details.skills).toEqual([
      { name: "pack_fix", change: "changed" },
      { name: "pack_wipe", change: "removed" },
    ]);
  });

  it("shows as modified when its files change on disk, and its changed skill does not run", async () => {
    const installed = path.join(testConsole.dir, "packs", "installed", "tools", "hello", "run.sh");
    fs.writeFileSync(installed, `#!/bin/bash\ncat > /dev/null; echo '{"ok": "tampered"}'\n`);
    const tools = (await listPacks()).find((pack) => pack.name === "tools" && pack.status !== "disabled" && pack.status !== "staged")!;
    expect(tools).toMatchObject({ version: "1.0.0", status: "modified", modifiedFiles: ["hello/run.sh"] });
    const modified = await review(tools.id);
    expect(modified.filesAgainst).toEqual({ kind: "disk", version: "1.0.0" });
    expect(modified.files.filter((file) => file.change !== "same").map((file) => [file.path, file.change])).toEqual([["hello/run.sh", "changed"]]);
    expect(modified.files.find((file) => file.path === "hello/run.sh")?.diff).toContain(`+cat > /dev/null; echo '{"ok": "tampered"}'`);
    const refused = await requestCall("pack_hello", { args: {} });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/^pack_hello cannot run this call: pack_hello changed on disk since pack tools 1\.0\.0 was enabled \(its digest is [0-9a-f]{12}…, the enabled one [0-9a-f]{12}…\): stage and enable the pack again to run it$/);
    // The unchanged skill of the same pack still runs.
    expect((await requestCall("pack_fix", { args: {} })).status).toBe(200);
    // Once rescanned, the Skills page and the agent tools list it unavailable, with the reason; a skill
    // dropped into the installed packs by hand is listed unavailable too.
    await reloadTestConsole();
    expect((await getRegistry()).get("pack_hello")).toMatchObject({ available: false, unavailableReason: "its files changed on disk since pack tools 1.0.0 was enabled: stage, review and enable the pack again" });
    expect((await getRegistry()).get("pack_fix")?.available).toBe(true);
    // A skill added to the pack by hand, one in a folder no pack installed, one right in the packs
    // folder: none runs. The one added to the pack changes what its skills share: none of them runs.
    writeSkill(path.join(testConsole.dir, "packs", "installed", "tools"), "smuggled", { name: "pack_smuggled" }, `cat > /dev/null; echo '{}'`);
    writeSkill(path.join(testConsole.dir, "packs", "installed"), "loose/one", { name: "pack_loose" }, `cat > /dev/null; echo '{}'`);
    writeSkill(path.join(testConsole.dir, "packs"), "installed", { name: "pack_at_root" }, `cat > /dev/null; echo '{"pwned": true}'`);
    await reloadTestConsole();
    const registry = await getRegistry();
    expect(registry.get("pack_smuggled")).toMatchObject({ available: false, unavailableReason: "pack tools 1.0.0 was enabled without this skill: review and enable the pack again" });
    expect(registry.get("pack_loose")).toMatchObject({ available: false, unavailableReason: "it lies in the installed packs folder, but no enabled pack named loose installed it" });
    expect(registry.get("pack_at_root")).toMatchObject({ available: false, unavailableReason: "it lies right in the installed packs folder, where no pack puts a skill" });
    expect(registry.get("pack_fix")).toMatchObject({
      available: false,
      unavailableReason: "files pack tools 1.0.0 shares among its skills changed on disk since it was enabled (smuggled/run.sh, smuggled/skill.json): stage, review and enable the pack again",
    });
    for (const name of ["pack_smuggled", "pack_loose", "pack_at_root", "pack_fix"]) expect((await requestCall(name, { args: {} })).status).toBe(409);
    fs.rmSync(path.join(testConsole.dir, "packs", "installed", "skill.json"));
    fs.rmSync(path.join(testConsole.dir, "packs", "installed", "run.sh"));
    // Put back: runs again.
    fs.writeFileSync(installed, `#!/bin/bash\ncat > /dev/null; echo '{"ok": true, "from": "hello"}'\n`);
    fs.rmSync(path.join(testConsole.dir, "packs", "installed", "tools", "smuggled"), { recursive: true });
    fs.rmSync(path.join(testConsole.dir, "packs", "installed", "loose"), { recursive: true });
    await reloadTestConsole();
    expect((await getRegistry()).get("pack_hello")?.available).toBe(true);
    expect((await getRegistry()).get("pack_fix")?.available).toBe(true);
    expect((await requestCall("pack_hello", { args: {} })).status).toBe(200);
  });

  it("is uninstalled: its skills leave and their calls stay in the history", async () => {
    const tools = (await listPacks()).find((pack) => pack.name === "tools" && pack.status === "enabled")!;
    const calls = await db().call.count({ where: { skill: "pack_hello" } });
    expect(calls).toBeGreaterThan(0);
    const gone = await remove(tools.id);
    expect(gone.status).toBe(200);
    expect((await packOf(gone)).status).toBe("disabled");
    expect((await getRegistry()).get("pack_hello")).toBeUndefined();
    expect(fs.existsSync(path.join(testConsole.dir, "packs", "installed", "tools"))).toBe(false);
    expect(await db().call.count({ where: { skill: "pack_hello" } })).toBe(calls);
    const one = await db().call.findFirstOrThrow({ where: { skill: "pack_hello" } });
    expect((await invoke(callRoute.GET, `/api/v1/calls/${one.id}`, { params: { id: one.id } })).status).toBe(200);
  });
});

describe("a pack's approval", () => {
  it("is denied by a second admin (back to staged), expires (back to staged), and only an admin signs it", async () => {
    const folder = writePack(path.join(sources, "risky"), "risky", "1", { nuke: { manifest: { name: "risky_nuke", class: "dangerous" } } });
    const pack = await stageFolder(folder);
    const first = (await (await enable(pack.id)).json()) as { approvalId: string };
    const approver = await createPerson("approver", "pack-approver");
    const notAdmin = await sign(first.approvalId, approver.headers);
    expect(notAdmin.status).toBe(403);
    expect(((await notAdmin.json()) as { error: { message: string } }).error.message).toBe("enabling a pack is signed by a second admin");
    const denied = await deny(first.approvalId, { reason: "not this week" }, secondAdmin.headers);
    expect(denied.status).toBe(200);
    expect(((await denied.json()) as { pack: Pack }).pack).toMatchObject({ status: "staged", approvalId: null });
    expect(await db().packApproval.findUniqueOrThrow({ where: { id: first.approvalId } })).toMatchObject({ status: "denied", reason: "not this week", decidedBy: secondAdmin.email });

    const second = (await (await enable(pack.id)).json()) as { approvalId: string };
    await db().packApproval.update({ where: { id: second.approvalId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await listPacks()).find((listed) => listed.id === pack.id)?.status).toBe("staged");
    expect((await db().packApproval.findUniqueOrThrow({ where: { id: second.approvalId } })).status).toBe("expired");
    const late = await sign(second.approvalId, secondAdmin.headers);
    expect(late.status).toBe(409);
    expect((await getRegistry()).get("risky_nuke")).toBeUndefined();
    expect((await remove(pack.id)).status).toBe(200);
  });
});

describe("a pack that is refused at staging changes nothing", () => {
  async function refusedWith(source: Record<string, unknown>, message: string | RegExp): Promise<void> {
    const rows = await packRows();
    const folders = versionFolders();
    const response = await stage(source);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect({ status: response.status, code: body.error.code }).toEqual({ status: 400, code: "bad_request" });
    if (typeof message === "string") expect(body.error.message).toBe(message);
    else expect(body.error.message).toMatch(message);
    expect(await packRows()).toBe(rows);
    expect(versionFolders()).toEqual(folders);
  }

  it("refuses a duplicate skill name, a broken manifest, a name another skill holds, no pack.json", async () => {
    const duplicate = writePack(path.join(sources, "dup"), "dup", "1", { a: { manifest: { name: "same_name" } }, b: { manifest: { name: "same_name" } } });
    await refusedWith({ type: "folder", path: duplicate }, "the pack cannot be staged: the loader refuses a skill of the pack: dup/b/skill.json: name already registered from dup/a/skill.json");
    const broken = writePack(path.join(sources, "broken"), "broken", "1", { a: { manifest: { name: "Not A Name!" } } });
    await refusedWith({ type: "folder", path: broken }, /^the pack cannot be staged: the loader refuses a skill of the pack: broken\/a\/skill\.json: /);
    const taken = writePack(path.join(sources, "taken"), "taken", "1", { a: { manifest: { name: "root_skill" } } });
    await refusedWith({ type: "folder", path: taken }, `the pack cannot be staged: skill name root_skill is taken by ${path.join(testConsole.root, "root-skill")}: a pack cannot replace a skill it did not install`);
    const bare = path.join(sources, "bare");
    fs.mkdirSync(bare);
    fs.writeFileSync(path.join(bare, "readme.txt"), "hi");
    await refusedWith({ type: "folder", path: bare }, "the pack cannot be staged: no pack.json at the top of the pack (nor .claude-plugin/marketplace.json): a pack folder holds pack.json and its skill folders");
    const badName = writePack(path.join(sources, "bad-name"), "Bad_Name", "1", { a: { manifest: { name: "bad_name_skill" } } });
    await refusedWith({ type: "folder", path: badName }, `the pack cannot be staged: pack.json: name "Bad_Name" must be lower-case letters, digits and '-' (at most 64), starting with a letter or digit`);
  });

  it("refuses a link out of the pack and the console's own folders", async () => {
    const linked = writePack(path.join(sources, "linked"), "linked", "1", { a: { manifest: { name: "linked_skill" } } });
    fs.symlinkSync("../../../../etc/passwd", path.join(linked, "a", "passwd"));
    await refusedWith({ type: "folder", path: linked }, `the pack cannot be staged: a/passwd is a link to "../../../../etc/passwd", which leads out of the pack`);
    await refusedWith({ type: "folder", path: path.join(testConsole.dir, "packs") }, new RegExp(`^the pack cannot be staged: .* which the console keeps to itself: a pack cannot be staged from it$`));
    await refusedWith({ type: "folder", path: process.cwd() }, new RegExp(`^the pack cannot be staged: ${process.cwd()} is or holds .* which the console keeps to itself`));
    await refusedWith({ type: "folder", path: "relative/path" }, `the pack cannot be staged: source.path "relative/path" must be an absolute path`);
  });

  it("refuses a bad signature, and an unsigned pack when PACKS_ALLOW_UNSIGNED=never; a signed one names its key", async () => {
    const folder = writePack(path.join(sources, "signed"), "signed", "1", { a: { manifest: { name: "signed_skill" } } });
    await signPack(folder, key.privateKey);
    const signed = await stageFolder(folder);
    expect(signed.signedBy).toBe("release");
    await remove(signed.id);
    // A file changed after signing: the signature no longer covers the pack.
    fs.appendFileSync(path.join(folder, "a", "run.sh"), "# changed\n");
    await refusedWith({ type: "folder", path: folder }, /^the pack cannot be staged: pack\.sig is not a signature of this pack's digest list by any trusted key \(release\)/);
    // Signed by a key that is not trusted.
    const stranger = signingKey("stranger");
    await signPack(folder, stranger.privateKey);
    await refusedWith({ type: "folder", path: folder }, /^the pack cannot be staged: pack\.sig is not a signature of this pack's digest list by any trusted key/);
    fs.rmSync(path.join(folder, "pack.sig"));
    process.env.PACKS_ALLOW_UNSIGNED = "never";
    resetConfigForTests();
    try {
      await refusedWith({ type: "folder", path: folder }, "the pack cannot be staged: the pack is unsigned and PACKS_ALLOW_UNSIGNED=never: sign its digest list with a key in CONSOLE_PACK_TRUSTED_KEYS (pack.sig)");
    } finally {
      delete process.env.PACKS_ALLOW_UNSIGNED;
      resetConfigForTests();
    }
  });
});

describe("a pack from a git repository", () => {
  let repository: string;
  let first: string;
  let second: string;

  beforeAll(() => {
    repository = path.join(sources, "repository");
    writePack(repository, "gitpack", "1.0.0", { a: { manifest: { name: "git_skill" } } });
    git(repository, "init", "--quiet", "--initial-branch=main");
    git(repository, "add", ".");
    git(repository, "commit", "--quiet", "-m", "one");
    first = git(repository, "rev-parse", "HEAD");
    git(repository, "tag", "v1");
    fs.writeFileSync(path.join(repository, "pack.json"), JSON.stringify({ name: "gitpack", version: "1.1.0" }));
    git(repository, "commit", "--quiet", "-am", "two");
    second = git(repository, "rev-parse", "HEAD");
  });

  it("is staged at the commit a branch, a tag or a commit names, and records it", async () => {
    const atBranch = (await stage({ type: "git", url: repository, ref: "main" }));
    expect(atBranch.status).toBe(201);
    expect(await packOf(atBranch)).toMatchObject({ name: "gitpack", version: "1.1.0", commit: second, source: { type: "git", url: repository, ref: "main" } });
    const atTag = await packOf(await stage({ type: "git", url: `file://${repository}`, ref: "v1" }));
    expect(atTag).toMatchObject({ version: "1.0.0", commit: first });
    const atCommit = await packOf(await stage({ type: "git", url: repository, ref: first.slice(0, 12) }));
    expect(atCommit).toMatchObject({ version: "1.0.0", commit: first, digest: atTag.digest });
  });

  it("from a remote source (git daemon on loopback) is refused unsigned, and staged when signed by a trusted key", async () => {
    const port = await freePort();
    const daemon = spawn("git", ["daemon", "--reuseaddr", "--export-all", `--base-path=${sources}`, "--listen=127.0.0.1", `--port=${port}`, sources], { stdio: "ignore", env: { NODE_ENV: "test", PATH: process.env.PATH, HOME: sources } });
    try {
      const url = `git://127.0.0.1:${port}/repository`;
      const rows = await packRows();
      const refused = await eventuallyAnswer(() => stage({ type: "git", url, ref: "main" }));
      expect(await errorOf(refused)).toEqual({
        status: 400,
        message: "the pack cannot be staged: the pack comes from a remote source and is unsigned: sign its digest list with a key in CONSOLE_PACK_TRUSTED_KEYS (pack.sig), or set PACKS_ALLOW_UNSIGNED=always",
      });
      expect(await packRows()).toBe(rows);
      await signPack(repository, key.privateKey);
      git(repository, "add", "pack.sig");
      git(repository, "commit", "--quiet", "-m", "signed");
      const signed = await stage({ type: "git", url, ref: "main" });
      expect(signed.status).toBe(201);
      expect(await packOf(signed)).toMatchObject({ name: "gitpack", version: "1.1.0", signedBy: "release", commit: git(repository, "rev-parse", "HEAD"), source: { type: "git", url, ref: "main" } });
    } finally {
      daemon.kill("SIGTERM");
    }
  });

  it("refuses a ref that does not exist, and a URL git would read as a command", async () => {
    const rows = await packRows();
    const missing = await stage({ type: "git", url: repository, ref: "no-such-branch" });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toBe(`the pack cannot be staged: git ref "no-such-branch" does not exist in ${repository} (not a branch, tag or commit there)`);
    const ext = await stage({ type: "git", url: "ext::sh -c touch% /tmp/pwned", ref: "main" });
    expect(ext.status).toBe(400);
    const option = await stage({ type: "git", url: repository, ref: "--upload-pack=touch /tmp/x" });
    expect(((await option.json()) as { error: { message: string } }).error.message).toBe(`the pack cannot be staged: source.ref "--upload-pack=touch /tmp/x" is not a branch, tag or commit`);
    expect(await packRows()).toBe(rows);
  });
});

describe("a .tar.gz upload", () => {
  it("is staged from an archive with a wrapper folder, and one that escapes or is too big is refused", async () => {
    const admin = await signIn(TEST_ADMIN.email, TEST_ADMIN.password);
    const folder = writePack(path.join(sources, "uploaded-1.0", "uploaded"), "uploaded", "1.0", { a: { manifest: { name: "uploaded_skill" } } });
    const archive = path.join(sources, "uploaded.tar.gz");
    execFileSync("tar", ["-czf", archive, "-C", path.dirname(path.dirname(folder)), "uploaded-1.0"]);
    const bytes = fs.readFileSync(archive);
    const response = await upload(bytes, admin);
    expect(response.status).toBe(201);
    expect(await packOf(response)).toMatchObject({ name: "uploaded", version: "1.0", source: { type: "upload", bytes: bytes.length }, skills: [{ name: "uploaded_skill", change: "added" }] });

    const rows = await packRows();
    const evil = path.join(sources, "evil");
    fs.mkdirSync(evil);
    execFileSync("tar", ["-czPf", path.join(evil, "evil.tar.gz"), "-C", sources, "--transform", "s,^uploaded-1.0,../../escape,", "uploaded-1.0"]);
    const escaping = await upload(fs.readFileSync(path.join(evil, "evil.tar.gz")), admin);
    expect(escaping.status).toBe(400);
    expect(((await escaping.json()) as { error: { message: string } }).error.message).toMatch(/^the pack cannot be staged: "\.\.\/\.\.\/escape(\/[^"]*)?" is not a plain relative path inside the pack/);
    process.env.PACK_MAX_BYTES = "100";
    resetConfigForTests();
    try {
      const big = await upload(bytes, admin);
      expect(big.status).toBe(413);
      expect(((await big.json()) as { error: { message: string } }).error.message).toBe(`the upload is ${bytes.length} bytes; PACK_MAX_BYTES allows 100`);
    } finally {
      delete process.env.PACK_MAX_BYTES;
      resetConfigForTests();
    }
    expect(await packRows()).toBe(rows);
  });
});

describe("a Claude Code marketplace", () => {
  it("offers its plugins as packs and stages one of them", async () => {
    const repo = path.join(sources, "market");
    for (const [plugin, skill] of [["docs", "pdf"], ["docs", "xlsx"], ["ops-kit", "restart"]] as const) {
      const folder = path.join(repo, "plugins", plugin, "skills", skill);
      fs.mkdirSync(path.join(folder, "scripts"), { recursive: true });
      fs.writeFileSync(path.join(folder, "SKILL.md"), `---\nname: mk-${skill}\ndescription: the ${skill} skill\n---\n# ${skill}\n`);
      fs.writeFileSync(path.join(folder, "scripts", "run.sh"), "#!/bin/bash\necho hi\n", { mode: 0o755 });
    }
    fs.mkdirSync(path.join(repo, ".claude-plugin"));
    fs.writeFileSync(
      path.join(repo, ".claude-plugin", "marketplace.json"),
      JSON.stringify({
        name: "market",
        owner: { name: "someone" },
        metadata: { version: "3.0.0" },
        plugins: [
          { name: "docs", source: "./plugins/docs", description: "document skills" },
          { name: "ops-kit", source: "./plugins/ops-kit", version: "0.2.0" },
          { name: "elsewhere", source: { source: "github", repo: "someone/else" } },
        ],
      }),
    );
    const offered = await marketplace({ type: "folder", path: repo });
    expect(offered.status).toBe(200);
    expect(((await offered.json()) as { plugins: unknown[] }).plugins).toEqual([
      { name: "docs", description: "document skills", version: "3.0.0", skills: ["plugins/docs/skills/pdf", "plugins/docs/skills/xlsx"], unstageable: null },
      { name: "ops-kit", description: "", version: "0.2.0", skills: ["plugins/ops-kit/skills/restart"], unstageable: null },
      { name: "elsewhere", description: "", version: "3.0.0", skills: [], unstageable: "its source is another repository: stage that repository itself as a git pack" },
    ]);
    const whole = await stage({ type: "folder", path: repo });
    expect(((await whole.json()) as { error: { message: string } }).error.message).toBe(
      `the pack cannot be staged: this is a Claude Code marketplace, not a pack: name one of its plugins (docs, ops-kit, elsewhere) as "plugin" to stage it as a pack`,
    );
    const docs = await stage({ type: "folder", path: repo, plugin: "docs" });
    expect(docs.status).toBe(201);
    const pack = await packOf(docs);
    expect(pack).toMatchObject({ name: "docs", version: "3.0.0", description: "document skills", source: { type: "folder", path: repo, plugin: "docs" } });
    expect(pack.skills.map((skill) => [skill.name, skill.kind, skill.folder, skill.change])).toEqual([
      ["mk-pdf", "native", "pdf", "added"],
      ["mk-xlsx", "native", "xlsx", "added"],
    ]);
    expect((await enable(pack.id)).status).toBe(200);
    expect((await getRegistry()).get("mk-pdf")?.kind).toBe("native");
  });
});
