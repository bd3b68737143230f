import { readFileSync } from "node:fs";

/** Largest uid the kernel accepts ((uid_t)-1 means "unchanged"). */
const MAX_UID = 4_294_967_294;

/** Throws RangeError unless `uid` is a uid the kernel accepts (an integer 0..4294967294). */
export function assertUid(uid: number): void {
  if (!Number.isInteger(uid) || uid < 0 || uid > MAX_UID) throw new RangeError(`SKILL_SANDBOX_UID must be an integer uid, got ${uid}`);
}

/** The /etc/passwd entry of `uid`: its name and primary gid; null when there is none (or /etc/passwd is unreadable). */
export function lookupUser(uid: number): { name: string; gid: number } | null {
  let text: string;
  try {
    text = readFileSync("/etc/passwd", "utf8");
  } catch {
    return null;
  }
  for (const line of text.split("\n")) {
    const [name, , entryUid, entryGid] = line.split(":");
    if (name !== undefined && Number(entryUid) === uid && entryGid !== undefined && /^\d+$/.test(entryGid)) {
      return { name, gid: Number(entryGid) };
    }
  }
  return null;
}

/** How a uid reads in a message: `root`, `nobody (uid 65534)`, or `uid 1234` when it has no name. */
export function describeUid(uid: number): string {
  const user = lookupUser(uid);
  if (user === null) return `uid ${uid}`;
  return uid === 0 ? user.name : `${user.name} (uid ${uid})`;
}
