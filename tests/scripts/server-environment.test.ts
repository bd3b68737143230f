import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error -- a plain ESM script without type declarations
import { secretFrom, secretsInEnvironmentWarning, serverEnvironment, withoutSecrets, workerEnvironment } from "../../scripts/server-environment.mjs";

describe("serverEnvironment (npm start)", () => {
  it("drops the PATH entries npm prepends, keeping the operator's PATH and every other variable", () => {
    const env = {
      PATH: "/srv/console/node_modules/.bin:/srv/node_modules/.bin:/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin:/usr/local/bin:/usr/bin:/opt/node_modules/tool/bin",
      HOME: "/root",
    };
    expect(serverEnvironment(env)).toEqual({ PATH: "/usr/local/bin:/usr/bin:/opt/node_modules/tool/bin", HOME: "/root" });
    expect(env.PATH.startsWith("/srv/console/node_modules/.bin")).toBe(true);
  });

  it("leaves an environment without PATH as it is", () => {
    expect(serverEnvironment({ HOME: "/root" })).toEqual({ HOME: "/root" });
  });
});

describe("secrets handed to the server and workers (issue 9 point 2: never in a long-lived environment)", () => {
  it("moves CONSOLE_* secrets and their _FILE forms out of the server's environment, reading a _FILE when the variable is unset", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "secrets-"));
    const file = path.join(dir, "admin-password");
    fs.writeFileSync(file, "from-a-file-123\n", { mode: 0o600 });
    const split = withoutSecrets({ HOME: "/root", CONSOLE_AUTH_SECRET: "s".repeat(40), CONSOLE_ADMIN_PASSWORD_FILE: file, WORKER_TOKEN: "wt", WORKER_TOKEN_FILE: "/x" });
    expect(split).toEqual({ env: { HOME: "/root", SKILL_SANDBOX_HIDE_PATHS: `${file}:/x` }, secrets: { CONSOLE_AUTH_SECRET: "s".repeat(40), CONSOLE_ADMIN_PASSWORD: "from-a-file-123" }, inEnvironment: ["CONSOLE_AUTH_SECRET"] });
    expect(() => withoutSecrets({ CONSOLE_ADMIN_PASSWORD_FILE: path.join(dir, "missing") })).toThrow(`CONSOLE_ADMIN_PASSWORD_FILE=${path.join(dir, "missing")} cannot be read: ENOENT`);
    fs.writeFileSync(path.join(dir, "empty"), "\n");
    expect(() => secretFrom({ WORKER_TOKEN_FILE: path.join(dir, "empty") }, "WORKER_TOKEN")).toThrow(`WORKER_TOKEN_FILE=${path.join(dir, "empty")} is empty`);
    expect(secretFrom({}, "WORKER_TOKEN")).toBeNull();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("hands the database URL over too (a postgresql:// one holds the password), warning only about one with a password", () => {
    const url = "postgresql://console:hunter2hunter2@db.internal:5432/console";
    expect(withoutSecrets({ HOME: "/root", DATABASE_URL: url })).toEqual({ env: { HOME: "/root" }, secrets: { DATABASE_URL: url }, inEnvironment: ["DATABASE_URL"] });
    expect(withoutSecrets({ DATABASE_URL: "file:./data/console.db" })).toEqual({ env: {}, secrets: { DATABASE_URL: "file:./data/console.db" }, inEnvironment: [] });
    expect(withoutSecrets({ DATABASE_URL: "postgresql://console@db/console" }).inEnvironment).toEqual([]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "secrets-"));
    fs.writeFileSync(path.join(dir, "database-url"), `${url}\n`, { mode: 0o600 });
    expect(withoutSecrets({ DATABASE_URL_FILE: path.join(dir, "database-url") })).toEqual({ env: { SKILL_SANDBOX_HIDE_PATHS: path.join(dir, "database-url") }, secrets: { DATABASE_URL: url }, inEnvironment: [] });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("adds each _FILE it reads from to SKILL_SANDBOX_HIDE_PATHS, absolute, so no skill's sandbox can read it", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "secrets-"));
    fs.writeFileSync(path.join(dir, "key"), "k".repeat(64), { mode: 0o600 });
    fs.writeFileSync(path.join(dir, "token"), "worker-token", { mode: 0o600 });
    const relative = path.relative(process.cwd(), path.join(dir, "key"));
    expect(withoutSecrets({ SKILL_SANDBOX_HIDE_PATHS: "/srv/private", CONSOLE_SECRET_KEY_FILE: relative, WORKER_TOKEN_FILE: path.join(dir, "token") }).env).toEqual({
      SKILL_SANDBOX_HIDE_PATHS: `/srv/private:${path.join(dir, "key")}:${path.join(dir, "token")}`,
    });
    expect(workerEnvironment({ WORKER_TOKEN_FILE: path.join(dir, "token") })).toEqual({ SKILL_SANDBOX_HIDE_PATHS: path.join(dir, "token") });
    expect(() => withoutSecrets({ WORKER_TOKEN_FILE: "/etc/a:b" })).toThrow("WORKER_TOKEN_FILE=/etc/a:b: a path with ':' or ',' cannot be hidden from skills' sandboxes (SKILL_SANDBOX_HIDE_PATHS); move the file");
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("gives workers none of them, nor the database URL", () => {
    expect(workerEnvironment({ HOME: "/root", DATABASE_URL: "file:x", CONSOLE_ADMIN_PASSWORD: "p", CONSOLE_ADMIN_PASSWORD_FILE: "/f", WORKER_TOKEN: "t", WORKER_TOKEN_FILE: "/t" })).toEqual({ HOME: "/root", SKILL_SANDBOX_HIDE_PATHS: "/f:/t" });
  });

  it("warns about secrets given in the launcher's own environment, naming the _FILE forms", () => {
    expect(secretsInEnvironmentWarning([])).toBeNull();
    expect(secretsInEnvironmentWarning(["CONSOLE_ADMIN_PASSWORD"])).toBe(
      "warning: CONSOLE_ADMIN_PASSWORD is in the environment of this launcher (and of npm) for as long as it runs, readable in /proc/<pid>/environ by the same user and root; the server and workers never get it there. CONSOLE_ADMIN_PASSWORD_FILE (a file of mode 0600) keeps it out of every environment",
    );
  });
});
