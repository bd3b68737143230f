/**
 * The native loader against real skill repositories (issue 12 point 1; DESIGN.md "Native skills": real
 * repositories are the test of leniency). tests/fixtures/corpus holds real SKILL.md files and their
 * neighbours, byte-exact from anthropics/skills, openclaw/skills, ComposioHQ/awesome-claude-skills and
 * ethereumdegen/stark-bot at pinned commits (its README and sources.json say which). The corpus folder
 * is scanned as a skills path (its sources are the categories) with a fixed host (linux; sh, bash,
 * python3, node, git and curl on PATH; no environment variable set), and every file's outcome —
 * registered (name, availability), skipped or failed (reason), warnings, and the strict report — must be
 * exactly the one in corpus-expected.json, the expected-outcome table per file. Nothing that looks like
 * a skill may be absent from the report.
 *
 * To see what changed after a deliberate loader change: CORPUS_WRITE_EXPECTED=1 writes the table anew;
 * review its diff before committing it.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadNativeSkills } from "@/lib/server/skills/native/native-loader";
import type { HostProbe } from "@/lib/server/skills/native/host-requirements";
import { withSecretGrants } from "@/lib/server/skills/secret-grants";

const CORPUS = path.resolve(__dirname, "../fixtures/corpus");
const EXPECTED_FILE = path.join(__dirname, "corpus-expected.json");

interface Source {
  local: string;
  repo: string;
  commit: string;
  sha256: string;
}

/** One file's expected outcome. */
interface Outcome {
  outcome: "registered" | "skipped" | "failed";
  name: string | null;
  /** Why it was skipped or failed (null when registered). */
  reason: string | null;
  /** Why this host cannot run it (registered only; null = available). */
  unavailableReason: string | null;
  warnings: string[];
  specDeviations: string[];
}

/** The host every corpus scan sees, whatever machine runs the test. */
const FIXED_HOST: HostProbe = {
  platform: "linux",
  hasBin: (bin) => ["sh", "bash", "python3", "node", "git", "curl"].includes(bin),
};

const sources = JSON.parse(fs.readFileSync(path.join(CORPUS, "sources.json"), "utf8")) as Source[];

async function scanCorpus(): Promise<Record<string, Outcome>> {
  const root = fs.realpathSync(CORPUS);
  const { skills, report } = await loadNativeSkills(root, { defaultTimeoutSeconds: 30, log: () => undefined, probe: FIXED_HOST });
  const outcomes: Record<string, Outcome> = {};
  const relative = (file: string) => path.relative(root, file).split(path.sep).join("/");
  for (const [outcome, entries] of [
    ["registered", report.registered],
    ["skipped", report.skipped],
    ["failed", report.failed],
  ] as const) {
    for (const entry of entries) {
      const loaded = outcome === "registered" ? skills.find((candidate) => candidate.source.path === entry.path) : undefined;
      // As a fresh console offers it: no secret is given to any skill.
      const skill = loaded ? withSecretGrants(loaded, new Map()) : undefined;
      outcomes[relative(entry.path)] = {
        outcome,
        name: entry.name,
        reason: entry.reason,
        unavailableReason: skill?.unavailableReason ?? null,
        warnings: entry.warnings,
        specDeviations: entry.specDeviations ?? [],
      };
    }
  }
  return Object.fromEntries(Object.entries(outcomes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

describe("the real-world corpus", () => {
  it("is byte-exact: every file's sha256 is the one recorded with its repository and commit", () => {
    expect(sources.length).toBeGreaterThanOrEqual(48);
    for (const source of sources) {
      expect(source.commit, source.local).toMatch(/^[0-9a-f]{40}$/);
      const digest = createHash("sha256").update(fs.readFileSync(path.join(CORPUS, source.local))).digest("hex");
      expect(digest, source.local).toBe(source.sha256);
    }
  });

  it("loads every file as the expected-outcome table says", async () => {
    const outcomes = await scanCorpus();
    if (process.env.CORPUS_WRITE_EXPECTED === "1") fs.writeFileSync(EXPECTED_FILE, `${JSON.stringify(outcomes, null, 2)}\n`);
    const expected = JSON.parse(fs.readFileSync(EXPECTED_FILE, "utf8")) as Record<string, Outcome>;
    expect(Object.keys(outcomes)).toEqual(Object.keys(expected));
    for (const [file, outcome] of Object.entries(expected)) expect(outcomes[file], file).toEqual(outcome);
  });

  it("leaves nothing that looks like a skill out of the report", async () => {
    const outcomes = await scanCorpus();
    const reported = new Set(Object.keys(outcomes));
    const nestedWarnings = Object.values(outcomes).flatMap((outcome) => outcome.warnings.filter((warning) => warning.includes("is a SKILL.md inside this skill's folder")));
    const lookalikes = sources
      .map((source) => source.local)
      .filter((file) => {
        const base = path.posix.basename(file).toLowerCase();
        const folder = path.posix.basename(path.posix.dirname(file)).toLowerCase();
        return base === "skill.md" || base === "skills.md" || base === `${folder}.md`;
      });
    expect(lookalikes.length).toBeGreaterThanOrEqual(56);
    for (const file of lookalikes) {
      const nested = file.split("/").length > 3;
      if (nested) expect(nestedWarnings.some((warning) => warning.startsWith(file.split("/").slice(2).join("/"))), file).toBe(true);
      else expect(reported.has(file), file).toBe(true);
    }
  });

  it("reads the corpus's kinds of leniency as DESIGN.md lists them", async () => {
    const outcomes = await scanCorpus();
    const count = (test: (outcome: Outcome) => boolean) => Object.values(outcomes).filter(test).length;
    // An unquoted ": " read as quoted (food-order, apollo-io, plan-executor).
    expect(count((outcome) => outcome.outcome === "registered" && outcome.warnings.some((warning) => warning.includes('holds an unquoted ": "')))).toBe(3);
    // skill.md and Skill.md (one with no frontmatter: skipped, with its reason, not absent).
    expect(outcomes["openclaw/hevycli/Skill.md"]).toMatchObject({ outcome: "skipped", reason: "no frontmatter: the file does not start with a --- line" });
    expect(outcomes["openclaw/todoist-cli/skill.md"]).toMatchObject({ outcome: "registered", name: "todoist", unavailableReason: "requires bins not found on PATH: todoist" });
    // Gating under metadata.* names and at the top level makes skills unavailable with the reason.
    expect(outcomes["openclaw/imsg/SKILL.md"]!.unavailableReason).toBe("os not supported: runs on darwin (this host is linux); requires bins not found on PATH: imsg");
    expect(outcomes["openclaw/openai-tts/SKILL.md"]!.unavailableReason).toBe("needs secret OPENAI_API_KEY: no secret of that name is given to this skill (Secrets page)");
    // Non-spec fields are named in the strict report.
    expect(count((outcome) => outcome.specDeviations.some((deviation) => deviation.startsWith('field "homepage"')))).toBeGreaterThanOrEqual(1);
  });
});
