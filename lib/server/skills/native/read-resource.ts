import { constants as fsConstants } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { AppError } from "@/lib/server/errors";
import { isUnderRoot } from "../allowlist-roots";
import type { NativeSkill } from "../registered-skill";
import { isHiddenName } from "./list-resources";

/**
 * One resource file of a native skill as level 3 serves it (issue 5 contract: `?format=json`,
 * skill_read_resource): its path, size in bytes, media type by extension, whether it is binary, and
 * its text when it is text within the limit (else null, with a description saying why).
 */
export interface ResourceContent {
  /** The path as asked for, relative to the skill folder (`references/guide.md`). */
  path: string;
  size: number;
  mediaType: string;
  binary: boolean;
  /** Always false: a file is either sent whole or not at all. */
  truncated: false;
  text: string | null;
  /** E.g. "text file, 120 bytes (text/markdown)", "binary file, 2048 bytes (image/png)". */
  description: string;
}

/** A resource as opened: its content, and the bytes of a file within the limit (null when over it). */
export interface OpenedResource {
  content: ResourceContent;
  bytes: Buffer | null;
  /** True when the file is larger than the limit: described only. */
  tooLarge: boolean;
}

/** How many leading bytes decide whether a file is text (no NUL) when it is not read whole. */
export const TEXT_SNIFF_BYTES = 8192;

const MEDIA_TYPES: Readonly<Record<string, string>> = {
  ".md": "text/markdown",
  ".markdown": "text/markdown",
  ".txt": "text/plain",
  ".text": "text/plain",
  ".log": "text/plain",
  ".csv": "text/csv",
  ".tsv": "text/tab-separated-values",
  ".sh": "text/x-shellscript",
  ".bash": "text/x-shellscript",
  ".py": "text/x-python",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".ts": "text/x-typescript",
  ".json": "application/json",
  ".yaml": "application/yaml",
  ".yml": "application/yaml",
  ".toml": "application/toml",
  ".xml": "application/xml",
  ".html": "text/html",
  ".htm": "text/html",
  ".css": "text/css",
  ".ini": "text/plain",
  ".conf": "text/plain",
  ".sql": "application/sql",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".ico": "image/vnd.microsoft.icon",
  ".pdf": "application/pdf",
  ".zip": "application/zip",
  ".gz": "application/gzip",
  ".tar": "application/x-tar",
};

/** The media type of a file by its extension (case-insensitive); unknown → application/octet-stream. Pure. */
export function mediaTypeOf(file: string): string {
  return MEDIA_TYPES[path.extname(file).toLowerCase()] ?? "application/octet-stream";
}

function notFound(skill: NativeSkill, requested: string): AppError {
  return new AppError("not_found", `no resource ${JSON.stringify(requested)} in skill ${skill.name} (any file of its folder but ${path.basename(skill.skillFile)} and hidden files)`);
}

// True when a path (one form of the request) holds anything a resource path never may.
function forbiddenForm(form: string): boolean {
  if (form === "" || form.includes("\0") || form.includes("\\") || form.startsWith("/") || path.isAbsolute(form)) return true;
  return form.split("/").some((segment) => segment === ".." || segment === "." || segment === "" || isHiddenName(segment));
}

/**
 * Checks a requested resource path (route segments joined with `/`, already URL-decoded once by the
 * router) and splits it into its segments. Decodes it once more, so `%2e%2e` that survived the router
 * is seen as `..`, and refuses either form holding `..`, `.` or empty segments, a hidden segment
 * (`.env`, `.git/`), NUL, a backslash, or an absolute path. Returns null when refused. Pure.
 */
export function splitResourcePath(requested: string): string[] | null {
  let decoded = requested;
  try {
    decoded = decodeURIComponent(requested);
  } catch {
    // Not valid percent-encoding: nothing hidden in it to decode; the raw form is checked below.
  }
  if (forbiddenForm(requested) || forbiddenForm(decoded)) return null;
  return requested.split("/");
}

function isText(bytes: Buffer, complete: boolean): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: !complete });
    return true;
  } catch {
    return false;
  }
}

// Where the open file descriptor really points (Linux /proc), to catch a folder swapped for a
// symlink between the realpath check and the open; null where /proc is not available.
async function openedPath(fd: number): Promise<string | null> {
  try {
    return await fs.readlink(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}

/**
 * Opens one level-3 resource of a native skill (seed 004; DESIGN.md "Native skills": any regular file of
 * the skill folder but SKILL.md itself): the request is checked by splitResourcePath, resolved with
 * realpath, and must stay under realpath(skillDir) and not be the SKILL.md or hidden (a symlink to it, or to
 * anything outside the skill, is refused); the final component is opened with O_NOFOLLOW and O_NONBLOCK (a FIFO never blocks),
 * and what was opened is checked again by its descriptor (a folder swapped for a symlink meanwhile); a
 * hard-linked file (more than one link) is refused,
 * must be a regular file, and its size is checked on the open descriptor. A file within `limitBytes`
 * is read whole; text = valid UTF-8 without NUL. A larger file is described only (its first
 * TEXT_SNIFF_BYTES decide text or binary). Throws AppError `not_found` (404) for anything refused or
 * absent, with one message for all of them.
 */
export async function openSkillResource(skill: NativeSkill, requestedPath: string, limitBytes: number): Promise<OpenedResource> {
  const segments = splitResourcePath(requestedPath);
  if (!segments) throw notFound(skill, requestedPath);
  const base = skill.skillDir;
  let real: string;
  try {
    if ((await fs.realpath(base)) !== base) throw notFound(skill, requestedPath);
    real = await fs.realpath(path.join(base, ...segments));
  } catch {
    throw notFound(skill, requestedPath);
  }
  // Level 2 serves SKILL.md; a hidden file reached through a link is no resource either.
  if (!isUnderRoot(base, real) || real === base || real === skill.skillFile || path.relative(base, real).split(path.sep).some(isHiddenName)) throw notFound(skill, requestedPath);

  let handle: fs.FileHandle;
  try {
    handle = await fs.open(real, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch {
    throw notFound(skill, requestedPath);
  }
  try {
    const stat = await handle.stat();
    // A hard link may be any file's content, outside the folder or SKILL.md's own: no path check can tell.
    if (!stat.isFile() || stat.nlink > 1) throw notFound(skill, requestedPath);
    // What was opened, whatever a folder swapped for a symlink meanwhile made the path lead to: it must
    // still be a file of the folder, not SKILL.md, and not hidden.
    const where = await openedPath(handle.fd);
    if (where !== null && (!isUnderRoot(base, where) || where === skill.skillFile || path.relative(base, where).split(path.sep).some(isHiddenName))) {
      throw notFound(skill, requestedPath);
    }

    const size = stat.size;
    const mediaType = mediaTypeOf(requestedPath);
    if (size > limitBytes) {
      const head = Buffer.alloc(Math.min(TEXT_SNIFF_BYTES, size));
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      const binary = !isText(head.subarray(0, bytesRead), false);
      return {
        content: {
          path: requestedPath,
          size,
          mediaType,
          binary,
          truncated: false,
          text: null,
          description: `${binary ? "binary" : "text"} file, ${size} bytes (${mediaType}), larger than the ${limitBytes}-byte limit`,
        },
        bytes: null,
        tooLarge: true,
      };
    }
    // Read at most limit + 1 bytes: a file growing after fstat cannot push memory past the limit.
    const buffer = Buffer.alloc(Math.min(size, limitBytes) + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length === buffer.length) break;
    }
    if (length > limitBytes) {
      return {
        content: { path: requestedPath, size: length, mediaType, binary: false, truncated: false, text: null, description: `file grew while read, larger than the ${limitBytes}-byte limit` },
        bytes: null,
        tooLarge: true,
      };
    }
    const bytes = buffer.subarray(0, length);
    const binary = !isText(bytes, true);
    return {
      content: {
        path: requestedPath,
        size: length,
        mediaType,
        binary,
        truncated: false,
        text: binary ? null : bytes.toString("utf8"),
        description: `${binary ? "binary" : "text"} file, ${length} bytes (${mediaType})`,
      },
      bytes,
      tooLarge: false,
    };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * Level 3 as data (skill_read_resource, `?format=json`): the ResourceContent of one resource file of
 * a native skill — text when it is text within `limitBytes` (bytes), else null with a description
 * ("binary file, 2048 bytes (image/png)", "… larger than the 1048576-byte limit"). Checks as
 * openSkillResource; throws AppError `not_found` (404) for anything refused or absent.
 */
export async function readSkillResource(skill: NativeSkill, requestedPath: string, limitBytes: number): Promise<ResourceContent> {
  return (await openSkillResource(skill, requestedPath, limitBytes)).content;
}
