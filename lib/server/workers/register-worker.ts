import { randomUUID } from "node:crypto";
import type { WorkerRegistration, WorkerSession, WorkerSkillReport } from "@/lib/types/worker";
import { recordAudit } from "../audit/audit-trail";
import { db } from "../db";
import { TRANSACTION_OPTIONS } from "../db-transactions";
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
export async function registerWorker(caller: WorkerCaller, registration: WorkerRegistration): Promise<WorkerSession> {
  const id = randomUUID();
  const labels = [...new Set([...caller.labels, ...registration.labels])].sort();
  const now = new Date();
  await db().$transaction(async (tx) => {
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
    await writeSkills(tx, id, registration.skills);
    await tx.workerToken.update({ where: { id: caller.tokenId }, data: { lastUsedAt: now } });
    await recordAudit(
      { action: "worker.registered", actor: `worker-token:${caller.tokenName}`, details: { worker: id, name: registration.name, host: registration.host, labels, sandbox: registration.sandbox.mode, warning: registration.sandbox.warning, skills: registration.skills.length } },
      tx,
    );
  }, TRANSACTION_OPTIONS);
  const settings = config();
  return { id, name: registration.name, labels, leaseMs: settings.leaseMs, pollMs: claimPollMs(), hiddenPaths: settings.sandboxHiddenPaths };
}

/**
 * Replaces the skills a worker session reports (`POST /api/v1/workers/{id}/skills`, after the worker
 * rescanned its roots) and wakes the claim polls: with its new copies the worker may take calls that
 * were waiting. Returns how many it holds.
 */
export async function reportWorkerSkills(workerId: string, skills: readonly WorkerSkillReport[]): Promise<number> {
  await db().$transaction(async (tx) => {
    await tx.workerSkill.deleteMany({ where: { workerId } });
    await writeSkills(tx, workerId, skills);
    await tx.worker.update({ where: { id: workerId }, data: { lastSeenAt: new Date() } });
  }, TRANSACTION_OPTIONS);
  // With other copies it may now take calls that waited for them.
  announceQueued();
  return skills.length;
}

type SkillWriter = Parameters<Parameters<ReturnType<typeof db>["$transaction"]>[0]>[0];

async function writeSkills(tx: SkillWriter, workerId: string, skills: readonly WorkerSkillReport[]): Promise<void> {
  const unique = new Map(skills.map((skill) => [skill.name, skill]));
  const rows = [...unique.values()].map((skill) => ({ workerId, skill: skill.name, digest: skill.digest, available: skill.available, reason: skill.reason }));
  for (let start = 0; start < rows.length; start += 1000) await tx.workerSkill.createMany({ data: rows.slice(start, start + 1000) });
}

/** Marks a worker session stopped (`DELETE /api/v1/workers/{id}`: the worker says goodbye). Its running calls, if any, end `interrupted`. */
export async function stopWorkerSession(workerId: string): Promise<void> {
  await db().worker.update({ where: { id: workerId }, data: { stoppedAt: new Date(), lastSeenAt: new Date() } });
  await interruptWorkerCalls(workerId, "the worker stopped while the call ran");
}
