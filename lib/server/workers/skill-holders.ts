import type { SkillHolders } from "@/lib/types/worker";
import { agreedNow } from "../database-clock";
import { db } from "../db";
import { config } from "../env";
import { AppError } from "../errors";
import { consoleDigest } from "../skills/console-digests";
import { getRegistry } from "../skills/registry";

/**
 * Which workers hold a skill, with which digest (`GET /api/v1/skills/{name}/workers`; DESIGN.md: the
 * skill page shows which workers hold which digest, so drift is visible): the digest of the console's
 * own copy (what a call made now is bound to) and, per worker seen in the last day, its copy's digest,
 * whether it differs (drifted), whether it can run there, and whether the worker is live. Throws
 * AppError `not_found` for an unknown skill.
 */
export async function skillHolders(name: string): Promise<SkillHolders> {
  const now = (await agreedNow()).getTime();
  const registry = await getRegistry();
  const skill = registry.get(name);
  if (!skill) throw new AppError("not_found", `no skill named ${JSON.stringify(name)}`);
  const mine = await consoleDigest(registry, skill);
  const rows = await db().workerSkill.findMany({
    where: { skill: name, worker: { lastSeenAt: { gt: new Date(now - 24 * 3600 * 1000) } } },
    include: { worker: { select: { id: true, name: true, host: true, lastSeenAt: true, stoppedAt: true } } },
    orderBy: { worker: { name: "asc" } },
  });
  const leaseMs = config().leaseMs;
  return {
    digest: mine.digest,
    digestError: mine.error,
    workers: rows.map((row) => ({
      id: row.worker.id,
      name: row.worker.name,
      host: row.worker.host,
      state: row.worker.stoppedAt ? "stopped" : now - row.worker.lastSeenAt.getTime() <= leaseMs ? "live" : "lost",
      digest: row.digest,
      drifted: mine.digest !== null && row.digest !== mine.digest,
      available: row.available,
      reason: row.reason,
    })),
  };
}
