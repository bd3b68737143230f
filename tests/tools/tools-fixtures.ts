import * as personasRoute from "@/app/api/v1/personas/route";
import * as toolsRoute from "@/app/api/v1/tools/route";
import * as toolCallRoute from "@/app/api/v1/tools/call/route";
import type { PermissionMode } from "@/lib/types/persona";
import { invoke } from "../helpers/route-client";
import { writeNativeSkill, writeSkill, type TestConsole } from "../helpers/test-console";

/** Who sends a request: the test admin (default), nobody, or a header set (a person's session, a bearer token). */
export type Sender = "admin" | "anonymous" | Record<string, string>;

/** Args schema of the `disk_usage` fixture skill. */
export const DISK_USAGE_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["path"],
  properties: { path: { type: "string", minLength: 1, description: "Folder to measure." } },
};

/** Args schema of the `restart_service` fixture skill. */
export const RESTART_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["service"],
  properties: { service: { type: "string", enum: ["web", "worker"] } },
};

/** Args schema of the `wipe_disk` fixture skill. */
export const WIPE_SCHEMA = { type: "object", additionalProperties: false, properties: { disk: { type: "string" } } };

/** The `log-analyzer` fixture's SKILL.md body (its level-2 instructions). */
export const LOG_ANALYZER_BODY = "# Log analyzer\n\nRun `scripts/count.sh <file>` and read `references/levels.md`.\n";

/**
 * Writes the skills every tools/MCP test uses:
 * - subprocess (category `ops`): `disk_usage` safe (stderr "measuring <path>", result `{"used": 42}`),
 *   `restart_service` mutating, `wipe_disk` dangerous, `skill_load` (collides with a tool: never a
 *   tool), `loose_schema` (schema root without `type: object`: never a tool), `failing_check` (safe, exits 3);
 * - native: `analysis/log-analyzer` (class read → safe; when_to_use; scripts/count.sh that writes two
 *   stderr lines and prints its args; references/levels.md; assets/logo.png binary),
 *   `devops/deploy-service` (no class → scripts run as mutating), `system/health-check` (safe,
 *   requires a binary that does not exist → unavailable).
 */
export function writeToolFixtures(testConsole: TestConsole): void {
  const { root, nativeRoot } = testConsole;
  writeSkill(root, "disk_usage", { name: "disk_usage", description: "Measures the disk space a folder uses.", class: "safe", category: "ops", schema: DISK_USAGE_SCHEMA }, 'read -r args; echo "measuring $args" >&2; echo \'{"used": 42}\'');
  writeSkill(root, "restart_service", { name: "restart_service", description: "Restarts a service.", class: "mutating", category: "ops", schema: RESTART_SCHEMA }, "echo '{\"restarted\": true}'");
  writeSkill(root, "wipe_disk", { name: "wipe_disk", description: "Erases a disk.", class: "dangerous", category: "ops", schema: WIPE_SCHEMA }, "echo '{\"wiped\": true}'");
  writeSkill(root, "skill_load", { name: "skill_load", description: "Shadows a tool name.", class: "safe", category: "ops", schema: { type: "object" } }, "echo '{}'");
  writeSkill(root, "loose_schema", { name: "loose_schema", description: "Has no object root.", class: "safe", category: "ops", schema: { properties: { x: { type: "string" } } } }, "echo '{}'");
  writeSkill(root, "failing_check", { name: "failing_check", description: "Always fails.", class: "safe", category: "ops", schema: { type: "object", additionalProperties: false } }, "echo 'broken' >&2; exit 3");
  writeNativeSkill(nativeRoot, "analysis", "log-analyzer", {
    frontmatter: "name: log-analyzer\ndescription: >\n  Analyzes log files and counts\n  lines by level.\nwhen_to_use: When a log file shows errors.\nclass: read",
    body: LOG_ANALYZER_BODY,
    files: {
      "scripts/count.sh": '#!/bin/bash\necho "reading $1" >&2\necho "counted" >&2\necho "lines: $#"\nfor a in "$@"; do echo "arg=$a"; done\n',
      "references/levels.md": "ERROR, WARN, INFO\n",
      "assets/logo.png": "\u0089PNG\r\n\u001a\n\u0000\u0000\u0000",
    },
  });
  writeNativeSkill(nativeRoot, "devops", "deploy-service", {
    frontmatter: "name: deploy-service\ndescription: Deploys a service to production.\nwhen_to_use: |\n  When a release is tagged\n  and approved.",
    files: { "scripts/deploy.sh": "#!/bin/sh\necho deployed\n" },
  });
  writeNativeSkill(nativeRoot, "system", "health-check", {
    frontmatter: "name: health-check\ndescription: Checks the host's health.\nclass: safe\nmetadata:\n  requires:\n    bins: [no-such-binary-for-tools-tests]",
    files: { "scripts/check.sh": "#!/bin/sh\necho healthy\n" },
  });
}

/** Creates a persona through `POST /api/v1/personas` as the test admin. Throws unless it answers 201. */
export async function createPersona(name: string, mode: PermissionMode, skills: { allow: string[]; deny?: string[] }, categories?: string[]): Promise<void> {
  const body = { name, permission_mode: mode, skills: { allow: skills.allow, deny: skills.deny ?? [] }, ...(categories ? { categories } : {}) };
  const response = await invoke(personasRoute.POST, "/api/v1/personas", { body });
  if (response.status !== 201) throw new Error(`creating persona ${name} failed: ${response.status} ${await response.text()}`);
}

/** `GET /api/v1/tools` with `query` (e.g. `?persona=ops&format=anthropic`) as `as`. */
export function getTools(query: string, as: Sender = "admin"): Promise<Response> {
  return invoke(toolsRoute.GET, `/api/v1/tools${query}`, { as });
}

/** `POST /api/v1/tools/call` with `body` as `as`. */
export function callToolRoute(body: unknown, as: Sender = "admin"): Promise<Response> {
  return invoke(toolCallRoute.POST, "/api/v1/tools/call", { body, as });
}

/** `POST /api/v1/tools/call` that must answer `status`; returns the parsed body. */
export async function callToolExpecting<T = Record<string, unknown>>(status: number, body: unknown, as: Sender = "admin"): Promise<T> {
  const response = await callToolRoute(body, as);
  const text = await response.text();
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status} ${text}`);
  return JSON.parse(text) as T;
}
