import { execFileSync } from "node:child_process";
import { generateKeyPairSync, sign as signBytes, type KeyObject } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import * as packRoute from "@/app/api/v1/packs/[id]/route";
import * as enableRoute from "@/app/api/v1/packs/[id]/enable/route";
import * as rollbackRoute from "@/app/api/v1/packs/[id]/rollback/route";
import * as marketplaceRoute from "@/app/api/v1/packs/marketplace/route";
import * as packsRoute from "@/app/api/v1/packs/route";
import { packDigestList, readFolderEntries, PACK_ENTRY_LIMITS } from "@/lib/server/packs/pack-tree";
import type { Pack, PackReview } from "@/lib/types/pack";
import { invoke } from "../helpers/route-client";
import { TEST_ORIGIN } from "../helpers/test-people";

/** Who sends a request: the test admin (default) or a person's headers. */
export type Sender = "admin" | Record<string, string>;

/** One subprocess skill of a fixture pack: its manifest fields and the body of its run.sh. */
export interface FixtureSkill {
  manifest: Record<string, unknown>;
  script?: string;
  files?: Record<string, string>;
}

/**
 * Writes a pack folder: `pack.json` (`name`, `version`, a description) and each skill as
 * `<folder>/skill.json` + an executable `run.sh` (default: reads stdin, answers `{"ok": true}`), plus
 * its `files`. Returns the folder.
 */
export function writePack(dir: string, name: string, version: string, skills: Record<string, FixtureSkill>, extra: Record<string, unknown> = {}): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "pack.json"), JSON.stringify({ name, version, description: `fixture pack ${name}`, ...extra }, null, 2));
  for (const [folder, skill] of Object.entries(skills)) {
    const skillDir = path.join(dir, folder);
    fs.mkdirSync(skillDir, { recursive: true });
    fs.writeFileSync(path.join(skillDir, "skill.json"), JSON.stringify({ description: `skill ${folder}`, entry: "run.sh", ...skill.manifest }, null, 2));
    fs.writeFileSync(path.join(skillDir, "run.sh"), `#!/bin/bash\n${skill.script ?? `cat > /dev/null; echo '{"ok": true, "from": "${folder}"}'`}\n`, { mode: 0o755 });
    for (const [file, text] of Object.entries(skill.files ?? {})) {
      fs.mkdirSync(path.dirname(path.join(skillDir, file)), { recursive: true });
      fs.writeFileSync(path.join(skillDir, file), text);
    }
  }
  return dir;
}

/** `POST /api/v1/packs` with a JSON source. */
export function stage(source: Record<string, unknown>, as: Sender = "admin"): Promise<Response> {
  return invoke(packsRoute.POST, "/api/v1/packs", { body: { source }, as });
}

/** `POST /api/v1/packs` with a `.tar.gz` body, as the test admin's session headers `headers`. */
export function upload(bytes: Buffer, headers: Record<string, string>, query = ""): Promise<Response> {
  const request = new Request(`${TEST_ORIGIN}/api/v1/packs${query}`, { method: "POST", body: new Uint8Array(bytes), headers: { ...headers, "content-type": "application/gzip", "content-length": String(bytes.length) } });
  return (packsRoute.POST as unknown as (request: Request, context: unknown) => Promise<Response>)(request, { params: Promise.resolve({}) });
}

/** Stages a folder and returns its Pack, failing the test unless the answer is 201. */
export async function stageFolder(folder: string, as: Sender = "admin"): Promise<Pack> {
  const response = await stage({ type: "folder", path: folder }, as);
  if (response.status !== 201) throw new Error(`staging ${folder}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { pack: Pack }).pack;
}

/** `GET /api/v1/packs/{id}`. */
export async function review(id: string): Promise<PackReview> {
  const response = await invoke(packRoute.GET, `/api/v1/packs/${id}`, { params: { id } });
  if (response.status !== 200) throw new Error(`review ${id}: ${response.status} ${await response.text()}`);
  return (await response.json()) as PackReview;
}

/** `GET /api/v1/packs`. */
export async function listPacks(): Promise<Pack[]> {
  return ((await (await invoke(packsRoute.GET, "/api/v1/packs")).json()) as { packs: Pack[] }).packs;
}

/** `POST /api/v1/packs/{id}/enable` as `as`. */
export function enable(id: string, as: Sender = "admin"): Promise<Response> {
  return invoke(enableRoute.POST, `/api/v1/packs/${id}/enable`, { method: "POST", params: { id }, as });
}

/** `POST /api/v1/packs/{id}/rollback` as `as`. */
export function rollback(id: string, as: Sender = "admin"): Promise<Response> {
  return invoke(rollbackRoute.POST, `/api/v1/packs/${id}/rollback`, { method: "POST", params: { id }, as });
}

/** `DELETE /api/v1/packs/{id}` as `as`. */
export function remove(id: string, as: Sender = "admin"): Promise<Response> {
  return invoke(packRoute.DELETE, `/api/v1/packs/${id}`, { method: "DELETE", params: { id }, as });
}

/** `POST /api/v1/packs/marketplace` with a source. */
export function marketplace(source: Record<string, unknown>): Promise<Response> {
  return invoke(marketplaceRoute.POST, "/api/v1/packs/marketplace", { body: { source } });
}

/** A fresh ed25519 key pair and its CONSOLE_PACK_TRUSTED_KEYS entry (`name=<base64 SPKI DER>`). */
export function signingKey(name: string): { privateKey: KeyObject; trusted: string } {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  return { privateKey, trusted: `${name}=${publicKey.export({ type: "spki", format: "der" }).toString("base64")}` };
}

/** Signs a pack folder in place: writes `pack.sig`, base64 of the ed25519 signature of its digest list. */
export async function signPack(folder: string, privateKey: KeyObject): Promise<void> {
  const list = packDigestList(await readFolderEntries(folder, { maxBytes: 64 * 1024 * 1024, ...PACK_ENTRY_LIMITS }));
  fs.writeFileSync(path.join(folder, "pack.sig"), `${signBytes(null, Buffer.from(list), privateKey).toString("base64")}\n`);
}

/** Runs git in `cwd` with a fixed identity; returns its trimmed stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { NODE_ENV: "test", PATH: process.env.PATH, HOME: cwd, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@e", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@e", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  }).trim();
}
