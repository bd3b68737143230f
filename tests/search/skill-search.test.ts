import fs from "node:fs";
import { afterAll, describe, expect, test } from "vitest";
import { isStopword } from "@/lib/server/search/search-terms";
import { searchSkills, skillIndexFor, type SearchableSkill } from "@/lib/server/search/skill-search";
import { SEARCH_FIXTURE_SKILLS } from "./skill-fixtures";

const skills = SEARCH_FIXTURE_SKILLS;
const rankingRows: string[] = [];

function names(query: string, limit = 10): string[] {
  return searchSkills(query, skills, { limit }).map((match) => match.name);
}

/** Query → the skill expected first, or (with `within`) among the first `within` results. */
const EXPECTED_TOP: { query: string; expected: string; within?: number }[] = [
  { query: "deploy", expected: "deploy-service" },
  { query: "analyze logs errors", expected: "log-analyzer" },
  { query: "health", expected: "health-check" },
  { query: "kill process", expected: "kill_process" },
  { query: "deplyo", expected: "deploy-service" },
  { query: "port", expected: "listening_ports" },
  { query: "analizar logs", expected: "log-analyzer", within: 3 },
  { query: "desplegar servicio", expected: "deploy-service", within: 3 },
  { query: "send report", expected: "daily-report" },
  { query: "backup database", expected: "backup-database" },
  { query: "certificate expiry", expected: "ssl-certificate-check" },
  { query: "running processes cpu", expected: "process_list" },
  { query: "restart service", expected: "service_restart" },
  { query: "rotate logs", expected: "rotate-logs" },
  { query: "docker containers", expected: "docker_containers" },
  { query: "dns", expected: "dns_lookup" },
];

describe("searchSkills ranking on the fixture set", () => {
  test.each(EXPECTED_TOP)("$query → $expected", ({ query, expected, within }) => {
    const ranked = names(query);
    if (within === undefined) expect(ranked[0]).toBe(expected);
    else expect(ranked.slice(0, within)).toContain(expected);
  });

  test("free disk space → the two disk skills first", () => {
    expect(names("free disk space").slice(0, 2).sort()).toEqual(["disk_cleaner", "disk_usage"]);
  });

  test("Spanish: liberar espacio en disco → a disk skill first", () => {
    expect(["disk_cleaner", "disk_usage"]).toContain(names("liberar espacio en disco")[0]);
  });

  test("exact values for two queries", () => {
    expect(searchSkills("deploy", skills)).toEqual([
      {
        name: "deploy-service",
        category: "devops",
        description: skills[0]!.description,
        confidence: 1,
        available: true,
      },
      {
        name: "deployment-status",
        category: "devops",
        description: "Show the status and history of recent deployments.",
        // "deploy" is a prefix of "deployment" in the name (0.85), at about half the best score; the
        // name's whole-name term "=deployment-status" is not prefix-matched as well.
        confidence: 0.64,
        available: true,
      },
      {
        name: "health-check",
        category: "system",
        description: skills[3]!.description,
        confidence: 0.5,
        available: true,
      },
    ]);
    expect(searchSkills("kill process", skills).map((m) => [m.name, m.confidence])).toEqual([
      ["kill_process", 1],
      ["process_list", 0.31],
    ]);
  });
});

describe("searchSkills confidence", () => {
  test.each(["deploy-service", "Deploy Service", "disk_usage", "DISK-USAGE", "diskUsage", "log_scan", "health-check"])(
    "exact name %s → that skill first with confidence ≥ 0.95",
    (query) => {
      const [first] = searchSkills(query, skills);
      expect(first?.name.replace(/[-_]/g, "")).toBe(query.toLowerCase().replace(/[-_ ]/g, ""));
      expect(first!.confidence).toBeGreaterThanOrEqual(0.95);
    },
  );

  test("confidence is in (0, 1], has two decimals and never increases down the list", () => {
    for (const { query } of EXPECTED_TOP) {
      const matches = searchSkills(query, skills, { limit: 50 });
      expect(matches.length).toBeGreaterThan(0);
      matches.forEach((match, index) => {
        expect(match.confidence).toBeGreaterThan(0);
        expect(match.confidence).toBeLessThanOrEqual(1);
        expect(Math.round(match.confidence * 100) / 100).toBe(match.confidence);
        if (index > 0) expect(match.confidence).toBeLessThanOrEqual(matches[index - 1]!.confidence);
      });
    }
  });

  test("all words present ranks above a partial match", () => {
    const matches = searchSkills("restore database", skills);
    expect(matches.slice(0, 2).map((m) => m.name)).toEqual(["restore-database", "backup-database"]);
    expect(matches[0]!.confidence).toBeGreaterThan(matches[1]!.confidence);
  });

  test("a typo scores below the exact word", () => {
    const typo = searchSkills("deplyo", skills)[0]!;
    const exact = searchSkills("deploy", skills)[0]!;
    expect(typo.name).toBe(exact.name);
    expect(typo.confidence).toBeLessThan(exact.confidence);
  });
});

describe("searchSkills edge cases", () => {
  test.each(["", "   ", "the of and", "de la para los", "qwertyuiop zxcvbnm", "?!"])("query %j → []", (query) => {
    expect(searchSkills(query, skills)).toEqual([]);
  });

  test("no skills → []", () => {
    expect(searchSkills("deploy", [])).toEqual([]);
  });

  test("limit: default 10, respected, clamped to 1–50", () => {
    const many: SearchableSkill[] = Array.from({ length: 80 }, (_, i) => ({
      name: `report-${String(i).padStart(2, "0")}`,
      description: "Report something.",
      category: "misc",
      whenToUse: null,
      kind: "native",
    }));
    expect(searchSkills("report", many)).toHaveLength(10);
    expect(searchSkills("report", many, { limit: 3 })).toHaveLength(3);
    expect(searchSkills("report", many, { limit: 500 })).toHaveLength(50);
    expect(searchSkills("report", many, { limit: 0 })).toHaveLength(1);
    // Equal confidence and score: stable order by name.
    expect(searchSkills("report", many, { limit: 3 }).map((m) => m.name)).toEqual([
      "report-00",
      "report-01",
      "report-02",
    ]);
  });

  test("filter hides skills before ranking", () => {
    const matches = searchSkills("deploy", skills, { filter: (skill) => skill.category !== "devops" });
    expect(matches.map((m) => m.name)).toEqual(["health-check"]);
  });

  test("the index is built once per skills array", () => {
    const copy = [...skills];
    const first = skillIndexFor(copy);
    searchSkills("deploy", copy);
    expect(skillIndexFor(copy)).toBe(first);
    expect(skillIndexFor([...skills])).not.toBe(first);
  });

  test("accents and case are folded", () => {
    const accented: SearchableSkill[] = [
      { name: "análisis-rápido", description: "Análisis rápido de registros.", category: "análisis", whenToUse: null, kind: "native" },
    ];
    expect(searchSkills("ANALISIS rapido", accented).map((m) => [m.name, m.confidence])).toEqual([["análisis-rápido", 1]]);
  });
});

describe("the seed's keyword matching is the floor", () => {
  const queries = [
    ...EXPECTED_TOP.map((row) => row.query),
    "port",
    "report",
    "ports service",
    "check disk",
    "file",
    "ssh",
    "err",
    "log_scan",
    "análisis",
    "pid",
  ];
  test.each(queries)("%s: every skill whose name or description contains a keyword is returned", (query) => {
    const keywords = query
      .toLowerCase()
      .split(/\s+/)
      .filter((word) => word.length >= 3 && !isStopword(word));
    const expected = skills
      .filter((skill) => keywords.some((k) => `${skill.name}\n${skill.description}`.toLowerCase().includes(k)))
      .map((skill) => skill.name);
    const returned = names(query, 50);
    for (const name of expected) expect(returned).toContain(name);
  });

  test("substring-only matches rank below word matches ('port' inside 'report')", () => {
    const matches = searchSkills("port", skills, { limit: 50 });
    expect(matches[0]).toMatchObject({ name: "listening_ports", confidence: 1 });
    expect(matches.find((m) => m.name === "daily-report")!.confidence).toBeLessThan(0.5);
  });
});

const TABLE_QUERIES = [
  ...EXPECTED_TOP.map((row) => row.query),
  "free disk space",
  "liberar espacio en disco",
  "deploy-service",
  "disk_usage",
  "report",
  "qwertyuiop zxcvbnm",
];

describe("ranking table", () => {
  test("top 3 per query", () => {
    rankingRows.push("| query | 1st | 2nd | 3rd |", "|---|---|---|---|");
    for (const query of TABLE_QUERIES) {
      const top = searchSkills(query, skills, { limit: 3 }).map((m) => `${m.name} (${m.confidence.toFixed(2)})`);
      while (top.length < 3) top.push("—");
      rankingRows.push(`| \`${query}\` | ${top.join(" | ")} |`);
    }
    expect(rankingRows).toHaveLength(TABLE_QUERIES.length + 2);
  });
});

afterAll(() => {
  const table = [
    `Skill search ranking on tests/search/skill-fixtures.ts (${skills.length} skills), top 3 with confidence:`,
    "",
    ...rankingRows,
    "",
  ].join("\n");
  console.log(table);
  // Written only on request (e.g. SKILL_SEARCH_RANKING_FILE=/work/brief/search-ranking.md) so CI writes nothing.
  const file = process.env.SKILL_SEARCH_RANKING_FILE;
  if (file) fs.writeFileSync(file, table);
});

describe("searchSkills and availability", () => {
  const pair: SearchableSkill[] = [
    { name: "disk-report-a", description: "Report disk usage of every filesystem.", category: "system", kind: "native", available: false },
    { name: "disk-report-b", description: "Report disk usage of every filesystem.", category: "system", kind: "native" },
    { name: "kubectl-rollout", description: "Roll out a Kubernetes deployment with kubectl.", category: "devops", kind: "native", available: false },
    { name: "deploy-notes", description: "Write notes about a deployment.", category: "devops", kind: "native" },
  ];

  test("an unavailable skill ranks below an available one of the same confidence, and says so", () => {
    expect(searchSkills("report disk usage", pair).map((match) => [match.name, match.available])).toEqual([
      ["disk-report-b", true],
      ["disk-report-a", false],
    ]);
  });

  test("an unavailable skill that matches clearly better still ranks first", () => {
    const matches = searchSkills("kubectl rollout", pair);
    expect(matches[0]).toMatchObject({ name: "kubectl-rollout", available: false, confidence: 1 });
  });
});

describe("searchSkills over a large registry with a word every skill holds", () => {
  // 1,200 skills whose descriptions all say "group": the word is not looked up in the index (it made
  // every skill a result), yet a skill holding it in its name still gets the credit for it.
  const fleet: SearchableSkill[] = Array.from({ length: 1200 }, (_, i) => ({
    name: `check-host-${i}`,
    description: `Check host ${i} of a named group.`,
    category: "system",
    kind: "native" as const,
  }));
  fleet.push({ name: "kafka-consumer-group", description: "Show the lag of a Kafka consumer group.", category: "data", kind: "native" });
  fleet.push({ name: "kafka-topics", description: "List the topics of a Kafka cluster of a named group.", category: "data", kind: "native" });

  test("ranks the skill with every word first, crediting the common word from its own name", () => {
    const matches = searchSkills("kafka consumer group lag", fleet, { limit: 3 });
    expect(matches.map((match) => [match.name, match.confidence])).toEqual([
      // kafka, consumer, group in the name (1 each), lag in the description (0.9): (3 + 0.9) / 4.
      ["kafka-consumer-group", 0.98],
      ["kafka-topics", 0.27],
      // Found by the seed's substring floor only, "group" credited from its description (0.9 / 4 × 0.5).
      ["check-host-0", 0.11],
    ]);
  });
});

describe("searchSkills index terms", () => {
  test("a query word matches a compound name's words, never the whole-name term by prefix or typo", () => {
    const pair: SearchableSkill[] = [
      { name: "deploy-kafka-topic", description: "Create a topic.", category: "data", kind: "native" },
      { name: "deployer", description: "Ship a build.", category: "devops", kind: "native" },
    ];
    const index = skillIndexFor(pair);
    const terms = index.miniSearch.search("deploy", { prefix: true, fuzzy: 2, processTerm: (term) => term }).map((result) => [result.id, result.terms]);
    expect(terms).toEqual([
      [0, ["deploy"]],
      [1, ["deployer"]],
    ]);
    // Typed whole, the compound name still finds its skill first, exactly.
    expect(searchSkills("deploy-kafka-topic", pair)[0]).toMatchObject({ name: "deploy-kafka-topic", confidence: 1 });
    expect(index.miniSearch.search("=deploy-kafka-topic", { processTerm: (term) => term, tokenize: (text) => [text] }).map((result) => result.id)).toEqual([0]);
  });
});
