import { db } from "../db";
import { createWorkerToken, revokeWorkerToken } from "./worker-tokens";

/**
 * Mints the token of the local worker `npm start` runs beside the console (DESIGN.md: `npm start`
 * starts the console and one local worker): a fresh worker token marked `local`, after revoking the
 * local tokens of earlier console processes (their workers died with them; any call they still held
 * ends `interrupted`). The token is handed to the worker over a pipe by scripts/console-server.mjs.
 * Returns the token.
 */
export async function mintLocalWorkerToken(): Promise<string> {
  const system = { email: "system", userId: null };
  for (const old of await db().workerToken.findMany({ where: { local: true, revokedAt: null }, select: { id: true } })) {
    await revokeWorkerToken(system, old.id);
  }
  const { token } = await createWorkerToken(system, { name: "local", labels: ["local"] }, { local: true });
  return token;
}
