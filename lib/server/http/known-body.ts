/**
 * Answers made from one string, remembered by their Response so that the API router writes the string
 * itself — one `end()` with a Content-Length — instead of reading the web body stream back chunk by
 * chunk and ending a chunked answer with a second write (issue 9 point 6: the call path close to a
 * bare spawn; a call makes two or three API requests). Only for strings small enough to go out in one
 * turn of the event loop (jsonResponse streams anything longer).
 */
const knownBodies = new WeakMap<Response, string>();

/** A Response of `body` with `init`, its text remembered for knownBodyOf. Throws what `new Response` throws. */
export function stringResponse(body: string, init: ResponseInit): Response {
  const response = new Response(body, init);
  knownBodies.set(response, body);
  return response;
}

/**
 * The text stringResponse made `response` from, or undefined for any other Response (streams, other
 * constructors, and copies such as `response.clone()`, which the router then reads as a stream).
 */
export function knownBodyOf(response: Response): string | undefined {
  return knownBodies.get(response);
}
