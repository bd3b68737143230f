import type { WorkerInfo, WorkerSandbox } from "@/lib/types/worker";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { db } from "../db";
import { statements } from "../db-statements";
import { config } from "../env";
import { consoleDigests } from "../skills/console-digests";
import { getRegistry } from "../skills/registry";
import { parseLabels } from "./worker-tokens";

/** How long a stopped or lost worker stays on the list, in ms. */
const SHOWN_FOR_MS = 24 * 3600 * 1000;

function parseSandbox(text: string): WorkerSandbox {
  const none = { by: "none" as const, value: null };
  try {
    return JSON.parse(text) as WorkerSandbox;
  } catch {
    return { requested: "auto", mode: "none", warning: "the worker reported no sandbox", uid: -1, limits: { memory: none, pids: none, cpu: none }, kill: "process-group" };
  }
}

/**
 * The workers the console knows (`GET /api/v1/workers`, operator and above; DESIGN.md: name, labels,
 * host, version, sandbox and limits in force, last heartbeat, running calls, skills and digests):
 * live ones and those seen in the last day, newest first. A worker is `live` while heard from within
 * CALL_LEASE_MS, `lost` after, `stopped` once it said goodbye or its token was revoked. `drifted`
 * names the skills whose copy on the worker has another digest than the console's own copy.
 */
export async function listWorkers(now = Date.now()): Promise<WorkerInfo[]> {
  const rows = await db().worker.findMany({
    where: { OR: [{ stoppedAt: null }, { lastSeenAt: { gt: new Date(now - SHOWN_FOR_MS) } }], lastSeenAt: { gt: new Date(now - SHOWN_FOR_MS) } },
    orderBy: { registeredAt: "desc" },
    include: { token: true },
    take: 500,
  });
  const running = await db().call.groupBy({ by: ["workerId"], where: { status: "running", workerId: { in: rows.map((row) => row.id) } }, _count: true });
  const runningBy = new Map(running.map((entry) => [entry.workerId, entry._count]));
  const registry = await getRegistry();
  const skillsOf = new Map<string, SkillRow[]>();
  for (const row of rows) skillsOf.set(row.id, await readWorkerSkills(row.id));
  const names = [...new Set([...skillsOf.values()].flatMap((skills) => skills.map((skill) => skill.skill)))];
  const digests = await consoleDigests(registry, names);
  const leaseMs = config().leaseMs;
  return rows.map((row) => withSkills(row, skillsOf.get(row.id) ?? []));

  function withSkills(row: (typeof rows)[number], skills: SkillRow[]): WorkerInfo {
    return {
      id: row.id,
      name: row.name,
      labels: parseLabels(row.labels),
      host: row.host,
      version: row.version,
      pid: row.pid,
      concurrency: row.concurrency,
      sandbox: parseSandbox(row.sandbox),
      registeredAt: row.registeredAt.toISOString(),
      lastSeenAt: row.lastSeenAt.toISOString(),
      state: row.stoppedAt ? "stopped" : now - row.lastSeenAt.getTime() <= leaseMs ? "live" : "lost",
      running: runningBy.get(row.id) ?? 0,
      token: { id: row.token.id, name: row.token.name, local: row.token.local },
      skills: skills.map((skill) => ({ name: skill.skill, digest: skill.digest, available: skill.available, reason: skill.reason })),
      drifted: skills
        .filter((skill) => {
          const mine = digests.get(skill.skill)?.digest;
          return mine !== undefined && mine !== null && skill.digest !== mine;
        })
        .map((skill) => skill.skill),
    };
  }
}

interface SkillRow {
  skill: string;
  digest: string | null;
  available: boolean;
  reason: string | null;
}

/** Rows of WorkerSkill read per statement by readWorkerSkills. */
const SKILL_PAGE = 5000;

/**
 * The skills a worker session reported, by name, read SKILL_PAGE rows at a time with plain statements,
 * the event loop free between pages (Prisma's client took 0.6–1.6 s of it for 50,000 rows).
 */
async function readWorkerSkills(workerId: string): Promise<SkillRow[]> {
  const skills: SkillRow[] = [];
  for (let after = ""; ; ) {
    const page = await statements().$queryRaw<SkillRow[]>`SELECT "skill", "digest", "available", "reason" FROM "WorkerSkill" WHERE "workerId" = ${workerId} AND "skill" > ${after} ORDER BY "skill" LIMIT ${SKILL_PAGE}`;
    for (const row of page) skills.push({ ...row, available: row.available === true || (row.available as unknown) === 1 });
    if (page.length < SKILL_PAGE) return skills;
    after = page[page.length - 1]!.skill;
    await yieldToEventLoop();
  }
}
