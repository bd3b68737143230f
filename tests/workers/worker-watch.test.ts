/**
 * A worker that watches its roots (SKILLS_WATCH, issue 13 point 4) reports a skill changed on disk by
 * itself: with the console not watching (so nobody asks the worker to rescan), a call made after a
 * skill's script changed is bound to the new digest, and is claimed and run with the new script.
 * And a watching worker's rescan digests again only the skills whose folders changed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/server/db";
import { loadWorkerConfig } from "@/lib/server/env";
import { ScanMemo } from "@/lib/server/skills/scan-memo";
import type { Call } from "@/lib/types/call";
import { requestWorkerRescans } from "@/lib/server/workers/claim-calls";
import { scanCatalog } from "@/lib/worker/skill-catalog";
import { registerProtocolWorker } from "../helpers/protocol-worker";
import { requestCall, waitForStatus } from "../api/approvals-fixtures";
import { setUpTestConsole, writeNativeSkill, writeSkill, type TestConsole } from "../helpers/test-console";
import { startTestWorker, stopTestWorkers, useOwnWorkers } from "../helpers/test-worker";

let testConsole: TestConsole;

beforeAll(async () => {
  testConsole = await setUpTestConsole();
  useOwnWorkers();
  writeSkill(testConsole.root, "version", { name: "version" }, 'cat > /dev/null; echo "{\\"version\\": 1}"');
  await startTestWorker({ WORKER_NAME: "watching", SKILLS_WATCH: "true" });
});

afterAll(async () => {
  await stopTestWorkers();
});

describe("a worker watching its roots", () => {
  it("runs the changed script of a skill without a Rescan", async () => {
    const first = await requestCall("version", { args: {} });
    expect(first.status).toBe(200);
    expect(((await first.json()) as { call: Call }).call.result).toEqual({ version: 1 });

    fs.writeFileSync(path.join(testConsole.root, "version", "run.sh"), '#!/bin/bash\ncat > /dev/null; echo "{\\"version\\": 2}"\n', { mode: 0o755 });
    const second = await requestCall("version", { args: {}, wait: false });
    expect(second.status).toBe(202);
    const { call } = (await second.json()) as { call: Call };
    // Claimable only once the worker reported the new digest: it does so by itself.
    expect(await waitForStatus(call.id, ["succeeded", "failed"], 10_000)).toBe("succeeded");
    const stored = await db().call.findUniqueOrThrow({ where: { id: call.id } });
    expect(JSON.parse(stored.result ?? "null")).toEqual({ version: 2 });
  });

  it("is told whether to read everything (a Rescan) or only what changed (the console's watcher saw it)", async () => {
    const worker = await registerProtocolWorker("told", []);
    const claim = () => worker.client.claim(worker.session.id, 1, 5_000, new AbortController().signal);
    await requestWorkerRescans(false);
    expect(await claim()).toEqual({ calls: [], cancel: [], rescan: true, rescanEverything: false });
    await requestWorkerRescans(true);
    expect(await claim()).toEqual({ calls: [], cancel: [], rescan: true, rescanEverything: true });
    // A Rescan asked for before the worker polled is not weakened by a later change seen on disk.
    await requestWorkerRescans(true);
    await requestWorkerRescans(false);
    expect(await claim()).toEqual({ calls: [], cancel: [], rescan: true, rescanEverything: true });
  });

  it("digests again only the skills whose folders changed", async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "catalog-reuse-")));
    const native = path.join(root, "native");
    for (const name of ["one", "two", "three"]) writeSkill(path.join(root, "sub"), name, { name }, 'echo "{}"');
    writeNativeSkill(native, "ops", "native-one");
    const config = loadWorkerConfig({ ...process.env, CONSOLE_URL: "http://127.0.0.1:9", ONGRID_SKILLS_EXTERNAL_DIRS: path.join(root, "sub"), SKILLS_PATH: native, WORKER_STATE_DIR: path.join(root, "state") });
    const memo = new ScanMemo();
    const before = await scanCatalog(config, { memo, previous: null });
    const script = path.join(root, "sub", "two", "run.sh");
    fs.writeFileSync(script, '#!/bin/bash\necho "{\\"changed\\": true}"\n', { mode: 0o755 });
    memo.invalidate([{ path: script, kind: "content" }]);
    const after = await scanCatalog(config, { memo, previous: before });
    const report = (catalog: typeof before, name: string) => catalog.reports.find((entry) => entry.name === name)!;
    for (const name of ["one", "three", "native-one"]) expect(report(after, name), name).toBe(report(before, name));
    expect(report(after, "two").digest).not.toBe(report(before, "two").digest);
    const fresh = await scanCatalog(config);
    expect(fresh.reports.map((entry) => [entry.name, entry.digest])).toEqual(after.reports.map((entry) => [entry.name, entry.digest]));
    fs.rmSync(root, { recursive: true, force: true });
  });
});
