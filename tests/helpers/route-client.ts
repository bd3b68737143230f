/** A route handler as exported by app/api (one HTTP method). */
export type RouteHandler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

const ADMIN_HEADERS_KEY = Symbol.for("skill-console.test-admin-headers");
const store = globalThis as unknown as { [ADMIN_HEADERS_KEY]?: Promise<Record<string, string>> };

/** Forgets the test admin's session (setUpTestConsole calls it when it points at a new database). */
export function forgetTestAdminSession(): void {
  store[ADMIN_HEADERS_KEY] = undefined;
}

/** The headers of the test admin's session, signing in on first use (after the test wrote its skills). */
function testAdminHeaders(): Promise<Record<string, string>> {
  store[ADMIN_HEADERS_KEY] ??= import("./test-people").then(({ signIn, TEST_ADMIN }) => signIn(TEST_ADMIN.email, TEST_ADMIN.password));
  return store[ADMIN_HEADERS_KEY];
}

/**
 * Invokes a route handler in-process with a real Request, the way Next.js does: `path` is the URL path
 * and query, `params` the dynamic segments, `body` is sent as JSON (a string is sent verbatim).
 * `as` says who sends it: by default the test console's admin (a same-origin browser session),
 * "anonymous" for no credentials, or a header set (e.g. a TestPerson's headers, or a bearer token).
 * `headers` are added last. The test console's default worker is started first when it has none.
 */
export async function invoke(
  handler: unknown,
  path: string,
  options: {
    method?: string;
    body?: unknown;
    params?: Record<string, string>;
    headers?: Record<string, string>;
    signal?: AbortSignal;
    as?: "admin" | "anonymous" | Record<string, string>;
  } = {},
): Promise<Response> {
  const body = options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body);
  await import("./test-worker").then(({ ensureDefaultTestWorker }) => ensureDefaultTestWorker());
  const as = options.as ?? "admin";
  const identityHeaders = as === "anonymous" ? {} : as === "admin" ? await testAdminHeaders() : as;
  const request = new Request(`http://127.0.0.1${path}`, {
    method: options.method ?? (body === undefined ? "GET" : "POST"),
    body,
    headers: { "content-type": "application/json", ...identityHeaders, ...options.headers },
    signal: options.signal,
  });
  return (handler as RouteHandler)(request, { params: Promise.resolve(options.params ?? {}) });
}

/** A parsed server-sent event. */
export interface ServerSentEvent {
  id?: string;
  event: string;
  data: string;
}

/**
 * Reads server-sent events from a response body one at a time. `next()` resolves with the next event
 * (comments skipped) or null when the stream ended.
 */
export function readEvents(response: Response): { next(): Promise<ServerSentEvent | null>; cancel(): Promise<void> } {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  return {
    async next() {
      for (;;) {
        const boundary = buffer.indexOf("\n\n");
        if (boundary !== -1) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const event: ServerSentEvent = { event: "message", data: "" };
          let isComment = true;
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) continue;
            isComment = false;
            const [field, ...rest] = line.split(": ");
            const value = rest.join(": ");
            if (field === "id") event.id = value;
            else if (field === "event") event.event = value;
            else if (field === "data") event.data = value;
          }
          if (!isComment) return event;
          continue;
        }
        const { done, value } = await reader.read();
        if (done) return null;
        buffer += decoder.decode(value, { stream: true });
      }
    },
    cancel: () => reader.cancel(),
  };
}
