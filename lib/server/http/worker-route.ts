import { ensureConsoleStarted } from "../console-startup";
import { errorResponse } from "../errors";
import { identifyWorker, type WorkerCaller } from "../workers/worker-auth";
import { noteBodyOwner } from "./body-budget";

/**
 * Wraps a route handler of the worker protocol (`/api/v1/workers/register` and `/api/v1/workers/{id}/…`;
 * DESIGN.md "Workers and the sandbox"): waits for start-up, identifies the caller by its worker token
 * only (identifyWorker: anything else answers 401 `unauthenticated`), runs the handler with it, and
 * turns any thrown error into the one error envelope. No Origin check: workers send no cookie.
 */
export function workerRoute<Context>(handler: (request: Request, context: Context, caller: WorkerCaller) => Promise<Response>) {
  return async (request: Request, context: Context): Promise<Response> => {
    try {
      await ensureConsoleStarted();
      const caller = await identifyWorker(request);
      noteBodyOwner(request, `worker-token:${caller.tokenId}`);
      return await handler(request, context, caller);
    } catch (error) {
      return errorResponse(error);
    }
  };
}
