/**
 * "The last admin cannot be demoted" must hold when two admins demote each other at the same moment:
 * a count read before the write lets both demotions pass the check, leaving a console nobody can
 * administer (no one can create people, change roles, fix personas or revoke others' tokens).
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as userRoute from "@/app/api/v1/users/[id]/route";
import { setUserRole } from "@/lib/server/auth/users";
import { db } from "@/lib/server/db";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole } from "../helpers/test-console";
import { createPerson, TEST_ADMIN } from "../helpers/test-people";

beforeAll(async () => {
  await setUpTestConsole();
});

describe("demoting admins concurrently", () => {
  it("always leaves at least one admin", async () => {
    for (let round = 0; round < 5; round++) {
      // Exactly two admins: the test admin steps down first (there are others then).
      await db().user.updateMany({ where: { email: TEST_ADMIN.email }, data: { role: "admin" } });
      const a = await createPerson("admin", `admin-a-${round}`);
      const b = await createPerson("admin", `admin-b-${round}`);
      const others = await db().user.findMany({ where: { role: "admin", email: { notIn: [a.email, b.email] } } });
      for (const other of others) await db().user.update({ where: { id: other.id }, data: { role: "operator" } });
      const [rowA, rowB] = [await db().user.findUniqueOrThrow({ where: { email: a.email } }), await db().user.findUniqueOrThrow({ where: { email: b.email } })];
      const demote = (by: Record<string, string>, id: string) => invoke(userRoute.PATCH, `/api/v1/users/${id}`, { method: "PATCH", body: { role: "viewer" }, params: { id }, as: by });
      const answers = await Promise.all([demote(a.headers, rowB.id), demote(b.headers, rowA.id)]);
      const statuses = answers.map((response) => response.status).sort();
      expect(await db().user.count({ where: { role: "admin" } }), `round ${round}: ${statuses.join(",")}`).toBeGreaterThanOrEqual(1);
      expect(statuses[0]).toBe(200);
      expect([403, 409]).toContain(statuses[1]);
    }
  }, 60_000);

  it("always leaves at least one admin when the two demotions pass authentication together (two consoles)", async () => {
    for (let round = 0; round < 5; round++) {
      await db().user.updateMany({ where: { email: TEST_ADMIN.email }, data: { role: "admin" } });
      const a = await createPerson("admin", `admin-c-${round}`);
      const b = await createPerson("admin", `admin-d-${round}`);
      const others = await db().user.findMany({ where: { role: "admin", email: { notIn: [a.email, b.email] } } });
      for (const other of others) await db().user.update({ where: { id: other.id }, data: { role: "operator" } });
      const [rowA, rowB] = [await db().user.findUniqueOrThrow({ where: { email: a.email } }), await db().user.findUniqueOrThrow({ where: { email: b.email } })];
      // What the route runs once apiRoute let each admin through (both were admins when they asked).
      const results = await Promise.allSettled([setUserRole(rowB.id, "viewer", { email: a.email, userId: rowA.id }), setUserRole(rowA.id, "viewer", { email: b.email, userId: rowB.id })]);
      expect(await db().user.count({ where: { role: "admin" } }), `round ${round}: ${results.map((result) => result.status).join(",")}`).toBe(1);
    }
  }, 60_000);
});
