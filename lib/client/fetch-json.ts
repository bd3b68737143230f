import { ApiError } from "./api-error";
import { loginPathFor } from "./safe-next-path";

/** The part of the API path after the origin, always starting `/api/`. */
export type ApiPath = `/api/${string}`;

function isEnvelope(body: unknown): body is { error: { code: string; message: string; details?: unknown } } {
  if (typeof body !== "object" || body === null || !("error" in body)) return false;
  const error = (body as { error: unknown }).error;
  return typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string";
}

/**
 * The one fetch wrapper of the client: requests `path` on the same origin, sends `body` as JSON when
 * given (or `upload`'s bytes as its content type: a pack's .tar.gz), and resolves to the parsed JSON answer typed `T` (the caller names the contract's shape).
 * Throws ApiError: the server's envelope decoded for a non-2xx answer, `network` when the request
 * failed, `bad_response` when the answer is not JSON. A 401 also sends the browser to the login page.
 */
export async function fetchJson<T>(
  path: ApiPath,
  init: { method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"; body?: unknown; upload?: { data: Blob; type: string }; signal?: AbortSignal } = {},
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: init.method ?? "GET",
      headers: init.upload
        ? { accept: "application/json", "content-type": init.upload.type }
        : init.body === undefined
          ? { accept: "application/json" }
          : { accept: "application/json", "content-type": "application/json" },
      body: init.upload ? init.upload.data : init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
      cache: "no-store",
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw new ApiError(0, "network", "The console did not answer. Is the server running?");
  }

  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new ApiError(response.status, "bad_response", `Unexpected answer from ${path} (HTTP ${response.status}, not JSON).`);
  }

  if (!response.ok) {
    if (response.status === 401) sendToLogin(path);
    if (isEnvelope(body)) {
      throw new ApiError(response.status, body.error.code as ApiError["code"], body.error.message, body.error.details);
    }
    throw new ApiError(response.status, "bad_response", `HTTP ${response.status} from ${path} without an error body.`);
  }
  return body as T;
}

/** True while this page signs out: its own answers of 401 then say nothing new (useSignOut goes to /login). */
let signingOut = false;

/**
 * Marks this page as signing out (`true`, before `POST /api/v1/auth/logout`) or not (`false`, when that
 * failed): meanwhile a 401 from any other request (a poll answered after the session ended) does not
 * send the browser to /login?next=…, which raced useSignOut's own /login.
 */
export function setSigningOut(value: boolean): void {
  signingOut = value;
}

/**
 * The session ended or was revoked (any API answer 401, issue 4 point 1: pages go to the login page):
 * sends the browser to /login with the current page as `next`. A failed sign-in (401 from the login
 * endpoint itself) and the login page stay where they are.
 */
function sendToLogin(path: ApiPath): void {
  if (typeof window === "undefined" || signingOut || path.startsWith("/api/v1/auth/login")) return;
  const { pathname, search, hash } = window.location;
  if (pathname === "/login") return;
  window.location.assign(loginPathFor(`${pathname}${search}${hash}`));
}

/** Builds `path?query` from the defined, non-empty entries of `params` (undefined and "" are left out). */
export function withQuery(path: ApiPath, params: Record<string, string | number | undefined>): ApiPath {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== "") query.set(key, String(value));
  }
  const text = query.toString();
  return text === "" ? path : `${path}?${text}`;
}
