import { IN_PARTS, payloadAsJsonString } from "../calls/call-payloads";
import { defineStoredJson } from "../http/stored-json";
import { Prisma, type Worker as WorkerRow } from "@prisma/client";
import type { CallAssignment, ClaimResponse, WorkerSandbox } from "@/lib/types/worker";
import { announceToWorker, releaseQueueRoom, waitForWork } from "../calls/call-queue";
import { transitionCall } from "../calls/call-transitions";
import { nextLeaseUntil } from "../calls/call-leases";
import { agreedNow } from "../database-clock";
import { db } from "../db";
import { statements } from "../db-statements";
import { config } from "../env";
import { announce, onReplicaCatchUp, onReplicaMessage } from "../replica-bus";
import { approvalSecretsChange } from "../approvals/approval-secrets";
import { folderOfSkill } from "../skills/registered-skill";
import { getRegistry } from "../skills/registry";
import { SecretUnreadableError } from "../secrets/secret-box";
import { secretValuesFor } from "../secrets/secret-store";
import { answersToTarget } from "./live-target";
import { parseLabels } from "./worker-tokens";

/** Longest a claim poll is held open, in ms: under a third of the lease, so a poll never outlives a renewal period. */
export function claimPollMs(): number {
  return Math.max(200, Math.min(25_000, Math.floor(config().leaseMs / 3)));
}

const RESCAN_KEY = Symbol.for("skill-console.rescan-requests");
/** Workers marked for a rescan in this replica: whether it must read everything (a Rescan) or may read only what changed. */
const rescans = ((globalThis as Record<symbol, Map<string, boolean> | undefined>)[RESCAN_KEY] ??= new Map<string, boolean>());

/** Marks every live worker for a rescan (of everything, or of what changed) in this replica and wakes its polls here. */
async function markRescans(everything: boolean): Promise<void> {
  const live = await db().worker.findMany({ where: { stoppedAt: null }, select: { id: true } });
  for (const { id } of live) {
    rescans.set(id, everything || rescans.get(id) === true);
    announceToWorker(id, false);
  }
}

/**
 * Asks every live worker to rescan its skills and report them, through whichever replica it polls: the
 * others hear `rescan` and mark it too (a worker told twice rescans twice, harmlessly). `everything`
 * after a Rescan (the worker reads all again); false after the root watcher saw changes (a worker that
 * watches its own roots reads again only what changed there).
 */
export async function requestWorkerRescans(everything = true): Promise<void> {
  announce({ kind: "rescan", everything });
  await markRescans(everything);
}

onReplicaMessage("rescan", (message) => markRescans(message.everything));
// A rescan announced while this replica's LISTEN session was down was not heard: the workers that poll
// here would keep reporting their old digests. Ask them all once to read everything (a needless rescan costs only time).
onReplicaCatchUp("rescan", () => markRescans(true));

interface Candidate {
  id: string;
  skill: string;
  skillDigest: string;
  digest: string | null;
  args: string;
  /** The approval's frozen skill digest input, for an approved call (names what changed on a mismatch). */
  skillInput: string | null;
  /** The approval's record of the skill's secrets (approval-secrets.ts), for an approved call. */
  approvalSecrets: string | null;
  target: string | null;
}

/**
 * The oldest queued calls `worker` may take (DESIGN.md "Claiming"): the worker holds the skill,
 * available, with exactly the call's skill digest (for an approved call, the approved one), and the
 * call names no target or names the worker or one of its labels. One query (a join on the worker's
 * reported skills), oldest first; preferFullSandbox then leaves a worker without the whole sandbox
 * only what no fully sandboxed live worker could run.
 */
async function claimable(worker: WorkerRow, limit: number): Promise<Candidate[]> {
  const targets = [worker.name, ...parseLabels(worker.labels)];
  return statements().$queryRaw<Candidate[]>`
    SELECT c."id", c."skill", c."skillDigest", c."digest", c."args", a."skillInput", a."secrets" AS "approvalSecrets", c."target"
    FROM "Call" c
    JOIN "WorkerSkill" s ON s."workerId" = ${worker.id} AND s."skill" = c."skill" AND s."digest" = c."skillDigest" AND s."available" = ${true}
    LEFT JOIN "Approval" a ON a."callId" = c."id"
    WHERE c."status" = 'queued' AND (c."target" IS NULL OR c."target" IN (${Prisma.join(targets)}))
    ORDER BY c."createdAt", c."id"
    LIMIT ${limit}`;
}

/**
 * Whether a worker runs calls with the whole sandbox: bubblewrap, and no warning (no limit weaker than
 * a cgroup, not its own uid, nothing that fails every call). Read from what it registered.
 */
export function hasFullSandbox(worker: Pick<WorkerRow, "sandbox">): boolean {
  try {
    const sandbox = JSON.parse(worker.sandbox) as Partial<WorkerSandbox>;
    return sandbox.mode === "bwrap" && sandbox.warning === null;
  } catch {
    return false;
  }
}

/**
 * Drops, for a worker without the full sandbox, the candidates some live worker WITH it could take
 * too — it holds the same copy, and the call names no target or a target that worker also answers to
 * (DESIGN.md "Workers and the sandbox": what an approver saw — the sandbox — is what the call gets
 * wherever it can; deny when in doubt). Such a call waits for that worker. Names and labels are not
 * unique (a worker reports its own), so a weaker worker answering to `local` does not take `local`'s
 * calls while the sandboxed `local` is live; a target only it answers to stays its own.
 */
async function preferFullSandbox(worker: WorkerRow, candidates: Candidate[]): Promise<Candidate[]> {
  if (hasFullSandbox(worker) || candidates.length === 0) return candidates;
  const liveSince = new Date((await agreedNow()).getTime() - config().leaseMs);
  const holders = await statements().$queryRaw<Array<{ skill: string; digest: string; sandbox: string; name: string; labels: string }>>`
    SELECT s."skill", s."digest", w."sandbox", w."name", w."labels"
    FROM "WorkerSkill" s JOIN "Worker" w ON w."id" = s."workerId"
    WHERE s."available" = ${true} AND w."stoppedAt" IS NULL AND w."lastSeenAt" > ${liveSince} AND w."id" <> ${worker.id}
      AND s."skill" IN (${Prisma.join([...new Set(candidates.map((candidate) => candidate.skill))])})`;
  const sandboxed = holders.filter((holder) => hasFullSandbox(holder));
  const coveredElsewhere = (candidate: Candidate) =>
    sandboxed.some(
      (holder) =>
        holder.skill === candidate.skill &&
        holder.digest === candidate.skillDigest &&
        (candidate.target === null || answersToTarget(holder, candidate.target)),
    );
  return candidates.filter((candidate) => !coveredElsewhere(candidate));
}

/** The folder of the skill named `name` as this console's registry lists it, or null when it lists none. */
async function skillFolder(name: string): Promise<string | null> {
  const skill = (await getRegistry()).get(name);
  return skill ? folderOfSkill(skill) : null;
}

/** Claims what `worker` may take now, up to `capacity`: a compare-and-set per call, so each runs once. */
async function claimNow(worker: WorkerRow, capacity: number): Promise<CallAssignment[]> {
  if (capacity <= 0) return [];
  const claimed: CallAssignment[] = [];
  const candidates = await preferFullSandbox(worker, await claimable(worker, capacity));
  // Read once per skill of this claim, after the call is ours: a secret set a moment ago is included.
  const secretsOf = new Map<string, Promise<{ secrets: Record<string, string>; fingerprints: Record<string, string>; secretsError?: string }>>();
  const secretsFor = (skill: string) => {
    let secrets = secretsOf.get(skill);
    if (!secrets) {
      // Given to the skill where the registry lists it now: not to another that took its name.
      secrets = skillFolder(skill)
        .then((folder) => secretValuesFor(skill, folder))
        .then(
        ({ values, fingerprints }) => ({ secrets: values, fingerprints }),
        (error: unknown) => {
          if (error instanceof SecretUnreadableError) return { secrets: {}, fingerprints: {}, secretsError: error.message };
          throw error;
        },
      );
      secretsOf.set(skill, secrets);
    }
    return secrets;
  };
  // An approved call runs only with the secrets its approval recorded (approval-secrets.ts): checked
  // against the rows whose values are handed over, so no change can slip in between check and use.
  const secretsOfCall = async (candidate: Candidate): Promise<Pick<CallAssignment, "secrets" | "secretsError" | "secretsMismatch">> => {
    const { secrets, fingerprints, secretsError } = await secretsFor(candidate.skill);
    const mismatch = secretsError === undefined ? approvalSecretsChange(candidate.approvalSecrets, fingerprints) : null;
    if (mismatch !== null) return { secrets: {}, secretsMismatch: mismatch };
    return secretsError === undefined ? { secrets } : { secrets, secretsError };
  };
  for (const candidate of candidates) {
    const leaseUntil = nextLeaseUntil((await agreedNow()).getTime());
    const row = await transitionCall({
      callId: candidate.id,
      from: "queued",
      to: "running",
      changes: { workerId: worker.id, workerName: worker.name, ownerId: worker.id, leaseUntil },
      audit: { action: "call.claimed", actor: "system", callId: candidate.id, skill: candidate.skill, digest: candidate.digest, details: { worker: worker.name, workerId: worker.id, skillDigest: candidate.skillDigest } },
    });
    if (!row) continue;
    releaseQueueRoom(candidate.id);
    const assignment: CallAssignment = {
      callId: row.id,
      skill: row.skill,
      skillDigest: candidate.skillDigest,
      digest: row.digest ?? "",
      argsJson: row.args,
      leaseUntil: leaseUntil.toISOString(),
      ...(candidate.skillInput ? { skillInput: candidate.skillInput } : {}),
      ...(await secretsOfCall(candidate)),
    };
    // Long args are streamed from their parts into the answer (stored-json.ts), never joined here.
    if (row.args === IN_PARTS) defineStoredJson(assignment, "argsJson", payloadAsJsonString(row.id, "args"), "");
    claimed.push(assignment);
  }
  return claimed;
}

/** Running calls of `worker` that someone asked to cancel. */
async function cancelsOf(workerId: string): Promise<string[]> {
  const rows = await statements().$queryRaw<Array<{ id: string }>>`SELECT "id" FROM "Call" WHERE "workerId" = ${workerId} AND "status" = 'running' AND "cancelRequestedAt" IS NOT NULL`;
  return rows.map((row) => row.id);
}

/**
 * Answers a worker's claim poll (`POST /api/v1/workers/{id}/claim` `{capacity}`; DESIGN.md: workers
 * long-poll for calls): as soon as there is something for it — calls claimed for it (at most
 * `capacity`, each moved `queued` → `running` owned by it with a fresh lease and a `call.claimed`
 * audit entry; `call.started` follows once the worker reports the spawn), cancel requests for its running calls, or a rescan request — or after claimPollMs()
 * with nothing, or when the worker goes away (`signal`). The wait registers before each check, so a
 * call queued meanwhile wakes it (no lost wake-up). Returns the ClaimResponse.
 */
export async function claimCalls(worker: WorkerRow, capacity: number, signal?: AbortSignal): Promise<ClaimResponse> {
  const deadline = Date.now() + claimPollMs();
  let response: ClaimResponse = { calls: [], cancel: [], rescan: false };
  const check = async (): Promise<boolean> => {
    const everything = rescans.get(worker.id);
    const rescan = rescans.delete(worker.id);
    const [calls, cancel] = await Promise.all([claimNow(worker, capacity), cancelsOf(worker.id)]);
    response = { calls, cancel, rescan, ...(rescan ? { rescanEverything: everything === true } : {}) };
    return rescan || calls.length > 0 || cancel.length > 0;
  };
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0 || signal?.aborted) return response;
    let found = false;
    // Woken or timed out without finding anything: the next round registers and looks again.
    await waitForWork(worker.id, remaining, signal, async () => (found = await check()));
    if (found) return response;
  }
}
