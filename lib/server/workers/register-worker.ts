import { randomUUID } from "node:crypto";
import { agreedNow } from "../database-clock";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { Prisma } from "@prisma/client";
import type { WorkerRegistration, WorkerSession, WorkerSkillReport } from "@/lib/types/worker";
import { recordAudit } from "../audit/audit-trail";
import { db } from "../db";
import { AppError } from "../errors";
import { statements } from "../db-statements";
import { modelTransaction } from "../db-transactions";
import { announceQueued } from "../calls/call-queue";
import { interruptWorkerCalls } from "../calls/interrupt-calls";
import { config } from "../env";
import type { WorkerCaller } from "./worker-auth";
import { claimPollMs } from "./claim-calls";

/**
 * Registers a worker process (`POST /api/v1/workers/register`; DESIGN.md "Workers and the sandbox":
 * workers register with a name and labels and report the skills their roots hold with each skill's
 * digest). Every registration is a new worker session (a restarted worker never inherits the calls
 * of its predecessor, which end `interrupted` when their lease lapses). Labels are the token's and
 * the worker's own. Writes `worker.registered`. Returns the session the worker must use.
 */
/** Most live sessions one worker token may hold at once (a host runs a worker or a few; a restart briefly holds two). */
export const LIVE_SESSIONS_PER_TOKEN = 16;

/**
 * Refuses a registration while `caller`'s token already holds LIVE_SESSIONS_PER_TOKEN live sessions
 * (heard from within the lease): one token registering hundreds of sessions made every workers
 * listing tens of megabytes (issue 10 point 1). Called before the body is read. Throws AppError
 * `conflict` (409) naming the limit.
 */
export async function refuseSessionFlood(caller: WorkerCaller): Promise<void> {
  const now = (await agreedNow()).getTime();
  const live = await db().worker.count({ where: { tokenId: caller.tokenId, stoppedAt: null, lastSeenAt: { gt: new Date(now - config().leaseMs) } } });
  if (live >= LIVE_SESSIONS_PER_TOKEN) {
    throw new AppError("conflict", `worker token ${caller.tokenName} already has ${live} live worker sessions; at most ${LIVE_SESSIONS_PER_TOKEN} may be live at once (stop one, or give each host a token of its own)`);
  }
}

export async function registerWorker(caller: WorkerCaller, registration: WorkerRegistration): Promise<WorkerSession> {
  const id = randomUUID();
  const labels = [...new Set([...caller.labels, ...registration.labels])].sort();
  const now = await agreedNow();
  await modelTransaction(async (tx) => {
    await tx.worker.create({
      data: {
        id,
        name: registration.name,
        tokenId: caller.tokenId,
        labels: JSON.stringify(labels),
        host: registration.host,
        version: registration.version,
        pid: registration.pid,
        concurrency: registration.concurrency,
        sandbox: JSON.stringify(registration.sandbox),
        registeredAt: now,
        lastSeenAt: now,
      },
    });
    await tx.workerToken.update({ where: { id: caller.tokenId }, data: { lastUsedAt: now } });
    await recordAudit(
      { action: "worker.registered", actor: `worker-token:${caller.tokenName}`, details: { worker: id, name: registration.name, host: registration.host, labels, sandbox: registration.sandbox.mode, warning: registration.sandbox.warning, skills: registration.skills.length } },
      tx,
    );
  });
  // After the session's row, in statements of their own: nobody claims for this session before the
  // worker has its id (this answer), so the rows need not appear at once.
  try {
    await writeSkillRows(id, registration.skills);
  } catch (error) {
    await statements().$executeRaw`DELETE FROM "Worker" WHERE "id" = ${id}`.catch(() => undefined);
    throw error;
  }
  const settings = config();
  return { id, name: registration.name, labels, leaseMs: settings.leaseMs, pollMs: claimPollMs(), hiddenPaths: settings.sandboxHiddenPaths };
}

/**
 * Replaces the skills a worker session reports (`POST /api/v1/workers/{id}/skills`, after the worker
 * rescanned its roots) and wakes the claim polls: with its new copies the worker may take calls that
 * were waiting. Returns how many it holds.
 */
export async function reportWorkerSkills(workerId: string, skills: readonly WorkerSkillReport[]): Promise<number> {
  // Old rows out, then the new ones in, a chunk per statement. Meanwhile the worker holds fewer skills
  // than either report says, so it can only claim less, never a call for a copy it no longer has.
  for (;;) {
    const removed = await statements().$executeRaw`DELETE FROM "WorkerSkill" WHERE "workerId" = ${workerId} AND "skill" IN (SELECT "skill" FROM "WorkerSkill" WHERE "workerId" = ${workerId} LIMIT ${SKILL_ROWS_PER_STATEMENT})`;
    if (removed < SKILL_ROWS_PER_STATEMENT) break;
    await yieldToEventLoop();
  }
  await writeSkillRows(workerId, skills);
  await statements().$executeRaw`UPDATE "Worker" SET "lastSeenAt" = ${await agreedNow()} WHERE "id" = ${workerId}`;
  // With other copies it may now take calls that waited for them.
  announceQueued();
  return skills.length;
}

/** Reported skills put in the by-name map between two yields (50,000 at once held the event loop ~15 ms). */
const SKILLS_DEDUPLICATED_AT_ONCE = 5000;

/** WorkerSkill rows written or removed by one statement: a few ms of the event loop each. */
const SKILL_ROWS_PER_STATEMENT = 250;

/**
 * Writes the WorkerSkill rows of a session (one per skill name, the last report of a name winning), a
 * multi-row INSERT of SKILL_ROWS_PER_STATEMENT rows at a time, the event loop free between them (issue
 * 10 point 1: 50,000 skills through Prisma's createMany held the event loop for 6 s).
 */
async function writeSkillRows(workerId: string, skills: readonly WorkerSkillReport[]): Promise<void> {
  const byName = new Map<string, WorkerSkillReport>();
  for (let start = 0; start < skills.length; start += SKILLS_DEDUPLICATED_AT_ONCE) {
    for (const skill of skills.slice(start, start + SKILLS_DEDUPLICATED_AT_ONCE)) byName.set(skill.name, skill);
    await yieldToEventLoop();
  }
  const unique = [...byName.values()];
  for (let start = 0; start < unique.length; start += SKILL_ROWS_PER_STATEMENT) {
    const rows = unique.slice(start, start + SKILL_ROWS_PER_STATEMENT).map((skill) => Prisma.sql`(${workerId}, ${skill.name}, ${skill.digest}, ${skill.available}, ${skill.reason})`);
    await statements().$executeRaw`INSERT INTO "WorkerSkill" ("workerId", "skill", "digest", "available", "reason") VALUES ${Prisma.join(rows)}`;
    await yieldToEventLoop();
  }
}

/** Marks a worker session stopped (`DELETE /api/v1/workers/{id}`: the worker says goodbye). Its running calls, if any, end `interrupted`. */
export async function stopWorkerSession(workerId: string): Promise<void> {
  await db().worker.update({ where: { id: workerId }, data: { stoppedAt: new Date(), lastSeenAt: await agreedNow() } });
  await interruptWorkerCalls(workerId, "the worker stopped while the call ran");
}
