import { expect, request as playwrightRequest, test } from "@playwright/test";
import { E2E_LOGIN_MAX_FAILURES } from "./support/e2e-admin";
import { createPerson } from "./support/people";

/**
 * The sign-in rate limit counts per account and client address (issue 4 point 1). Against the real
 * server (scripts/console-server.mjs), a client that sends made-up `X-Skill-Console-Peer` and
 * `X-Forwarded-For` addresses with each guess is still counted at its TCP address: after
 * LOGIN_MAX_FAILURES failures even the right password answers 429 with Retry-After.
 */
test("forged client-address headers do not spread password guesses over other addresses", async ({ request, baseURL }) => {
  const person = await createPerson(request, "viewer", "guessed");
  const anonymous = await playwrightRequest.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  try {
    for (let attempt = 1; attempt <= E2E_LOGIN_MAX_FAILURES; attempt++) {
      const guess = await anonymous.post("/api/v1/auth/login", {
        data: { email: person.email, password: `wrong-guess-${attempt}-password` },
        headers: { "x-skill-console-peer": `203.0.113.${attempt}`, "x-forwarded-for": `198.51.100.${attempt}` },
      });
      expect(guess.status()).toBe(401);
    }
    const refused = await anonymous.post("/api/v1/auth/login", {
      data: { email: person.email, password: person.password },
      headers: { "x-skill-console-peer": "203.0.113.99", "x-forwarded-for": "198.51.100.99" },
    });
    expect(refused.status()).toBe(429);
    expect(Number(refused.headers()["retry-after"])).toBeGreaterThan(0);
  } finally {
    await anonymous.dispose();
  }
});
