import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { curlCommand, shellQuote } from "./curl-command";

/** Runs `script` in bash and returns its stdout: what the shell really makes of our quoting. */
function bash(script: string): string {
  return execFileSync("bash", ["-c", script], { encoding: "utf8" });
}

/** The command with `curl` swapped for a function that prints its args and stdin, one per line. */
function runWithFakeCurl(command: string): { argv: string[]; stdin: string } {
  const out = bash(`SKILL_CONSOLE_TOKEN='skc_test$x'\ncurl() { printf '%s\\0' "$@"; printf '\\1'; cat; }\n${command}`);
  const [argvPart = "", stdin = ""] = out.split("\u0001");
  return { argv: argvPart.split("\0").slice(0, -1), stdin };
}

const TRICKY: Record<string, unknown> = {
  quotes: `it's "quoted" and 'single' '\\''`,
  newlines: "line 1\nline 2\r\n\tJSON\nJSON",
  unicode: "héllo – 日本語 😀 \u2028 end",
  shell: "$HOME ${PATH} $(rm -rf /) `whoami` !! \\ \\n",
  nested: { list: [1, 2.5, true, null, "a'b"], empty: {} },
};

describe("shellQuote", () => {
  it.each(["plain", "it's", "''", "$HOME `id` $(id) \\ !", "", "new\nline"])("bash reads %j back unchanged", (text) => {
    expect(bash(`printf '%s' ${shellQuote(text)}`)).toBe(text);
  });
});

describe("curlCommand", () => {
  it("builds a POST to the skill's calls URL with a quoted heredoc body", () => {
    const command = curlCommand({ origin: "http://127.0.0.1:3000", skill: "slow_echo", args: { message: "hi" } });
    expect(command).toBe(
      [
        `curl -sS -X POST 'http://127.0.0.1:3000/api/v1/skills/slow_echo/calls' -H "Authorization: Bearer $SKILL_CONSOLE_TOKEN" -H 'content-type: application/json' --data-binary @- <<'JSON'`,
        "{",
        '  "args": {',
        '    "message": "hi"',
        "  }",
        "}",
        "JSON",
        "",
      ].join("\n"),
    );
  });

  it("hands curl the exact args: quotes, newlines, unicode, $ and backticks are not expanded", () => {
    const command = curlCommand({ origin: "http://localhost:3123", skill: "slow_echo", args: TRICKY });
    const { argv, stdin } = runWithFakeCurl(command);
    expect(argv).toEqual(["-sS", "-X", "POST", "http://localhost:3123/api/v1/skills/slow_echo/calls", "-H", "Authorization: Bearer skc_test$x", "-H", "content-type: application/json", "--data-binary", "@-"]);
    expect(JSON.parse(stdin)).toEqual({ args: TRICKY });
  });

  it("keeps no raw line break inside a string, so no body line can end the heredoc", () => {
    const command = curlCommand({ origin: "http://x", skill: "s", args: { a: "x\nJSON\ny" } });
    const lines = command.split("\n");
    expect(lines.filter((line) => line === "JSON")).toHaveLength(1);
  });

  it("writes ! as a JSON escape so interactive history expansion cannot touch it", () => {
    const command = curlCommand({ origin: "http://x", skill: "s", args: { "a!": "!!" } });
    expect(command).not.toContain("!");
    const { stdin } = runWithFakeCurl(command);
    expect(JSON.parse(stdin)).toEqual({ args: { "a!": "!!" } });
  });

  it("encodes an odd skill name into the URL path and quotes the whole URL", () => {
    const { argv } = runWithFakeCurl(curlCommand({ origin: "http://h:1", skill: "we'ird $name", args: {} }));
    expect(argv[3]).toBe("http://h:1/api/v1/skills/we'ird%20%24name/calls");
  });

  it("reads the API token from $SKILL_CONSOLE_TOKEN, so no secret is ever in the copied text", () => {
    const command = curlCommand({ origin: "http://h:1", skill: "s", args: {} });
    expect(command).not.toMatch(/skc_/);
    expect(runWithFakeCurl(command).argv[5]).toBe("Authorization: Bearer skc_test$x");
  });
});
