/**
 * skill_search relevance on the judged set (issue 12 point 3; bench/lib/judged-relevance.ts): the mean
 * reciprocal rank of the right skill and the share of queries that rank it first, over the bundled
 * skills and the real-world corpus, must stay above the floors below — a ranking change that loses
 * relevance fails here. `npm run bench` prints the same figures beside the latency over 10,000 skills.
 * Measured before any tuning (2026-12-05): MRR 0.919, top-1 85.1 % (67 queries, 54 skills).
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { judge, judgedPairs, judgedPool } from "@/bench/lib/judged-relevance";

const ROOT = path.resolve(__dirname, "../..");
/** Floors a little under the figures measured: room for a tie broken the other way, not for a worse ranker. */
const MRR_FLOOR = 0.88;
const TOP1_FLOOR = 0.8;

describe("skill_search on the judged set", () => {
  it(`ranks the right skill well: MRR ≥ ${MRR_FLOOR}, top-1 ≥ ${TOP1_FLOOR}`, async () => {
    const pairs = judgedPairs(ROOT);
    const pool = await judgedPool(ROOT);
    expect(pairs.length).toBeGreaterThanOrEqual(60);
    for (const { skill } of pairs) expect(pool.some((candidate) => candidate.name === skill), skill).toBe(true);
    const judgement = judge(pairs, pool);
    console.log(`judged set: ${judgement.pairs} queries over ${judgement.poolSize} skills: MRR ${judgement.mrr.toFixed(3)}, top-1 ${(judgement.top1 * 100).toFixed(1)}%`);
    for (const miss of judgement.misses) console.log(`  rank ${miss.rank || ">50"}: ${JSON.stringify(miss.query)} → want ${miss.skill}, got ${miss.first}`);
    expect(judgement.mrr).toBeGreaterThanOrEqual(MRR_FLOOR);
    expect(judgement.top1).toBeGreaterThanOrEqual(TOP1_FLOOR);
  });
});
