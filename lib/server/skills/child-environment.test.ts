import { afterEach, describe, expect, it } from "vitest";
import { childEnvironment, SHELL_RESET_NAMES } from "./child-environment";

const saved = { ...process.env };
afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
});

describe("childEnvironment", () => {
  it("never passes what the join shell resets (IFS, OPTIND, PPID), from env_allow or a secret, and passes the rest exactly", () => {
    Object.assign(process.env, { IFS: ",", OPTIND: "7", PPID: "ticket-42", CHILD_ENV_MARK: "kept" });
    const skill = { kind: "subprocess" as const, envAllow: ["IFS", "OPTIND", "PPID", "CHILD_ENV_MARK"], secretsNeeded: [] };
    expect(SHELL_RESET_NAMES).toEqual(["IFS", "OPTIND", "PPID"]);
    expect(childEnvironment(skill, { home: null, secrets: { PPID: "secret-ppid", API_KEY: "secret-key-1" } })).toEqual({ CHILD_ENV_MARK: "kept", API_KEY: "secret-key-1" });
  });
});
