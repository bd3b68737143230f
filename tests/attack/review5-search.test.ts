import { describe, expect, it } from "vitest";
import { searchSkills, type SearchableSkill } from "@/lib/server/search/skill-search";
import { MAX_SEARCH_QUERY_LENGTH } from "@/lib/server/tools/skill-tools";

// Review 5 (attacker): skill_search runs on the console's one event loop for any viewer token, so a
// hostile query (the schema allows up to MAX_SEARCH_QUERY_LENGTH characters) must stay cheap even
// over a thousand skills: many fuzzy words, one huge word, unicode that folds or expands. (Measured:
// cost is linear in skills × distinct query words, ~10-20 ms over 50 skills, ~0.3-0.6 s over 3000;
// the bound here is loose on purpose: it guards against superlinear blow-ups, not a benchmark. The
// amplification through MCP batches is bounded by MAX_MCP_BATCH_MESSAGES, see review5-mcp.)

const WORDS = ["deploy", "service", "restart", "disk", "usage", "backup", "database", "logs", "analyze", "rotate", "certificate", "network", "firewall", "kubernetes", "cluster", "memory", "process", "monitor", "report", "cleanup"];

function makeSkills(count: number): SearchableSkill[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `${WORDS[i % WORDS.length]}-${WORDS[(i * 7) % WORDS.length]}-${i}`,
    description: Array.from({ length: 25 }, (_, j) => `${WORDS[(i + j * 3) % WORDS.length]}${(i * j) % 13}`).join(" "),
    category: WORDS[(i * 3) % WORDS.length]!,
    whenToUse: `When the ${WORDS[(i * 5) % WORDS.length]} needs care.`,
    kind: "native" as const,
  }));
}

function timed(run: () => unknown): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

describe("skill_search stays cheap under hostile queries", () => {
  const skills = makeSkills(1000);
  searchSkills("warm up", skills);

  const queries: Array<[string, string]> = [
    ["many fuzzy words", Array.from({ length: 80 }, (_, i) => `${WORDS[i % WORDS.length]!.slice(0, 5)}x`).join(" ").slice(0, MAX_SEARCH_QUERY_LENGTH)],
    ["one huge word", "a".repeat(MAX_SEARCH_QUERY_LENGTH)],
    ["many prefixes", Array.from({ length: 160 }, () => "de").join(" ").slice(0, MAX_SEARCH_QUERY_LENGTH)],
    ["three-letter prefixes", Array.from({ length: 125 }, (_, i) => WORDS[i % WORDS.length]!.slice(0, 3)).join(" ").slice(0, MAX_SEARCH_QUERY_LENGTH)],
    ["unicode that expands when folded", "ﬃ".repeat(MAX_SEARCH_QUERY_LENGTH)],
    ["regex characters", "(a+)+$ [^]* .*.*.*=".repeat(25).slice(0, MAX_SEARCH_QUERY_LENGTH)],
    ["long words of 12 letters", Array.from({ length: 38 }, (_, i) => `${WORDS[i % WORDS.length]}xyzqwertyuio`.slice(0, 12)).join(" ").slice(0, MAX_SEARCH_QUERY_LENGTH)],
  ];

  it.each(queries)("%s: answers within 2.5 s over 1000 skills", (_label, query) => {
    const ms = timed(() => searchSkills(query, skills, { limit: 50 }));
    expect(ms).toBeLessThan(2500);
  });
});
