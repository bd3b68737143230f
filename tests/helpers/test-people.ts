import * as loginRoute from "@/app/api/v1/auth/login/route";
import * as usersRoute from "@/app/api/v1/users/route";
import type { Role } from "@/lib/types/identity";
import { invoke } from "./route-client";

/** The first admin every test console starts with (setUpTestConsole sets these variables). */
export const TEST_ADMIN = { email: "admin@console.local", password: "admin-password-for-tests" };

/** The origin of the in-process requests (route-client sends them to http://127.0.0.1). */
export const TEST_ORIGIN = "http://127.0.0.1";

/** A signed-in person of a test: their email, password, role and the headers that carry their session. */
export interface TestPerson {
  email: string;
  password: string;
  role: Role;
  headers: Record<string, string>;
}

/**
 * Signs in through `POST /api/v1/auth/login` and returns the headers of a same-origin browser request
 * carrying the session cookie (`cookie` and `origin`). Throws with the answer when the sign-in fails.
 */
export async function signIn(email: string, password: string): Promise<Record<string, string>> {
  const response = await invoke(loginRoute.POST, "/api/v1/auth/login", { body: { email, password }, as: "anonymous" });
  if (response.status !== 200) throw new Error(`sign-in of ${email} failed: ${response.status} ${await response.text()}`);
  const cookie = response.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
  return { cookie, origin: TEST_ORIGIN };
}

let counter = 0;

/** Creates a person with `role` (as the test admin) and signs them in. `name` becomes part of the email. */
export async function createPerson(role: Role, name = `${role}-${++counter}`): Promise<TestPerson> {
  const email = `${name}@console.local`;
  const password = `password-of-${name}`;
  const response = await invoke(usersRoute.POST, "/api/v1/users", { body: { email, password, role } });
  if (response.status !== 201) throw new Error(`creating ${email} failed: ${response.status} ${await response.text()}`);
  return { email, password, role, headers: await signIn(email, password) };
}
