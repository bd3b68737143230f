import os from "node:os";
import { db } from "../db";
import { config } from "../env";
import { createWorkerToken, revokeWorkerToken } from "./worker-tokens";

/**
 * Mints the token of the local worker `npm start` runs beside the console (DESIGN.md: `npm start`
 * starts the console and one local worker): a fresh worker token marked `local`, after revoking the
 * local tokens of earlier processes of this same console — this host and port (their workers died with
 * them; any call they still held ends `interrupted`). Other replicas' local tokens are theirs: on a
 * shared PostgreSQL database, two replicas revoking each other's kept both workers restarting in a
 * loop. The token is handed to the worker over a pipe by scripts/console-server.mjs. Returns the token.
 */
export async function mintLocalWorkerToken(): Promise<string> {
  const system = { email: `system (console ${os.hostname()}:${config().port})`, userId: null };
  // "system": local tokens of releases that did not say which console made them.
  const mine = { local: true, revokedAt: null, createdBy: { in: [system.email, "system"] } };
  for (const old of await db().workerToken.findMany({ where: mine, select: { id: true } })) {
    await revokeWorkerToken(system, old.id);
  }
  const { token } = await createWorkerToken(system, { name: "local", labels: ["local"] }, { local: true });
  return token;
}
