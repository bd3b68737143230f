/**
 * Args the schema accepts but canonicalize (RFC 8785, canonicalize@4) refuses: a number that overflows
 * to -Infinity (`-1e400`, which passes `maximum: 10`; `"type": "number"` accepts it too, ajv runs with
 * strict: false, so strictNumbers is off) and a lone surrogate (`"\ud800"`). The validation thread
 * threw, the job was rejected as an internal failure, and the client got 500 `internal` instead of
 * 400 `invalid_args` (nothing ran, but every such request logged an internal error).
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as skillCallsRoute from "@/app/api/v1/skills/[name]/calls/route";
import { db } from "@/lib/server/db";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill } from "../helpers/test-console";

beforeAll(async () => {
  const testConsole = await setUpTestConsole();
  writeSkill(testConsole.root, "num", { name: "num", schema: { type: "object", properties: { n: { type: "number", maximum: 10 }, s: { type: "string" } } } }, "cat");
});

describe("args canonicalize cannot write", () => {
  const cases: Array<[string, string]> = [
    ['{"args":{"n":-1e400}}', "Infinity is not allowed"],
    ['{"args":{"s":"\\ud800"}}', "Lone surrogate is not allowed"],
    ['{"args":{"__proto__":{"x":1e400}}}', "Infinity is not allowed"],
  ];
  for (const [body, why] of cases) {
    it(`answers 400 invalid_args for ${body}, starting nothing`, async () => {
      const response = await invoke(skillCallsRoute.POST, "/api/v1/skills/num/calls", { body, params: { name: "num" } });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: unknown }).error).toMatchObject({
        code: "invalid_args",
        message: `args have no canonical JSON form (RFC 8785), so they cannot be bound to a digest: ${why}`,
      });
      expect(await db().call.count({ where: { skill: "num" } })).toBe(0);
    });
  }
});
