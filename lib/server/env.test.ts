import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, loadWorkerConfig, SETTINGS, splitRoots } from "./env";

describe("loadConfig (DESIGN.md Configuration)", () => {
  it("has a safe default for every setting", () => {
    const config = loadConfig({ NODE_ENV: "test" });
    expect(config).toMatchObject({
      skillRoots: [path.resolve("skills")],
      externalRootsConfigured: false,
      skillsPath: path.resolve("skills"),
      databaseUrl: `file:${path.resolve("data/console.db")}`,
      host: "127.0.0.1",
      port: 3000,
      defaultTimeoutSeconds: 30,
      killGraceMs: 2000,
      stdoutLimitBytes: 4 * 1024 * 1024,
      stderrLimitBytes: 8 * 1024 * 1024,
      stderrLineLimit: 250_000,
      argsLimitBytes: 8 * 1024 * 1024,
      maxConcurrentCalls: 8,
      leaseMs: 15_000,
    });
  });

  it("replaces the bundled root with ONGRID_SKILLS_EXTERNAL_DIRS, split on colons and commas", () => {
    const config = loadConfig({ NODE_ENV: "test", ONGRID_SKILLS_EXTERNAL_DIRS: "/etc/a:/etc/b,/opt/c, relative" });
    expect(config.skillRoots).toEqual(["/etc/a", "/etc/b", "/opt/c", "relative"]);
    expect(config.externalRootsConfigured).toBe(true);
    expect(splitRoots("::,")).toEqual([]);
  });

  it("refuses unusable values, naming the variable", () => {
    expect(() => loadConfig({ NODE_ENV: "test", PORT: "http" })).toThrow(new ConfigError('PORT="http" must be a positive integer no larger than 65535'));
    expect(() => loadConfig({ NODE_ENV: "test", SKILL_KILL_GRACE_MS: "-5" })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: "test", DATABASE_URL: "mysql://root:hunter2@db/console" })).toThrow(
      'DATABASE_URL "mysql://…@db/console" is not supported: use a file: (SQLite) or postgresql:// URL',
    );
  });

  it("hides SKILL_SANDBOX_HIDE_PATHS in every sandbox, console's and worker's, refusing a relative entry", () => {
    expect(loadConfig({ NODE_ENV: "test", SKILL_SANDBOX_HIDE_PATHS: "/etc/console/secret-key,/srv/private" }).sandboxHiddenPaths).toEqual(expect.arrayContaining(["/etc/console/secret-key", "/srv/private"]));
    expect(loadWorkerConfig({ NODE_ENV: "test", SKILL_SANDBOX_HIDE_PATHS: "/etc/worker-token" }, { consoleUrl: "http://127.0.0.1:3000" }).sandboxHiddenPaths).toContain("/etc/worker-token");
    expect(() => loadConfig({ NODE_ENV: "test", SKILL_SANDBOX_HIDE_PATHS: "etc/key" })).toThrow(new ConfigError('SKILL_SANDBOX_HIDE_PATHS entry "etc/key" must be an absolute path'));
  });

  it("takes a PostgreSQL URL as it is", () => {
    expect(loadConfig({ NODE_ENV: "test", DATABASE_URL: "postgresql://console@db:5432/console" }).databaseUrl).toBe("postgresql://console@db:5432/console");
  });

  it("reads the pack settings, and names a bad one", () => {
    const config = loadConfig({ NODE_ENV: "test" });
    expect({ packsPath: config.packsPath, allow: config.packsAllowUnsigned, keys: config.packTrustedKeys, max: config.packMaxBytes }).toEqual({ packsPath: path.resolve("./data/packs"), allow: "local", keys: [], max: 64 * 1024 * 1024 });
    expect(() => loadConfig({ NODE_ENV: "test", PACKS_ALLOW_UNSIGNED: "yes" })).toThrow(new ConfigError('PACKS_ALLOW_UNSIGNED="yes" must be local, always or never'));
    expect(() => loadConfig({ NODE_ENV: "test", CONSOLE_PACK_TRUSTED_KEYS: "release=AAAA" })).toThrow(new ConfigError("CONSOLE_PACK_TRUSTED_KEYS: key release is not a public key (base64 of a raw ed25519 key, its SPKI DER, or a PEM)"));
    expect(loadWorkerConfig({ NODE_ENV: "test", PACKS_PATH: "/srv/packs" }, { consoleUrl: "http://127.0.0.1:3000" }).packsPath).toBe("/srv/packs");
    // A packs folder inside a root (or holding one) would load staged versions as that root's skills.
    expect(() => loadConfig({ NODE_ENV: "test", ONGRID_SKILLS_EXTERNAL_DIRS: "/srv/skills", PACKS_PATH: "/srv/skills/.packs" })).toThrow(
      new ConfigError("PACKS_PATH=/srv/skills/.packs overlaps /srv/skills (an allow-list root or SKILLS_PATH): staged packs would load as that root's skills; keep them apart"),
    );
    expect(() => loadConfig({ NODE_ENV: "test", SKILLS_PATH: "/srv/all/native", PACKS_PATH: "/srv/all" })).toThrow(/^PACKS_PATH=\/srv\/all overlaps \/srv\/all\/native/);
    expect(() => loadWorkerConfig({ NODE_ENV: "test", ONGRID_SKILLS_EXTERNAL_DIRS: "/srv/skills", PACKS_PATH: "/srv/skills" }, { consoleUrl: "http://127.0.0.1:3000" })).toThrow(ConfigError);
  });

  it("documents every variable it reads", () => {
    const documented = SETTINGS.map((setting) => setting.name);
    for (const name of ["ONGRID_SKILLS_EXTERNAL_DIRS", "SKILLS_PATH", "PACKS_PATH", "CONSOLE_PACK_TRUSTED_KEYS", "PACKS_ALLOW_UNSIGNED", "PACK_MAX_BYTES", "DATABASE_URL", "HOST", "PORT", "SKILL_STDERR_LINE_LIMIT", "CALL_LEASE_MS"]) {
      expect(documented).toContain(name);
    }
  });
});
