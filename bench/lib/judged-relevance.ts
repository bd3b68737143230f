/**
 * skill_search relevance on the judged set (issue 12 point 3), shared by tests/search/judged-relevance.test.ts
 * and `npm run bench` (bundled by bench/lib/build-bench.mjs into .bench-build/judged-relevance.mjs):
 * tests/fixtures/search/judged-queries.json holds (query, right skill) pairs written before any tuning,
 * over the bundled skills (skills/, both kinds) and the registered skills of the real-world corpus
 * (tests/fixtures/corpus). Every query runs through the real loaders and searchSkills over that pool.
 */
import fs from "node:fs";
import path from "node:path";
import { searchSkills, type SearchableSkill } from "@/lib/server/search/skill-search";
import type { SecretGrants } from "@/lib/server/secrets/secret-store";
import type { HostProbe } from "@/lib/server/skills/native/host-requirements";
import { loadNativeSkills } from "@/lib/server/skills/native/native-loader";
import { loadSubprocessSkills } from "@/lib/server/skills/subprocess-loader";
import { withSecretGrants } from "@/lib/server/skills/secret-grants";

/** One judged pair: a query and the one skill judged right for it. */
export interface JudgedPair {
  query: string;
  skill: string;
}

/** The relevance of a ranking on the judged set. */
export interface Judgement {
  /** Mean reciprocal rank of the right skill (0 when it is not among the first 50), 0–1. */
  mrr: number;
  /** Share of queries whose first match is the right skill, 0–1. */
  top1: number;
  pairs: number;
  poolSize: number;
  /** The queries whose right skill did not rank first: its rank (0 = not in the first 50) and what did. */
  misses: Array<JudgedPair & { rank: number; first: string }>;
}

/** The host the judged pool is loaded on, whatever machine runs it (availability ranks skills). */
const JUDGED_HOST: HostProbe = { platform: "linux", hasBin: (bin) => ["sh", "bash", "python3", "node", "git", "curl"].includes(bin) };

/** No secret given to any skill. */
const NO_SECRETS: SecretGrants = new Map();

/** The judged pairs of `root` (the project folder). */
export function judgedPairs(root: string): JudgedPair[] {
  return (JSON.parse(fs.readFileSync(path.join(root, "tests/fixtures/search/judged-queries.json"), "utf8")) as { pairs: JudgedPair[] }).pairs;
}

/** The judged pool of `root`: the bundled skills of both kinds, then the corpus's native skills, as skill_search reads them. */
export async function judgedPool(root: string): Promise<SearchableSkill[]> {
  const quiet = { defaultTimeoutSeconds: 30, log: () => undefined };
  const bundled = path.join(root, "skills");
  const subprocess = await loadSubprocessSkills([bundled], quiet);
  const taken = new Set(subprocess.skills.map((skill) => skill.name));
  const native = await loadNativeSkills(bundled, { ...quiet, taken, probe: JUDGED_HOST });
  for (const skill of native.skills) taken.add(skill.name);
  const corpus = await loadNativeSkills(path.join(root, "tests/fixtures/corpus"), { ...quiet, taken, probe: JUDGED_HOST });
  // No secret is given to any skill: one that needs a secret is unavailable, as on a fresh console.
  return [...subprocess.skills, ...native.skills, ...corpus.skills].map((loaded) => withSecretGrants(loaded, NO_SECRETS)).map((skill) => ({
    name: skill.name,
    description: skill.description,
    category: skill.category,
    whenToUse: skill.kind === "native" ? skill.whenToUse : null,
    kind: skill.kind,
    available: skill.available,
  }));
}

/** Ranks every pair's query over `pool` (searchSkills, 50 matches) and judges where its right skill lands. Pure apart from the search index cache. */
export function judge(pairs: readonly JudgedPair[], pool: readonly SearchableSkill[]): Judgement {
  let reciprocal = 0;
  let firsts = 0;
  const misses: Judgement["misses"] = [];
  for (const pair of pairs) {
    const matches = searchSkills(pair.query, pool, { limit: 50 });
    const rank = matches.findIndex((match) => match.name === pair.skill) + 1;
    if (rank > 0) reciprocal += 1 / rank;
    if (rank === 1) firsts += 1;
    else misses.push({ ...pair, rank, first: matches[0]?.name ?? "(none)" });
  }
  return { mrr: reciprocal / pairs.length, top1: firsts / pairs.length, pairs: pairs.length, poolSize: pool.length, misses };
}

/** The judgement of the project at `root` (its judged pairs over its judged pool). */
export async function judgeProject(root: string): Promise<Judgement> {
  return judge(judgedPairs(root), await judgedPool(root));
}
