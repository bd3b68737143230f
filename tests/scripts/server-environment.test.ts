import { describe, expect, it } from "vitest";
// @ts-expect-error -- a plain ESM script without type declarations
import { serverEnvironment } from "../../scripts/server-environment.mjs";

describe("serverEnvironment (npm start)", () => {
  it("drops the PATH entries npm prepends, keeping the operator's PATH and every other variable", () => {
    const env = {
      PATH: "/srv/console/node_modules/.bin:/srv/node_modules/.bin:/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin:/usr/local/bin:/usr/bin:/opt/node_modules/tool/bin",
      HOME: "/root",
    };
    expect(serverEnvironment(env)).toEqual({ PATH: "/usr/local/bin:/usr/bin:/opt/node_modules/tool/bin", HOME: "/root" });
    expect(env.PATH.startsWith("/srv/console/node_modules/.bin")).toBe(true);
  });

  it("leaves an environment without PATH as it is", () => {
    expect(serverEnvironment({ HOME: "/root" })).toEqual({ HOME: "/root" });
  });
});
