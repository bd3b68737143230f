import http from "node:http";
import type { AddressInfo } from "node:net";
import type { WebhookPayload } from "@/lib/types/webhook";

/** One request a WebhookReceiver took: its path, headers, exact body, and when it arrived (ms since the epoch). */
export interface ReceivedDelivery {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * A real HTTP receiver of webhook deliveries on loopback (issue 14: tests with a receiver that is up,
 * down, slow or failing). `answer(path, nth)` says how to answer the `nth` request (from 1) to `path`:
 * a status (its body says ok, or names the failure), or "hang" to answer only after 60 s (a slow
 * destination; the connection is dropped when the console gives up).
 */
export class WebhookReceiver {
  readonly received: ReceivedDelivery[] = [];
  answer: (path: string, nth: number) => number | "hang" = () => 200;
  /** How long every answer (but "hang") is held, in ms: long enough, overlapping requests to one path show in peakInFlight. */
  delayMs = 0;
  private readonly inFlight = new Map<string, number>();
  private readonly peaks = new Map<string, number>();
  private readonly server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    const path = request.url ?? "";
    const open = (this.inFlight.get(path) ?? 0) + 1;
    this.inFlight.set(path, open);
    this.peaks.set(path, Math.max(open, this.peaks.get(path) ?? 0));
    response.on("close", () => this.inFlight.set(path, (this.inFlight.get(path) ?? 1) - 1));
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      this.received.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() });
      const answer = this.answer(path, this.at(path).length);
      if (answer === "hang") {
        const timer = setTimeout(() => response.end("late"), 60_000);
        response.on("close", () => clearTimeout(timer));
        return;
      }
      const send = () => response.writeHead(answer, { "content-type": "text/plain" }).end(answer >= 400 ? "boom: the receiver broke" : "ok");
      if (this.delayMs > 0) setTimeout(send, this.delayMs);
      else send();
    });
  });

  /** The most requests to `path` that were open at once (from arrival until their connection's answer closed). */
  peakInFlight(path: string): number {
    return this.peaks.get(path) ?? 0;
  }

  /** Listens on 127.0.0.1 (`port`, default any free one) and resolves its base URL. */
  async listen(port = 0): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, "127.0.0.1", () => resolve());
    });
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Stops listening and drops every open connection. */
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** The requests received at `path`, oldest first. */
  at(path: string): ReceivedDelivery[] {
    return this.received.filter((item) => item.path === path);
  }

  /** The bodies received at `path`, parsed. */
  payloads(path: string): WebhookPayload[] {
    return this.at(path).map((item) => JSON.parse(item.body) as WebhookPayload);
  }
}

/** Polls `check` every 50 ms until it returns a value (not undefined) and resolves it; rejects naming `what` after `timeoutMs`. */
export async function until<T>(check: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
