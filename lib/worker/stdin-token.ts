/**
 * Reads the worker token from the first line of stdin (DESIGN.md / issue 9 point 2: no secret travels
 * in a long-lived environment, so the process starting the worker hands it over a pipe), then keeps
 * watching stdin: when it closes — the parent died, even by kill -9 — `onClose` is called once.
 * Resolves with the token, or null when stdin closed before a non-empty first line.
 */
export function readTokenThenWatch(onClose: () => void): Promise<string | null> {
  return new Promise((resolve) => {
    let buffered = "";
    let token: string | null = null;
    process.stdin.setEncoding("utf8");
    process.stdin.on("data", (chunk: string) => {
      if (token !== null) return;
      buffered += chunk;
      const newline = buffered.indexOf("\n");
      if (newline === -1 && buffered.length < 4096) return;
      token = buffered.slice(0, newline === -1 ? undefined : newline).trim();
      buffered = "";
      resolve(token === "" ? null : token);
    });
    process.stdin.on("end", () => {
      if (token === null) resolve(null);
      else onClose();
    });
    process.stdin.on("error", () => {
      if (token === null) resolve(null);
      else onClose();
    });
    process.stdin.resume();
  });
}
