/**
 * A hostile (or broken) child that writes millions of empty stderr lines stays within
 * SKILL_STDERR_LIMIT_BYTES — a newline is one byte — yet every line becomes a timeline event: an
 * object in memory, a database row and an entry of `GET /api/v1/calls/{id}`. With 1 MiB of newlines
 * the console used ~400 MB, wrote rows for 50 s and let the call time out; with the 8 MiB default it
 * would be 8 million events. The timeline must be bounded in lines as well as in bytes.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_STDERR_LINE_LIMIT } from "@/lib/server/executor";
import { StderrLines } from "@/lib/server/executor/stderr-lines";
import { makeTempDir, run, specFor, writeScript } from "../executor/helpers";

describe("stderr flood of tiny lines", () => {
  it("keeps at most the line limit and then ends the timeline with the truncation marker", async () => {
    const dir = makeTempDir();
    const script = writeScript(dir, "flood.sh", "head -c 1000000 /dev/zero | tr '\\0' '\\n' >&2\necho '{}'\n");
    const outcome = await run(specFor(dir, { command: script, stderrLimitBytes: 8 * 1024 * 1024, stderrLineLimit: 1000 }));
    expect(outcome.end).toBe("exited");
    expect(outcome.exitCode).toBe(0);
    expect(outcome.stdout.trim()).toBe("{}");
    expect(outcome.lines).toHaveLength(1000);
    expect(outcome.events.filter((event) => event.startsWith("truncated:"))).toHaveLength(1);
    expect(outcome.events.at(-1)).toMatch(/^truncated:/);
  });

  it("bounds the lines by default, whatever the byte limit", async () => {
    const dir = makeTempDir();
    const lines = DEFAULT_STDERR_LINE_LIMIT + 50_000;
    const script = writeScript(dir, "flood.sh", `head -c ${lines} /dev/zero | tr '\\0' '\\n' >&2\necho '{}'\n`);
    const outcome = await run(specFor(dir, { command: script, stderrLimitBytes: 8 * 1024 * 1024 }));
    expect(DEFAULT_STDERR_LINE_LIMIT).toBeLessThanOrEqual(100_000);
    expect(outcome.lines).toHaveLength(DEFAULT_STDERR_LINE_LIMIT);
  });

  it("reports which limit cut the timeline", () => {
    const causes: string[] = [];
    const sink = new StderrLines(1000, { onLine: () => undefined, onTruncated: (kept, cause) => causes.push(`${cause?.kind}:${cause?.keptLines}:${kept}`) }, undefined, 3);
    sink.push(Buffer.from("a\nb\nc\nd\ne\n"));
    sink.end();
    expect(causes).toEqual(["lines:3:6"]);
  });
});
