/**
 * First start (issue 4 point 1): with no user and no CONSOLE_ADMIN_PASSWORD, the console creates
 * `admin@console.local` with a random password and prints it once; later starts print nothing.
 * scripts/console-server.mjs triggers the start-up as soon as it listens, so `npm start` prints it at
 * start rather than at the first visitor (tests/scripts/peer-address.test.ts covers its self URL).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ensureFirstAdmin } from "@/lib/server/auth/users";
import { ensureConsoleStarted } from "@/lib/server/console-startup";
import { db } from "@/lib/server/db";
import { setUpTestConsole } from "../helpers/test-console";
import { signIn } from "../helpers/test-people";

beforeAll(async () => {
  // An empty CONSOLE_ADMIN_PASSWORD counts as unset: the password is generated.
  await setUpTestConsole({ CONSOLE_ADMIN_PASSWORD: "" });
});

describe("the first admin", () => {
  it("is never created while `next build` evaluates pages (its password must not land in a build log)", async () => {
    process.env.NEXT_PHASE = "phase-production-build";
    try {
      await expect(ensureConsoleStarted()).rejects.toThrow("the console does not start during next build");
    } finally {
      delete process.env.NEXT_PHASE;
    }
    expect(await db().user.count()).toBe(0);
  });

  it("is created with a random password printed once, which signs in", async () => {
    expect(await db().user.count()).toBe(0);
    const lines: string[] = [];
    const password = await ensureFirstAdmin((line) => lines.push(line));
    expect(password).toMatch(/^[\w-]{20,}$/);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("admin@console.local");
    expect(lines[0]).toContain(`password: ${password}`);
    expect(await db().user.findMany({ select: { email: true, role: true } })).toEqual([{ email: "admin@console.local", role: "admin" }]);
    await expect(signIn("admin@console.local", password!)).resolves.toHaveProperty("cookie");

    const again: string[] = [];
    expect(await ensureFirstAdmin((line) => again.push(line))).toBeNull();
    expect(again).toEqual([]);
  });

  it("is not created again by the console's start-up once a user exists", async () => {
    await ensureConsoleStarted();
    expect(await db().user.count()).toBe(1);
  });
});
