/**
 * The console's own secrets never reach a skill (DESIGN.md: a child gets the names its env_allow lists,
 * never the console's secrets — lib/server/env.ts CONSOLE_SECRET_NAMES), even when a manifest asks for
 * them by name; and the generated session secret (no CONSOLE_AUTH_SECRET) is a 0600 file under ./data
 * that later starts reuse.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as skillCallsRoute from "@/app/api/v1/skills/[name]/calls/route";
import { authSecret, GENERATED_SECRET_FILE } from "@/lib/server/auth/auth-secret";
import { CONSOLE_SECRET_NAMES, MIN_AUTH_SECRET_LENGTH, resetConfigForTests } from "@/lib/server/env";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";

const ASKED = [...CONSOLE_SECRET_NAMES, "SKILL_VISIBLE"];
/** Secrets this file sets on top of setUpTestConsole's (CONSOLE_AUTH_SECRET, CONSOLE_ADMIN_PASSWORD, DATABASE_URL). */
const EXTRA_SECRETS = {
  BETTER_AUTH_SECRET: "better-auth-secret-value-0123456789",
  AUTH_SECRET: "auth-secret-value-0123456789abcdef",
  WORKER_TOKEN: "skw_test-token-0123456789",
};

let testConsole: TestConsole;

beforeAll(async () => {
  testConsole = await setUpTestConsole({ ...EXTRA_SECRETS, SKILL_VISIBLE: "yes" });
  // Only bash builtins: the child's environment has no PATH. Prints every exported name and the values
  // of the asked-for variables ("<unset>" when absent).
  const script = [
    'names=""; for n in $(compgen -e); do names="$names,\\"$n\\""; done',
    `values=""; for n in ${ASKED.join(" ")}; do values="$values,\\"$n\\":\\"\${!n-<unset>}\\""; done`,
    'printf \'{"names":[%s],"values":{%s}}\' "${names#,}" "${values#,}"',
  ].join("\n");
  writeSkill(testConsole.root, "env_probe", { name: "env_probe", env_allow: ASKED }, script);
});

describe("console secrets and env_allow", () => {
  it("forwards none of CONSOLE_SECRET_NAMES to a skill whose env_allow lists them, and still forwards the rest", async () => {
    expect(CONSOLE_SECRET_NAMES.has("CONSOLE_AUTH_SECRET")).toBe(true);
    expect(CONSOLE_SECRET_NAMES.has("CONSOLE_ADMIN_PASSWORD")).toBe(true);
    const response = await invoke(skillCallsRoute.POST, "/api/v1/skills/env_probe/calls", { body: { args: {}, wait: true }, params: { name: "env_probe" } });
    const body = (await response.json()) as { call: { status: string; result: { names: string[]; values: Record<string, string> } } };
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.call.status).toBe("succeeded");
    const { names, values } = body.call.result;
    for (const secret of CONSOLE_SECRET_NAMES) {
      expect(names).not.toContain(secret);
      expect(values[secret]).toBe("<unset>");
    }
    expect(values.SKILL_VISIBLE).toBe("yes");
    // No secret's value appears anywhere in the call (its result, events or error).
    const output = JSON.stringify(body);
    const secrets: Record<string, string> = {
      ...EXTRA_SECRETS,
      CONSOLE_AUTH_SECRET: process.env.CONSOLE_AUTH_SECRET!,
      CONSOLE_ADMIN_PASSWORD: process.env.CONSOLE_ADMIN_PASSWORD!,
      DATABASE_URL: process.env.DATABASE_URL!,
    };
    for (const [name, value] of Object.entries(secrets)) expect(output, name).not.toContain(value);
  });
});

describe("the generated session secret", () => {
  const saved = { cwd: process.cwd(), secret: process.env.CONSOLE_AUTH_SECRET };
  let dir: string;

  beforeAll(() => {
    // config().dataDir is ./data of the working directory.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "skill-console-secret-"));
    process.chdir(dir);
    delete process.env.CONSOLE_AUTH_SECRET;
    resetConfigForTests();
  });

  afterAll(() => {
    process.chdir(saved.cwd);
    process.env.CONSOLE_AUTH_SECRET = saved.secret;
    resetConfigForTests();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("is created with mode 0600 on first use and the same secret is read back later", () => {
    const file = path.join(dir, "data", GENERATED_SECRET_FILE);
    const first = authSecret();
    // 48 random bytes, base64url.
    expect(first).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    resetConfigForTests();
    expect(authSecret()).toBe(first);
    expect(fs.readFileSync(file, "utf8").trim()).toBe(first);
  });

  it("refuses a truncated secret file instead of signing with it", () => {
    const file = path.join(dir, "data", GENERATED_SECRET_FILE);
    fs.writeFileSync(file, "short\n", { mode: 0o600 });
    expect(() => authSecret()).toThrow(`${file} holds a secret shorter than ${MIN_AUTH_SECRET_LENGTH} characters; remove it to generate a new one`);
  });
});
