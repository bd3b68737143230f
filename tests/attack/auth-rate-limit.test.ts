/**
 * Password guessing (issue 4 point 1; DESIGN.md "HTTP interface"): failed sign-ins are limited per
 * account and client address — after LOGIN_MAX_FAILURES failures the console answers 429 with
 * Retry-After, even to the right password — while another address, other accounts and successful
 * sign-ins are not held back. The address is `x-skill-console-peer`, which scripts/console-server.mjs
 * sets from the TCP socket (tests/scripts/peer-address.test.ts); X-Forwarded-For changes nothing.
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as loginRoute from "@/app/api/v1/auth/login/route";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";

const MAX_FAILURES = 3;
const WINDOW_SECONDS = 600;

function login(email: string, password: string, address: string, headers: Record<string, string> = {}) {
  return invoke(loginRoute.POST, "/api/v1/auth/login", { body: { email, password }, as: "anonymous", headers: { "x-skill-console-peer": address, ...headers } });
}

async function failTimes(person: TestPerson, address: string, times: number, headers: (attempt: number) => Record<string, string> = () => ({})) {
  for (let attempt = 0; attempt < times; attempt++) {
    const response = await login(person.email, "wrong-password-123", address, headers(attempt));
    expect(response.status).toBe(401);
  }
}

beforeAll(async () => {
  await setUpTestConsole({ LOGIN_MAX_FAILURES: String(MAX_FAILURES), LOGIN_WINDOW_SECONDS: String(WINDOW_SECONDS) });
});

// Every attempt hashes a password (scrypt): slow on a busy 2-core machine.
describe("sign-in rate limit", { timeout: 90_000 }, () => {
  it("after LOGIN_MAX_FAILURES failures of one account from one address, refuses even the right password with 429 and Retry-After", async () => {
    const person = await createPerson("viewer");
    await failTimes(person, "10.0.0.1", MAX_FAILURES);
    const refused = await login(person.email, person.password, "10.0.0.1");
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    const retryAfter = refused.headers.get("retry-after");
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(Number(retryAfter)).toBeLessThanOrEqual(WINDOW_SECONDS);
    expect(refused.headers.getSetCookie()).toEqual([]);
  });

  it("does not hold back the same account from another address", async () => {
    const person = await createPerson("viewer");
    await failTimes(person, "10.0.1.1", MAX_FAILURES);
    expect((await login(person.email, person.password, "10.0.1.1")).status).toBe(429);
    expect((await login(person.email, person.password, "10.0.1.2")).status).toBe(200);
  });

  it("does not hold back another account from the same address", async () => {
    const [victim, other] = [await createPerson("viewer"), await createPerson("viewer")];
    await failTimes(victim, "10.0.2.1", MAX_FAILURES);
    expect((await login(other.email, other.password, "10.0.2.1")).status).toBe(200);
  });

  it("counts only failures: successful sign-ins never add up to a lock-out", async () => {
    const person = await createPerson("operator");
    for (let i = 0; i < MAX_FAILURES * 2; i++) expect((await login(person.email, person.password, "10.0.3.1")).status).toBe(200);
    await failTimes(person, "10.0.3.1", MAX_FAILURES - 1);
    expect((await login(person.email, person.password, "10.0.3.1")).status).toBe(200);
  });

  it("limits guesses at an unknown email like those at a real one (no account probing)", async () => {
    for (let i = 0; i < MAX_FAILURES; i++) expect((await login("nobody-at-all@console.local", "guess-password-1", "10.0.4.1")).status).toBe(401);
    expect((await login("nobody-at-all@console.local", "guess-password-1", "10.0.4.1")).status).toBe(429);
  });

  it("ignores X-Forwarded-For: a client cannot spread its guesses over made-up addresses", async () => {
    const person = await createPerson("viewer");
    await failTimes(person, "10.0.5.1", MAX_FAILURES, (attempt) => ({ "x-forwarded-for": `198.51.100.${attempt + 1}`, "x-real-ip": `198.51.100.${attempt + 1}` }));
    const refused = await login(person.email, person.password, "10.0.5.1", { "x-forwarded-for": "198.51.100.200" });
    expect(refused.status).toBe(429);
  });
});
