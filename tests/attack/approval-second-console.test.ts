import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as approvalsRoute from "@/app/api/v1/approvals/route";
import { ensureConsoleStarted } from "@/lib/server/console-startup";
import { invoke } from "../helpers/route-client";
import { sign, waitForStatus } from "../api/approvals-fixtures";

// The second console process of approval-two-consoles.test.ts, started by it as a child `vitest run`
// with the same database file, skills and auth secret. Run on its own (no SECOND_CONSOLE_APPROVAL_ID),
// it has nothing to do and is skipped.

const approvalId = process.env.SECOND_CONSOLE_APPROVAL_ID;

describe.runIf(approvalId)("a second console process on the same database", () => {
  it("signs the approval concurrently with the first console", { timeout: 120_000 }, async () => {
    const signers = JSON.parse(process.env.SECOND_CONSOLE_SIGNERS!) as Array<Record<string, string>>;
    const syncDir = process.env.SECOND_CONSOLE_SYNC_DIR!;
    const callId = process.env.SECOND_CONSOLE_CALL_ID!;
    const perSigner = Number(process.env.SECOND_CONSOLE_REQUESTS_PER_SIGNER ?? "8");
    await ensureConsoleStarted();
    // Warm up (session check, route modules) so both consoles race on equal terms.
    for (const headers of signers) expect((await invoke(approvalsRoute.GET, "/api/v1/approvals?status=pending", { as: headers })).status).toBe(200);
    fs.writeFileSync(path.join(syncDir, "child-ready"), String(process.pid));
    const go = path.join(syncDir, "go");
    while (!fs.existsSync(go)) await new Promise((resolve) => setTimeout(resolve, 2));
    // Both consoles start firing at the same instant, written into the go file by the first one.
    const startAt = Number(fs.readFileSync(go, "utf8"));
    while (Date.now() < startAt) await new Promise((resolve) => setImmediate(resolve));
    const results = await Promise.all(
      signers.flatMap((headers, signer) =>
        Array.from({ length: perSigner }, async () => {
          const sentAt = Date.now();
          const response = await sign(approvalId!, headers);
          return { signer, status: response.status, body: (await response.json()) as unknown, sentAt, answeredAt: Date.now() };
        }),
      ),
    );
    fs.writeFileSync(path.join(syncDir, "child-results.json"), JSON.stringify(results));
    // Whichever console won runs the call; this process stays up until the call has ended.
    expect(await waitForStatus(callId, ["succeeded", "failed", "expired", "interrupted"], 60_000)).toBe("succeeded");
  });
});
