import { Prisma } from "@prisma/client";
import { agreedNow } from "../database-clock";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { WORKER_LISTED_SKILLS, type WorkerInfo, type WorkerSandbox, type WorkerSkillCounts, type WorkerSkillPage, type WorkerSkillReport } from "@/lib/types/worker";
import { db } from "../db";
import { statements } from "../db-statements";
import { config } from "../env";
import { AppError, boundedText } from "../errors";
import { type ConsoleDigest, consoleDigests } from "../skills/console-digests";
import { getRegistry } from "../skills/registry";
import type { SkillRegistry } from "../skills/skill-registry";
import { LIVE_SESSIONS_PER_TOKEN } from "./register-worker";
import { parseLabels } from "./worker-tokens";

/** Most sessions of one worker token listed (its live ones, LIVE_SESSIONS_PER_TOKEN at most, fit). */
const LISTED_SESSIONS_PER_TOKEN = 2 * LIVE_SESSIONS_PER_TOKEN;

/** Longest `reason` of a listed skill, in characters (the whole one is on GET /api/v1/workers/{id}/skills). */
const LISTED_REASON_MAX_LENGTH = 300;

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
 * names the skills whose copy on the worker has another digest than the console's own copy. A session
 * that is not live and runs nothing is left out when a newer session of the same name and token is
 * listed (a restarted worker registers anew; its dead sessions would pile up on the page).
 * Each worker carries its skill counts and its first WORKER_LISTED_SKILLS skills (drifted, then
 * unavailable, then the rest; reasons cut to LISTED_REASON_MAX_LENGTH), never its whole list: 50,000
 * skills made this answer 9 MB and held the event loop 175 ms (issue 10 point 1); workerSkillPage
 * pages the rest. At most LISTED_SESSIONS_PER_TOKEN sessions of one token are listed (an attacker's
 * 500 sessions made it 227 MB).
 */
export async function listWorkers(): Promise<WorkerInfo[]> {
  // Judged on the replicas' agreed clock, the one lastSeenAt is written with (database-clock.ts).
  const now = (await agreedNow()).getTime();
  const rows = await db().worker.findMany({
    where: { OR: [{ stoppedAt: null }, { lastSeenAt: { gt: new Date(now - SHOWN_FOR_MS) } }], lastSeenAt: { gt: new Date(now - SHOWN_FOR_MS) } },
    orderBy: { registeredAt: "desc" },
    include: { token: true },
    take: 500,
  });
  const running = await db().call.groupBy({ by: ["workerId"], where: { status: "running", workerId: { in: rows.map((row) => row.id) } }, _count: true });
  const runningBy = new Map(running.map((entry) => [entry.workerId, entry._count]));
  const registry = await getRegistry();
  const leaseMs = config().leaseMs;
  const workers: WorkerInfo[] = [];
  const newest = new Set<string>();
  const perToken = new Map<string, number>();
  for (const row of rows) {
    const state = row.stoppedAt ? "stopped" : now - row.lastSeenAt.getTime() <= leaseMs ? "live" : "lost";
    // A worker restarted registers a new session: its earlier ones, gone, are not listed again.
    const session = `${row.tokenId}\u0000${row.name}`;
    if (newest.has(session) && state !== "live" && (runningBy.get(row.id) ?? 0) === 0) continue;
    newest.add(session);
    // At most LISTED_SESSIONS_PER_TOKEN per token, newest first: one token's sessions cannot fill the answer.
    const listed = (perToken.get(row.tokenId) ?? 0) + 1;
    perToken.set(row.tokenId, listed);
    if (listed > LISTED_SESSIONS_PER_TOKEN) continue;
    const { skills, counts, drifted } = await firstSkills(row.id, registry);
    workers.push({
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
      state,
      running: runningBy.get(row.id) ?? 0,
      token: { id: row.token.id, name: row.token.name, local: row.token.local },
      skills,
      skillCounts: counts,
      drifted: drifted.slice(0, WORKER_LISTED_SKILLS),
    });
    await yieldToEventLoop();
  }
  return workers;
}

interface SkillRow {
  skill: string;
  digest: string | null;
  available: boolean;
  reason: string | null;
}

const report = (row: SkillRow): WorkerSkillReport => ({ name: row.skill, digest: row.digest, available: row.available, reason: row.reason });
const listedReport = (row: SkillRow): WorkerSkillReport => ({ ...report(row), reason: row.reason === null ? null : boundedText(row.reason, LISTED_REASON_MAX_LENGTH) });

/** Registry names looked up per statement when finding a worker's drifted skills. */
const NAMES_PER_STATEMENT = 500;

/**
 * The skills of one worker that the console also holds and whose copy differs from the console's
 * (drift), by name. Only the console's own skills can drift, so this reads as many rows as the
 * registry holds at most, NAMES_PER_STATEMENT names a statement, the event loop free between them.
 */
async function driftedSkills(workerId: string, registry: SkillRegistry): Promise<SkillRow[]> {
  const names = registry.list().map((skill) => skill.name);
  const drifted: SkillRow[] = [];
  for (let start = 0; start < names.length; start += NAMES_PER_STATEMENT) {
    const held = await statements().$queryRaw<SkillRow[]>`SELECT "skill", "digest", "available", "reason" FROM "WorkerSkill" WHERE "workerId" = ${workerId} AND "skill" IN (${Prisma.join(names.slice(start, start + NAMES_PER_STATEMENT))})`;
    const digests = await consoleDigests(registry, held.map((row) => row.skill));
    for (const row of held) if (isDrifted(row, digests)) drifted.push(row);
    await yieldToEventLoop();
  }
  return drifted.sort((a, b) => (a.skill < b.skill ? -1 : a.skill > b.skill ? 1 : 0));
}

function isDrifted(row: SkillRow, digests: Map<string, ConsoleDigest>): boolean {
  const mine = digests.get(row.skill)?.digest;
  return mine !== undefined && mine !== null && row.digest !== mine;
}

/** A worker's skill counts and first WORKER_LISTED_SKILLS skills for listWorkers: drifted, then unavailable, then the rest, by name within each. */
async function firstSkills(workerId: string, registry: SkillRegistry): Promise<{ skills: WorkerSkillReport[]; counts: WorkerSkillCounts; drifted: string[] }> {
  // Two counts from indexes alone (the primary key, and workerId/available/skill), a few ms each for 50,000 skills.
  const [held] = await statements().$queryRaw<Array<{ count: number }>>`SELECT COUNT(*) AS "count" FROM "WorkerSkill" WHERE "workerId" = ${workerId}`;
  await yieldToEventLoop();
  const [unavailable] = await statements().$queryRaw<Array<{ count: number }>>`SELECT COUNT(*) AS "count" FROM "WorkerSkill" WHERE "workerId" = ${workerId} AND "available" = ${false}`;
  const drifted = await driftedSkills(workerId, registry);
  const counts = { held: Number(held?.count ?? 0), unavailable: Number(unavailable?.count ?? 0), drifted: drifted.length };
  const skills = drifted.slice(0, WORKER_LISTED_SKILLS);
  const shown = new Set(skills.map((row) => row.skill));
  for (const available of [false, true]) {
    if (skills.length >= WORKER_LISTED_SKILLS) break;
    const wanted = WORKER_LISTED_SKILLS - skills.length;
    // Drifted rows may come back here too; ask for enough to fill the list without them.
    const rows = await statements().$queryRaw<SkillRow[]>`SELECT "skill", "digest", "available", "reason" FROM "WorkerSkill" WHERE "workerId" = ${workerId} AND "available" = ${available} ORDER BY "skill" LIMIT ${wanted + shown.size}`;
    for (const row of rows) {
      if (skills.length >= WORKER_LISTED_SKILLS) break;
      if (!shown.has(row.skill)) skills.push(row);
    }
  }
  return { skills: skills.map(listedReport), counts, drifted: drifted.map((row) => row.skill) };
}

/** Largest page of workerSkillPage, in skills. */
export const WORKER_SKILL_PAGE_MAX = 500;
/** The page size of `GET /api/v1/workers/{id}/skills` without `limit`. */
export const WORKER_SKILL_PAGE_DEFAULT = 200;

/**
 * One page of the skills a worker holds (`GET /api/v1/workers/{id}/skills`, operator and above): at
 * most `limit` (1…WORKER_SKILL_PAGE_MAX) skills by name after `after` (exclusive; "" from the start),
 * only those whose name contains `q` (case-insensitive for ASCII; "" for all; at most 200 characters),
 * each marked drifted when its copy differs from the console's; `next` is the last name when more may
 * follow. Throws AppError `not_found` for a worker the console does not know, `bad_request` for a
 * limit out of range or a longer `q`.
 */
export async function workerSkillPage(workerId: string, after: string, limit: number, q = ""): Promise<WorkerSkillPage> {
  if (!Number.isInteger(limit) || limit < 1 || limit > WORKER_SKILL_PAGE_MAX) throw new AppError("bad_request", `limit must be an integer from 1 to ${WORKER_SKILL_PAGE_MAX}`);
  if (q.length > 200) throw new AppError("bad_request", "q must be at most 200 characters");
  const worker = await db().worker.findUnique({ where: { id: workerId }, select: { id: true } });
  if (!worker) throw new AppError("not_found", `no worker with id ${JSON.stringify(workerId)}`);
  // LIKE's own wildcards in q are matched as themselves (escaped with !).
  const contains = `%${q.replace(/[!%_]/g, (char) => `!${char}`)}%`;
  const rows = await statements().$queryRaw<SkillRow[]>`SELECT "skill", "digest", "available", "reason" FROM "WorkerSkill" WHERE "workerId" = ${workerId} AND "skill" > ${after} AND "skill" LIKE ${contains} ESCAPE '!' ORDER BY "skill" LIMIT ${limit + 1}`;
  const page = rows.slice(0, limit);
  const registry = await getRegistry();
  const digests = await consoleDigests(registry, page.map((row) => row.skill));
  return {
    skills: page.map((row) => ({ ...report(row), drifted: isDrifted(row, digests) })),
    next: rows.length > limit ? page[page.length - 1]!.skill : null,
  };
}
