import { describe, expect, it } from "vitest";
import {
  DEFAULT_SANDBOX_DECLARATION,
  declarationOutsideAllowance,
  describeDeclaration,
  parseSandboxAllowPaths,
  parseSandboxDeclaration,
  type SandboxDeclaration,
} from "@/lib/server/executor/sandbox";

const declaration = (overrides: Partial<SandboxDeclaration>): SandboxDeclaration => ({ read: [], write: [], network: true, devices: [], hostPids: false, ...overrides });

describe("parseSandboxDeclaration: accepted", () => {
  it.each<[string, unknown, SandboxDeclaration]>([
    ["no field: the default", undefined, declaration({})],
    ["an empty object: the default", {}, declaration({})],
    [
      "the DESIGN example",
      { read: ["/var/log"], write: ["/var/cache"], network: true, devices: [], host_pids: false },
      declaration({ read: ["/var/log"], write: ["/var/cache"] }),
    ],
    ["lists come back sorted and de-duplicated", { read: ["/var/log", "/etc/ssl", "/var/log"] }, declaration({ read: ["/etc/ssl", "/var/log"] })],
    ["network false, host_pids true", { network: false, host_pids: true }, declaration({ network: false, hostPids: true })],
    ["a device under /dev/", { devices: ["/dev/fuse", "/dev/net/tun"] }, declaration({ devices: ["/dev/fuse", "/dev/net/tun"] })],
    ["the root itself", { read: ["/"] }, declaration({ read: ["/"] })],
    ["64 entries", { read: Array.from({ length: 64 }, (_, i) => `/srv/${String(i).padStart(2, "0")}`) }, declaration({ read: Array.from({ length: 64 }, (_, i) => `/srv/${String(i).padStart(2, "0")}`) })],
  ])("%s", (_name, value, expected) => {
    expect(parseSandboxDeclaration(value)).toEqual({ ok: true, declaration: expected });
  });

  it("the default declaration is all empty with network on and host pids off, and parsing never shares its arrays", () => {
    expect(DEFAULT_SANDBOX_DECLARATION).toEqual({ read: [], write: [], network: true, devices: [], hostPids: false });
    const parsed = parseSandboxDeclaration(undefined);
    expect(parsed.ok && parsed.declaration.read).not.toBe(DEFAULT_SANDBOX_DECLARATION.read);
  });
});

describe("parseSandboxDeclaration: refused", () => {
  it.each<[string, unknown, string]>([
    ["null", null, "sandbox must be an object, got null"],
    ["an array", [], "sandbox must be an object, got an array"],
    ["a string", "strict", "sandbox must be an object, got a string"],
    ["camelCase hostPids", { hostPids: true }, 'sandbox has an unknown key "hostPids" (known: read, write, network, devices, host_pids)'],
    ["an unknown key", { read: [], exec: ["/bin"] }, 'sandbox has an unknown key "exec" (known: read, write, network, devices, host_pids)'],
    ["a relative path", { read: ["var/log"] }, 'sandbox.read[0] must be an absolute path, not "var/log"'],
    ["a .. segment", { write: ["/var/../etc"] }, 'sandbox.write[0] must be a normalised absolute path, not "/var/../etc" (it contains . or .. segments)'],
    ["a . segment", { read: ["/var/./log"] }, 'sandbox.read[0] must be a normalised absolute path, not "/var/./log" (it contains . or .. segments)'],
    ["a double slash", { read: ["/var//log"] }, 'sandbox.read[0] must be a normalised absolute path, not "/var//log" (it contains //)'],
    ["a trailing slash", { read: ["/var/log/"] }, 'sandbox.read[0] must be a normalised absolute path, not "/var/log/" (it ends with /)'],
    ["a NUL", { read: ["/var\u0000/log"] }, 'sandbox.read[0] must be a normalised absolute path, not "/var\\u0000/log" (it contains a control character)'],
    ["a newline", { read: ["/ok", "/var\n/log"] }, 'sandbox.read[1] must be a normalised absolute path, not "/var\\n/log" (it contains a control character)'],
    ["an over-long path", { read: [`/${"a".repeat(4096)}`] }, `sandbox.read[0] must be a normalised absolute path, not "/${"a".repeat(119)}…" (longer than 4096 characters)`],
    ["a number in a list", { read: [42] }, "sandbox.read[0] must be a string, got a number"],
    ["a list that is a string", { write: "/var/cache" }, "sandbox.write must be an array of absolute paths, got a string"],
    ["65 entries", { read: Array.from({ length: 65 }, (_, i) => `/srv/${i}`) }, "sandbox.read has 65 entries; at most 64 are allowed"],
    ["a device outside /dev", { devices: ["/etc/passwd"] }, 'sandbox.devices[0] must be a device under /dev/, not "/etc/passwd"'],
    ["/dev itself as a device", { devices: ["/dev"] }, 'sandbox.devices[0] must be a device under /dev/, not "/dev"'],
    ["a path next to /dev", { devices: ["/devices/x"] }, 'sandbox.devices[0] must be a device under /dev/, not "/devices/x"'],
    ["/proc", { read: ["/proc"] }, 'sandbox.read[0] may not be under /proc, not "/proc" (declare "host_pids": true to see host processes)'],
    ["below /proc", { write: ["/proc/sys/kernel"] }, 'sandbox.write[0] may not be under /proc, not "/proc/sys/kernel" (declare "host_pids": true to see host processes)'],
    ["the same path read and write", { read: ["/srv"], write: ["/srv"] }, 'sandbox.write "/srv" is also in sandbox.read; list each path once'],
    ["network not a boolean", { network: "yes" }, "sandbox.network must be true or false, got a string"],
    ["host_pids not a boolean", { host_pids: 1 }, "sandbox.host_pids must be true or false, got a number"],
  ])("%s", (_name, value, message) => {
    expect(parseSandboxDeclaration(value)).toEqual({ ok: false, message });
  });
});

describe("parseSandboxAllowPaths", () => {
  it.each<[string | undefined, string[]]>([
    [undefined, []],
    ["", []],
    ["  ", []],
    ["/var/log", ["/var/log"]],
    ["/var/log:/srv,/opt/data", ["/opt/data", "/srv", "/var/log"]],
    [" /srv , /srv:/var/cache:", ["/srv", "/var/cache"]],
    ["/", ["/"]],
  ])("%j → %j", (raw, expected) => {
    expect(parseSandboxAllowPaths(raw)).toEqual(expected);
  });

  it.each<[string, string]>([
    ["var/log", 'SKILL_SANDBOX_ALLOW_PATHS entry "var/log" must be an absolute path'],
    ["/srv:relative", 'SKILL_SANDBOX_ALLOW_PATHS entry "relative" must be an absolute path'],
    ["/srv/../etc", 'SKILL_SANDBOX_ALLOW_PATHS entry "/srv/../etc" must be a normalised absolute path (it contains . or .. segments)'],
  ])("refuses %j", (raw, message) => {
    expect(() => parseSandboxAllowPaths(raw)).toThrow(message);
  });
});

describe("declarationOutsideAllowance", () => {
  const hidden = ["/home", "/root", "/srv/console", "/srv/console/data"];
  it.each<[string, SandboxDeclaration, string[], string | null]>([
    ["nothing declared, nothing allowed", declaration({}), [], null],
    ["network and host_pids need no allowance", declaration({ network: false, hostPids: true }), [], null],
    ["a read with no allowance", declaration({ read: ["/var/log"] }), [], 'sandbox.read "/var/log" is outside SKILL_SANDBOX_ALLOW_PATHS (allowed: none)'],
    ["a read equal to an allowed path", declaration({ read: ["/var/log"] }), ["/var/log"], null],
    ["a write below an allowed path", declaration({ write: ["/var/cache/app"] }), ["/var/cache"], null],
    ["a device below an allowed path", declaration({ devices: ["/dev/fuse"] }), ["/dev"], null],
    ["a sibling that shares a prefix", declaration({ read: ["/var/logs"] }), ["/var/log"], 'sandbox.read "/var/logs" is outside SKILL_SANDBOX_ALLOW_PATHS (allowed: /var/log)'],
    ["a parent of an allowed path", declaration({ read: ["/var"] }), ["/var/log", "/srv"], 'sandbox.read "/var" is outside SKILL_SANDBOX_ALLOW_PATHS (allowed: /var/log, /srv)'],
    ["the second entry is outside", declaration({ read: ["/var/log"], write: ["/etc"] }), ["/var"], 'sandbox.write "/etc" is outside SKILL_SANDBOX_ALLOW_PATHS (allowed: /var)'],
    ["a hidden path itself", declaration({ read: ["/srv/console"] }), ["/"], 'sandbox.read "/srv/console" is inside "/srv/console", which the sandbox always hides'],
    ["below a hidden path", declaration({ write: ["/srv/console/data/x"] }), ["/"], 'sandbox.write "/srv/console/data/x" is inside "/srv/console", which the sandbox always hides'],
    ["a device under a hidden path", declaration({ devices: ["/home/dev"] }), ["/"], 'sandbox.devices "/home/dev" is inside "/home", which the sandbox always hides'],
    ["above a hidden path (masked inside it)", declaration({ read: ["/", "/srv"] }), ["/"], null],
    ["hidden wins over allowed", declaration({ read: ["/root/.ssh"] }), ["/root"], 'sandbox.read "/root/.ssh" is inside "/root", which the sandbox always hides'],
  ])("%s", (_name, declared, allow, expected) => {
    expect(declarationOutsideAllowance(declared, allow, hidden)).toBe(expected);
  });
});

describe("describeDeclaration", () => {
  it.each<[SandboxDeclaration, string]>([
    [declaration({}), "read none · write none · network on · devices none · host pids off"],
    [declaration({ read: ["/var/log"] }), "read /var/log · write none · network on · devices none · host pids off"],
    [
      declaration({ read: ["/etc/ssl", "/var/log"], write: ["/var/cache"], network: false, devices: ["/dev/fuse"], hostPids: true }),
      "read /etc/ssl, /var/log · write /var/cache · network off · devices /dev/fuse · host pids on",
    ],
  ])("%j", (declared, line) => {
    expect(describeDeclaration(declared)).toBe(line);
  });
});
