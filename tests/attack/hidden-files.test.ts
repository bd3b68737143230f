/**
 * Reading a console secret's file from a skill (DESIGN.md "Workers and the sandbox": nothing of the
 * host but what is bound; README: the files `npm start` and `npm run worker` read secrets from are in
 * SKILL_SANDBOX_HIDE_PATHS), tried for real through the HTTP API and a bubblewrap worker, whose
 * launcher hands bwrap the worker's descriptors: a skill that declares read access to the folder
 * holding a key file finds the key empty and read-only, and its neighbour as it is. (The empty data
 * bwrap copies over the file comes from a descriptor the launcher must reopen readable: reopened
 * O_PATH, as every bind's is, bwrap failed with "Can't write data to file …: Bad file descriptor" and
 * every call of such a skill failed — CI of 77d36c3, DATABASE_URL_FILE under /tmp.)
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Call } from "@/lib/types/call";
import { requestCall } from "../api/approvals-fixtures";
import { setUpTestConsole, writeSkill } from "../helpers/test-console";

let folder: string;

beforeAll(async () => {
  // Passable and readable by the sandbox's uid, like /etc.
  folder = fs.mkdtempSync(path.join(os.tmpdir(), "hidden-files-"));
  fs.chmodSync(folder, 0o755);
  fs.writeFileSync(path.join(folder, "secret-key"), "the-console-secret-key\n", { mode: 0o644 });
  fs.writeFileSync(path.join(folder, "hosts"), "127.0.0.1 localhost\n", { mode: 0o644 });
  // A secret's file in a folder only its owner may enter (as e2e's DATABASE_URL_FILE): the sandbox's
  // user cannot reach it, so nothing is put over it, and the call still runs.
  fs.mkdirSync(path.join(folder, "private"), { mode: 0o700 });
  fs.writeFileSync(path.join(folder, "private", "database-url"), "postgresql://console:pw@db/console\n", { mode: 0o600 });
  const hidden = [path.join(folder, "secret-key"), path.join(folder, "private", "database-url")].join(":");
  const testConsole = await setUpTestConsole({ SKILL_SANDBOX: "bwrap", SKILL_SANDBOX_ALLOW_PATHS: folder, SKILL_SANDBOX_HIDE_PATHS: hidden });
  writeSkill(
    testConsole.root,
    "key_reader",
    { name: "key_reader", sandbox: { read: [folder] } },
    `key=$(cat ${folder}/secret-key 2>&1); hosts=$(cat ${folder}/hosts 2>&1); url=$(cat ${folder}/private/database-url 2>&1 | sed 's/.*: //'); echo x 2>/dev/null > ${folder}/secret-key; printf '{"key": "%s", "hosts": "%s", "url": "%s", "written": %s}' "$key" "$hosts" "$url" "$([ $? -eq 0 ] && echo true || echo false)"`,
  );
});

describe("a skill reading the folder of a console secret's file", () => {
  it("finds the file empty and read-only, one in a folder it cannot enter unreadable, and the rest as it is", { timeout: 30_000 }, async () => {
    const response = await requestCall("key_reader", { args: {}, wait: true });
    expect(response.status).toBe(200);
    const { call } = (await response.json()) as { call: Call };
    expect({ status: call.status, error: call.error }).toEqual({ status: "succeeded", error: null });
    expect(call.result).toEqual({ key: "", hosts: "127.0.0.1 localhost", url: "Permission denied", written: false });
    expect(fs.readFileSync(path.join(folder, "secret-key"), "utf8")).toBe("the-console-secret-key\n");
  });
});
