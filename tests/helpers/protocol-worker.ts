import os from "node:os";
import type { WorkerRegistration, WorkerSession, WorkerSkillReport } from "@/lib/types/worker";
import { createWorkerToken } from "@/lib/server/workers/worker-tokens";
import { ConsoleClient } from "@/lib/worker/console-client";
import { testApiUrl } from "./test-worker";

/** A worker session driven by the test itself: it speaks the protocol over HTTP with a real token and runs nothing. */
export interface ProtocolWorker {
  client: ConsoleClient;
  session: WorkerSession;
  token: string;
  tokenId: string;
}

/**
 * Registers a worker session with a fresh worker token, reporting `skills` (name and digest), so a test
 * can claim, report and finish calls by hand — a worker that then goes silent stands in for one killed
 * with -9; a second token stands in for a hostile worker. Returns the client, session and token.
 */
export async function registerProtocolWorker(name: string, skills: WorkerSkillReport[], labels: string[] = []): Promise<ProtocolWorker> {
  const { token, info } = await createWorkerToken({ email: "test@console.local", userId: null }, { name, labels: [] });
  const client = new ConsoleClient(await testApiUrl(), token);
  const none = { by: "none" as const, value: null };
  const registration: WorkerRegistration = {
    name,
    labels,
    host: os.hostname(),
    version: "test",
    pid: null,
    concurrency: 64,
    sandbox: { requested: "none", mode: "none", warning: null, uid: process.getuid?.() ?? 0, limits: { memory: none, pids: none, cpu: none }, kill: "process-group" },
    skills,
  };
  return { client, session: await client.register(registration), token, tokenId: info.id };
}
