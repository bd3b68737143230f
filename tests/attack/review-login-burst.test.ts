/**
 * The sign-in limit must hold against a burst, not only against attempts sent one after another: if
 * the limit is read before the (slow, scrypt) password check and the failure counted after it, every
 * attempt of a parallel burst passes the check before the first failure is counted, and an attacker
 * gets as many password guesses per window as they can send at once — the right one among them signs
 * in. At most LOGIN_MAX_FAILURES attempts of one account from one address may reach the password check
 * per window, whatever their timing; successful sign-ins still never count.
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as loginRoute from "@/app/api/v1/auth/login/route";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole } from "../helpers/test-console";
import { createPerson } from "../helpers/test-people";

const MAX_FAILURES = 3;
const BURST = 24;

function login(email: string, password: string, address: string) {
  return invoke(loginRoute.POST, "/api/v1/auth/login", { body: { email, password }, as: "anonymous", headers: { "x-skill-console-peer": address } });
}

beforeAll(async () => {
  await setUpTestConsole({ LOGIN_MAX_FAILURES: String(MAX_FAILURES), LOGIN_WINDOW_SECONDS: "600" });
});

describe("sign-in limit under a parallel burst", { timeout: 120_000 }, () => {
  it("lets at most LOGIN_MAX_FAILURES guesses reach the password check, and the right password hidden in the burst does not sign in", async () => {
    const victim = await createPerson("admin", "burst-victim");
    const guesses = Array.from({ length: BURST }, (_, index) => (index === BURST - 1 ? victim.password : `wrong-guess-${index}-xxxxxxxx`));
    const answers = await Promise.all(guesses.map((password) => login(` ${victim.email.toUpperCase()} `, password, "10.9.9.9")));
    const statuses = answers.map((response) => response.status);
    const checked = statuses.filter((status) => status !== 429).length;
    expect(checked, `statuses: ${statuses.join(",")}`).toBeLessThanOrEqual(MAX_FAILURES);
    expect(statuses).not.toContain(200);
  });

  it("still lets the right password in after fewer than LOGIN_MAX_FAILURES failures, and successes do not count", async () => {
    const person = await createPerson("viewer", "burst-ok");
    for (let index = 0; index < MAX_FAILURES - 1; index++) expect((await login(person.email, "wrong-password-123", "10.9.9.10")).status).toBe(401);
    for (let index = 0; index < 5; index++) expect((await login(person.email, person.password, "10.9.9.10")).status).toBe(200);
    expect((await login(person.email, "wrong-password-123", "10.9.9.10")).status).toBe(401);
    expect((await login(person.email, person.password, "10.9.9.10")).status).toBe(429);
  });
});
