/**
 * Another process holding the SQLite file's write lock (a backup, an operator's sqlite3 shell) must
 * neither stall the console nor lose a result (issue 10 points 2 and 3): no statement waits
 * synchronously on the lock; a write that stays refused answers 503 `unavailable` with Retry-After;
 * and a call whose process printed its result while the lock was held ends `succeeded` with that
 * result once the lock is released — its lease lapsing meanwhile does not make it `interrupted`.
 * A real second connection on the real database file.
 */
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as callsRoute from "@/app/api/v1/calls/route";
import * as personasRoute from "@/app/api/v1/personas/route";
import * as tokensRoute from "@/app/api/v1/tokens/route";
import * as usersRoute from "@/app/api/v1/users/route";
import * as loginRoute from "@/app/api/v1/auth/login/route";
import * as logoutRoute from "@/app/api/v1/auth/logout/route";
import * as sessionRoute from "@/app/api/v1/auth/session/route";
import * as skillCallsRoute from "@/app/api/v1/skills/[name]/calls/route";
import { interruptLapsedCalls } from "@/lib/server/calls/interrupt-calls";
import { db } from "@/lib/server/db";
import type { Call } from "@/lib/types/call";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { worstStall } from "../helpers/stall-watch";
import { ensureDefaultTestWorker } from "../helpers/test-worker";
import { waitForStatus } from "../api/approvals-fixtures";
import { createPerson } from "../helpers/test-people";

let testConsole: TestConsole;
let holder: Database.Database | null = null;

/** Takes the file's write lock from another connection, as another process would. */
function lockTheFile(): void {
  holder = new Database(testConsole.databaseFile, { timeout: 0 });
  holder.prepare("BEGIN IMMEDIATE").run();
}

function releaseTheFile(): void {
  holder?.prepare("ROLLBACK").run();
  holder?.close();
  holder = null;
}

beforeAll(async () => {
  // A short lease, so it lapses while the file is locked.
  testConsole = await setUpTestConsole({ CALL_LEASE_MS: "1500", MARKER_DIR: "" });
  writeSkill(testConsole.root, "quick", { name: "quick" }, 'echo \'{"answer": 42}\'');
  writeSkill(testConsole.root, "slowish", { name: "slowish", env_allow: ["MARKER_DIR"], timeout_seconds: 60 }, 'while [ ! -e "$MARKER_DIR/go" ]; do sleep 0.05; done; echo \'{"kept": "this result"}\'');
  process.env.MARKER_DIR = testConsole.dir;
  await ensureDefaultTestWorker();
  // One call through, so the worker holds the skills and the console is started.
  const warm = await invoke(skillCallsRoute.POST, "/api/v1/skills/quick/calls", { body: { args: {}, wait: true }, params: { name: "quick" } });
  expect(warm.status).toBe(200);
});

afterAll(() => releaseTheFile());

describe("a database another process keeps locked", () => {
  it("answers a write 503 unavailable with Retry-After, without stalling the event loop", async () => {
    lockTheFile();
    try {
      const { value: response, stallMs } = await worstStall(() => invoke(skillCallsRoute.POST, "/api/v1/skills/quick/calls", { body: { args: {}, wait: false }, params: { name: "quick" } }));
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("1");
      expect(((await response.json()) as { error: { code: string; message: string } }).error).toMatchObject({
        code: "unavailable",
        message: "the database is busy (another process holds its write lock); retry in 1 s",
      });
      // It waited without blocking: a synchronous busy wait would show as one stall of seconds.
      expect(stallMs).toBeLessThan(1000);
    } finally {
      releaseTheFile();
    }
  });

  it("answers 503 to an interactive transaction (a persona saved) the lock keeps out, and takes it once the lock goes", async () => {
    const save = () => invoke(personasRoute.POST, "/api/v1/personas", { body: { name: "busy-test", permission_mode: "read-only", skills: { allow: ["*"] } } });
    lockTheFile();
    try {
      const { value: refused, stallMs } = await worstStall(save);
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("unavailable");
      expect(stallMs).toBeLessThan(1000);
    } finally {
      releaseTheFile();
    }
    expect((await save()).status).toBe(201);
    expect(await db().persona.count({ where: { name: "busy-test" } })).toBe(1);
  });

  it("keeps answering reads of an API token whose last-use stamp is due, while the lock keeps the stamp out", async () => {
    const created = await invoke(tokensRoute.POST, "/api/v1/tokens", { body: { persona: "default", name: "busy-reader" } });
    expect(created.status).toBe(201);
    const { token } = (await created.json()) as { token: string };
    lockTheFile();
    try {
      const read = await invoke(callsRoute.GET, "/api/v1/calls?limit=1", { as: { authorization: `Bearer ${token}` } });
      expect(read.status).toBe(200);
    } finally {
      releaseTheFile();
    }
  });

  it("answers a refused attempt 403 while the file is locked, and records it once the lock goes, stamped when it was refused", async () => {
    const operator = await createPerson("operator");
    const entries = () => db().auditEvent.findMany({ where: { action: "access.refused", actor: operator.email } });
    lockTheFile();
    let refusedAt: number;
    try {
      const response = await invoke(usersRoute.POST, "/api/v1/users", { as: operator.headers, body: { email: "x@console.local", password: "x".repeat(16), role: "admin" } });
      refusedAt = Date.now();
      expect(response.status).toBe(403);
      expect(await entries()).toEqual([]);
    } finally {
      releaseTheFile();
    }
    let rows = await entries();
    for (let tries = 0; tries < 100 && rows.length === 0; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      rows = await entries();
    }
    expect(rows.map((row) => JSON.parse(row.details) as { reason: string }).map((details) => details.reason)).toEqual([`this needs the admin role; ${operator.email} is an operator`]);
    expect(rows[0]!.at.getTime()).toBeLessThanOrEqual(refusedAt);
  }, 30_000);

  it("answers 503, never 500, to writes that go through Prisma's client or Better Auth (a sign-in, a token)", async () => {
    const person = await createPerson("operator");
    lockTheFile();
    try {
      const login = await invoke(loginRoute.POST, "/api/v1/auth/login", { as: "anonymous", body: { email: person.email, password: person.password } });
      expect(login.status).toBe(503);
      expect(login.headers.get("retry-after")).toBe("1");
      const token = await invoke(tokensRoute.POST, "/api/v1/tokens", { as: person.headers, body: { name: "while-locked", persona: "default" } });
      expect(token.status).toBe(503);
      expect(((await token.json()) as { error: { code: string } }).error.code).toBe("unavailable");
    } finally {
      releaseTheFile();
    }
  }, 30_000);

  it("does not say a sign-out worked while the lock kept the session: 503, the session still valid, and it ends once the lock goes", async () => {
    const person = await createPerson("viewer");
    lockTheFile();
    try {
      const logout = await invoke(logoutRoute.POST, "/api/v1/auth/logout", { as: person.headers, body: {} });
      expect(logout.status).toBe(503);
      expect(logout.headers.getSetCookie()).toEqual([]);
    } finally {
      releaseTheFile();
    }
    expect((await invoke(sessionRoute.GET, "/api/v1/auth/session", { as: person.headers })).status).toBe(200);
    expect((await invoke(logoutRoute.POST, "/api/v1/auth/logout", { as: person.headers, body: {} })).status).toBe(200);
    expect((await invoke(sessionRoute.GET, "/api/v1/auth/session", { as: person.headers })).status).toBe(401);
  }, 30_000);

  it("keeps a result produced while the file was locked: the call ends succeeded with it once the lock goes", async () => {
    const fs = await import("node:fs");
    const path = await import("node:path");
    const started = await invoke(skillCallsRoute.POST, "/api/v1/skills/slowish/calls", { body: { args: {}, wait: false }, params: { name: "slowish" } });
    expect(started.status).toBe(202);
    const { call } = (await started.json()) as { call: Call };
    expect(await waitForStatus(call.id, ["running"])).toBe("running");
    lockTheFile();
    // The process prints its result now; its finish meets the lock, and so do the lease renewals.
    fs.writeFileSync(path.join(testConsole.dir, "go"), "");
    // Longer than the lease (1.5 s) and the console's busy retries (2 s): the lease lapses.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    releaseTheFile();
    // The sweep that would mark lapsed calls interrupted leaves it: its worker kept calling.
    const swept = await interruptLapsedCalls();
    expect(swept.map((row) => row.id)).not.toContain(call.id);
    expect(await waitForStatus(call.id, ["succeeded", "failed", "interrupted"], 20_000)).toBe("succeeded");
    const row = await db().call.findUniqueOrThrow({ where: { id: call.id } });
    expect(row.result).toBe('{"kept": "this result"}');
  }, 40_000);
});
