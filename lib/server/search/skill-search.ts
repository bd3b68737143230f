import MiniSearch, { type SearchResult } from "minisearch";
import {
  canonicalName,
  compoundNames,
  foldText,
  indexTerms,
  isStopword,
  queryWords,
  type QueryWord,
} from "./search-terms";

/**
 * What `skill_search` reads of a skill (level-1 metadata, seed 004). A registry skill of either kind
 * fits as is: subprocess skills have no `whenToUse`.
 */
export interface SearchableSkill {
  name: string;
  description: string;
  category: string;
  whenToUse?: string | null;
  kind: "subprocess" | "native";
  /** Whether this host can run it (absent = true). */
  available?: boolean;
}

/** One `skill_search` result (brief: `{"matches": [{name, description, category, confidence}]}`). */
export interface SkillMatch {
  name: string;
  description: string;
  category: string;
  /** 0–1, two decimals, > 0; see `searchSkills` for what it means. */
  confidence: number;
  /** Whether this host can run it; an unavailable skill ranks below available ones of similar confidence. */
  available: boolean;
}

/** Options of `searchSkills`. */
export interface SkillSearchOptions {
  /** Most matches returned: default 10, clamped to 1–50 (contract decision). */
  limit?: number;
  /**
   * Only skills it returns true for may match (e.g. the persona's categories and allow/deny lists).
   * Applied before scoring, so hidden skills never change the others' confidence; keeps the index
   * cache keyed by the registry's whole array.
   */
  filter?: (skill: SearchableSkill) => boolean;
}

/** Default number of matches (brief, contract decisions). */
export const DEFAULT_SEARCH_LIMIT = 10;
/** Largest accepted `limit` (brief, contract decisions). */
export const MAX_SEARCH_LIMIT = 50;

interface IndexedSkill {
  id: number;
  name: string;
  description: string;
  whenToUse: string;
  category: string;
}

/** The cached search structures of one skills array (see `skillIndexFor`). */
export interface SkillIndex {
  miniSearch: MiniSearch<IndexedSkill>;
  /** Per skill: lowercase and folded "name\ndescription", for the seed's keyword floor. */
  haystacks: string[];
  /** Every haystack in one string, each followed by a NUL (no keyword holds one): a keyword is found in all of them by a few indexOf. */
  allHaystacks: string;
  /** Where each skill's haystack starts in allHaystacks. */
  haystackStarts: Int32Array;
  /** Per skill: `canonicalName(name)`, for the exact-name rule. */
  canonicalNames: string[];
  /** canonicalName → the ids of the skills that have it (an exact-name query finds them without a scan). */
  byCanonicalName: Map<string, number[]>;
  /** Index term → how many skills hold it in any field. */
  docFreq: Map<string, number>;
  /**
   * For each common term (isCommonTerm: held by more than COMMON_TERM_SHARE of a registry of
   * COMMON_TERMS_FROM skills or more), the skills that hold it and the best FIELD_WEIGHT of the fields
   * it is in there: a search does not look such a word up, and credits it from here.
   */
  commonTermFields: Map<string, Map<number, number>>;
}

type MatchKind = "exact" | "prefix" | "fuzzy";

/** BM25+ field boosts: a word in the name counts most (issue 5 point 3: name, description, when_to_use). */
const FIELD_BOOST = { name: 3, description: 1, whenToUse: 1, category: 0.5 };
/** How much a query word found in this field says the skill is meant (for coverage). */
const FIELD_WEIGHT: Record<string, number> = { name: 1, description: 0.9, whenToUse: 0.9, category: 0.8 };
/** How surely a query word was found, by how it matched (for coverage). */
const KIND_WEIGHT: Record<MatchKind, number> = { exact: 1, prefix: 0.85, fuzzy: 0.6 };
/** Credit factor of a match through a query word's English equivalent (translation is less certain). */
const ALTERNATIVE_WEIGHT = 0.9;
/** Coverage credit of a query word only found as a substring of the name or description (seed floor). */
const SUBSTRING_WEIGHT = 0.4;
/** Keywords shorter than this do not trigger the seed's substring floor. */
const FLOOR_KEYWORD_LENGTH = 3;
/**
 * In a registry of at least COMMON_TERMS_FROM skills, a query term held by more than COMMON_TERM_SHARE
 * of them ("group" in every description of a generated fleet) is not looked up in the index: BM25 gives
 * it next to no weight, yet it made MiniSearch score and return every skill (a 10,000-skill search took
 * 20 ms). Such a word still counts for coverage, read from where the index saw it (commonTermFields).
 */
const COMMON_TERMS_FROM = 1000;
const COMMON_TERM_SHARE = 0.2;

/** Whether a term held by `docFreq` of `size` skills is a common one (not looked up; see COMMON_TERM_SHARE). */
function isCommonTerm(docFreq: number, size: number): boolean {
  return size >= COMMON_TERMS_FROM && docFreq > COMMON_TERM_SHARE * size;
}

const EXACT_NAME_CONFIDENCE = 1;
const MIN_CONFIDENCE = 0.01;
/**
 * How much lower an unavailable skill ranks than an available one of the same confidence: an agent
 * should find the skill it can run first, and the one it cannot only when it matches clearly better.
 */
export const UNAVAILABLE_RANK_PENALTY = 0.15;

const indexes = new WeakMap<readonly SearchableSkill[], SkillIndex>();

function buildIndex(skills: readonly SearchableSkill[]): SkillIndex {
  // How many skills each index term occurs in (MiniSearch keeps it private): counted as it tokenises.
  const docFreq = new Map<string, number>();
  const lastSeenIn = new Map<string, number>();
  // Where each term is: skill id and field weight, in pairs; kept afterwards for the common terms only.
  const fieldsOf = new Map<string, number[]>();
  const keepFields = skills.length >= COMMON_TERMS_FROM;
  let indexing = -1;
  const miniSearch = new MiniSearch<IndexedSkill>({
    fields: ["name", "description", "whenToUse", "category"],
    storeFields: [],
    extractField: (document, field) => {
      indexing = document.id;
      return (document as unknown as Record<string, unknown>)[field] as string;
    },
    tokenize: (text, field) => {
      const terms = indexTerms(text, field ?? "");
      const weight = FIELD_WEIGHT[field ?? ""] ?? 0;
      for (const term of terms) {
        if (keepFields) {
          const where = fieldsOf.get(term);
          if (where) where.push(indexing, weight);
          else fieldsOf.set(term, [indexing, weight]);
        }
        if (lastSeenIn.get(term) === indexing) continue;
        lastSeenIn.set(term, indexing);
        docFreq.set(term, (docFreq.get(term) ?? 0) + 1);
      }
      return terms;
    },
    processTerm: (term) => term,
  });
  miniSearch.addAll(
    skills.map((skill, id) => ({
      id,
      name: skill.name,
      description: skill.description,
      whenToUse: skill.whenToUse ?? "",
      category: skill.category,
    })),
  );
  const haystacks = skills.map((skill) => {
    const text = `${skill.name}\n${skill.description}`.toLowerCase();
    const folded = foldText(text);
    return folded === text ? text : `${text}\n${folded}`;
  });
  const canonicalNames = skills.map((skill) => canonicalName(skill.name));
  const byCanonicalName = new Map<string, number[]>();
  canonicalNames.forEach((name, id) => {
    const ids = byCanonicalName.get(name);
    if (ids) ids.push(id);
    else byCanonicalName.set(name, [id]);
  });
  const haystackStarts = new Int32Array(haystacks.length);
  let offset = 0;
  haystacks.forEach((haystack, id) => {
    haystackStarts[id] = offset;
    offset += haystack.length + 1;
  });
  const allHaystacks = haystacks.map((haystack) => `${haystack}\0`).join("");
  const commonTermFields = new Map<string, Map<number, number>>();
  for (const [term, pairs] of fieldsOf) {
    if (!isCommonTerm(docFreq.get(term) ?? 0, skills.length)) continue;
    const where = new Map<number, number>();
    for (let i = 0; i < pairs.length; i += 2) where.set(pairs[i]!, Math.max(where.get(pairs[i]!) ?? 0, pairs[i + 1]!));
    commonTermFields.set(term, where);
  }
  return { miniSearch, haystacks, allHaystacks, haystackStarts, canonicalNames, byCanonicalName, docFreq, commonTermFields };
}

/**
 * The search index of one skills array, built on first use and kept while the array lives (WeakMap),
 * so a registry snapshot of 5,000 skills is indexed once, not per query. The caller must pass the same
 * array object each time (e.g. the snapshot's own list) for the cache to hit; the array is treated as
 * immutable (registry snapshots are frozen).
 */
export function skillIndexFor(skills: readonly SearchableSkill[]): SkillIndex {
  let index = indexes.get(skills);
  if (!index) {
    index = buildIndex(skills);
    indexes.set(skills, index);
  }
  return index;
}

/** Largest Levenshtein distance a query term may be from an indexed term: 0 under 4 letters, 1 for 4–5, 2 from 6. */
function fuzzyDistance(term: string): number {
  if (term.length < 4) return 0;
  return term.length < 6 ? 1 : 2;
}

/** Levenshtein distance of a and b, or max + 1 as soon as it must exceed max. */
function boundedEditDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
    previous = current;
  }
  return previous[b.length]!;
}

function matchKind(queryTerm: string, indexTerm: string): MatchKind | null {
  if (indexTerm === queryTerm) return "exact";
  if (queryTerm.length >= 3 && indexTerm.startsWith(queryTerm)) return "prefix";
  const distance = fuzzyDistance(queryTerm);
  if (distance > 0 && boundedEditDistance(queryTerm, indexTerm, distance) <= distance) return "fuzzy";
  return null;
}

/** matchKind results of one search, by query term then index term (the same pairs recur across skills; no key is built per lookup). */
type MatchKindCache = Map<string, Map<string, MatchKind | null>>;

function cachedMatchKind(cache: MatchKindCache, queryTerm: string, indexTerm: string): MatchKind | null {
  let kinds = cache.get(queryTerm);
  if (!kinds) {
    kinds = new Map();
    cache.set(queryTerm, kinds);
  }
  let kind = kinds.get(indexTerm);
  if (kind === undefined) {
    kind = matchKind(queryTerm, indexTerm);
    kinds.set(indexTerm, kind);
  }
  return kind;
}

/** Best credit of one query term among a result's matched index terms: kind × field weight. */
function termCredit(queryTerm: string, result: SearchResult, cache: MatchKindCache): number {
  let credit = 0;
  for (const indexTerm of result.terms) {
    const kind = cachedMatchKind(cache, queryTerm, indexTerm);
    if (!kind) continue;
    const fields: string[] = result.match[indexTerm] ?? [];
    let fieldWeight = 0;
    for (const field of fields) fieldWeight = Math.max(fieldWeight, FIELD_WEIGHT[field] ?? 0);
    credit = Math.max(credit, KIND_WEIGHT[kind] * fieldWeight);
  }
  return credit;
}

/** Whether `haystack` holds the word or its term as a floor keyword (FLOOR_KEYWORD_LENGTH or more). */
function holdsKeyword(haystack: string, word: QueryWord): boolean {
  return (word.word.length >= FLOOR_KEYWORD_LENGTH && haystack.includes(word.word)) || (word.term.length >= FLOOR_KEYWORD_LENGTH && haystack.includes(word.term));
}

/**
 * The skills whose haystack holds `keyword` (the seed's case-insensitive substring test), as a set of
 * ids: a few indexOf over the joined haystacks rather than one `includes` per skill. Same answer as
 * `haystacks[id].includes(keyword)` for every id: a keyword holds no NUL, so no match spans two skills.
 */
function skillsContaining(index: SkillIndex, keyword: string): Set<number> {
  const found = new Set<number>();
  const starts = index.haystackStarts;
  let at = index.allHaystacks.indexOf(keyword);
  while (at !== -1) {
    // The skill whose haystack holds position `at`: the last start at or before it.
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= at) low = middle;
      else high = middle - 1;
    }
    found.add(low);
    const next = low + 1 < starts.length ? starts[low + 1]! : index.allHaystacks.length;
    at = index.allHaystacks.indexOf(keyword, next);
  }
  return found;
}

/** Coverage credit (0–1) of one query word in one skill: its best match (or its English equivalent's), or the substring floor (`holdsKeyword`: whether the skill's haystack holds the word or its term). */
function wordCredit(
  word: QueryWord,
  result: SearchResult | undefined,
  holdsKeyword: () => boolean,
  cache: MatchKindCache,
): number {
  let credit = 0;
  if (result) {
    credit = termCredit(word.term, result, cache);
    for (const alternative of word.alternatives) {
      credit = Math.max(credit, ALTERNATIVE_WEIGHT * termCredit(alternative, result, cache));
    }
  }
  if (credit < SUBSTRING_WEIGHT && holdsKeyword()) {
    credit = SUBSTRING_WEIGHT;
  }
  return credit;
}

/** The seed's keywords: the query's whitespace words (lowercase) and its folded words, stopwords out. */
function floorKeywords(query: string, words: readonly QueryWord[]): string[] {
  const raw = query
    .toLowerCase()
    .split(/\s+/)
    .filter((keyword) => !isStopword(foldText(keyword)));
  const all = new Set([...raw, ...words.map((word) => word.word)]);
  return [...all].filter((keyword) => keyword.length >= FLOOR_KEYWORD_LENGTH);
}

function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_SEARCH_LIMIT;
  return Math.min(MAX_SEARCH_LIMIT, Math.max(1, Math.floor(limit)));
}

function roundConfidence(value: number): number {
  return Math.round(value * 100) / 100;
}

interface Candidate {
  skill: SearchableSkill;
  score: number;
  confidence: number;
}

/**
 * Ranks skills for a free-text query (`skill_search`, issue 5 point 3; seed 004 task 4.2 and its
 * `Match(query, skills) []SkillMatch`). Takes the query (English or Spanish; empty or all-stopword →
 * `[]`), the skills (index cached per array object, see `skillIndexFor`) and options (`limit` default
 * 10, clamped to 1–50; `filter`). Returns at most `limit` matches, best first, each with confidence in
 * (0, 1] rounded to 2 decimals and whether it is available; ranked by confidence less
 * UNAVAILABLE_RANK_PENALTY for an unavailable skill, ties broken by raw score, then name. Never throws.
 *
 * Retrieval: MiniSearch (BM25+) over name (boost 3; snake/kebab/camelCase split into words, the whole
 * name kept as a term too), description, when_to_use and category (boost 0.5); stopwords dropped,
 * accents folded, plurals stemmed, common Spanish operations words also searched in English; prefix search for words of 3+ letters; fuzzy search, for a word no
 * skill uses as it is (a word the skills use was not mistyped), with edit distance 1 for 4–5-letter
 * words and 2 from 6 letters (so a swapped pair, "deplyo", still matches).
 * In a registry of 1,000 skills or more, a word held by more than a fifth of them (COMMON_TERM_SHARE)
 * is not looked up; its credit is its best field in the skill, recorded at indexing (commonTermFields).
 * Words are OR-ed, and MiniSearch multiplies a skill's score by how many query words it matched, so
 * skills with every word rank above partial matches (AND-ish). Seed floor: every skill whose name or
 * description contains a query keyword (a whitespace word of the query, or one of its words, with 3+
 * characters and not a stopword; case-insensitive substring) is returned too, given a large enough limit.
 *
 * Confidence, with n the number of distinct query words:
 *   credit(word)  = kind × field of its best match: kind exact 1, prefix 0.85, fuzzy 0.6; field name 1,
 *                   description or when_to_use 0.9, category 0.8; a match through the word's English
 *                   equivalent (SPANISH_GLOSSARY) × 0.9; only a substring of name/description (floor)
 *                   0.4; no match 0.
 *   coverage      = Σ credit / n                      (how much of the query the skill answers)
 *   relative      = score / best score of this query  (0 for floor-only skills)
 *   confidence    = coverage × (0.5 + 0.5 × relative), at least 0.01 for any skill returned;
 *   a query equal to a skill's name (ignoring case and -, _, spaces, camelCase) gives that skill 1.
 * So 1 means every word matched exactly in the name of the best skill; a lone typo match in a
 * description stays near 0.5 even when it is the best there is; half the words matched caps it at 0.5.
 */
export function searchSkills(
  query: string,
  skills: readonly SearchableSkill[],
  options: SkillSearchOptions = {},
): SkillMatch[] {
  const words = queryWords(query);
  if (words.length === 0 || skills.length === 0) return [];
  const index = skillIndexFor(skills);
  const compounds = compoundNames(query);
  const compoundSet = new Set(compounds);
  const allowed = (id: number): boolean => !options.filter || options.filter(skills[id]!);

  const terms = new Set([...words.flatMap((word) => [word.term, ...word.alternatives]), ...compounds]);
  const common = new Set<string>();
  for (const term of terms) if (index.commonTermFields.has(term)) common.add(term);
  // A query of common words only is looked up whole.
  if (common.size === terms.size) common.clear();
  const looked = [...terms].filter((term) => !common.has(term));
  const results = index.miniSearch.search(looked.join(" "), {
    tokenize: (text) => text.split(" "),
    processTerm: (term) => term,
    combineWith: "OR",
    boost: FIELD_BOOST,
    prefix: (term) => term.length >= 3,
    // A word the skills use as it is was not mistyped: looking up its neighbours ("port" → "part",
    // "post", "sort") only adds thousands of weak matches to score.
    fuzzy: (term) => (compoundSet.has(term) || index.docFreq.has(term) ? false : fuzzyDistance(term) || false),
    weights: { prefix: 0.6, fuzzy: 0.35 },
  });
  const limit = clampLimit(options.limit);
  const queryName = canonicalName(query);
  const kindCache: MatchKindCache = new Map();
  const bestScore = results.find((result) => allowed(result.id as number))?.score ?? 0;
  const rank = (candidate: Candidate) => candidate.confidence - (candidate.skill.available === false ? UNAVAILABLE_RANK_PENALTY : 0);
  const order = (a: Candidate, b: Candidate) =>
    rank(b) - rank(a) || (b.score > a.score ? 1 : b.score < a.score ? -1 : 0) || (a.skill.name < b.skill.name ? -1 : a.skill.name > b.skill.name ? 1 : 0);
  // The best `limit` so far, in order; a candidate that cannot enter it is not kept.
  const best: Candidate[] = [];
  const seen = new Set<number>();
  const offer = (candidate: Candidate) => {
    if (best.length === limit && order(candidate, best[limit - 1]!) >= 0) return;
    let at = best.length;
    while (at > 0 && order(candidate, best[at - 1]!) < 0) at -= 1;
    best.splice(at, 0, candidate);
    if (best.length > limit) best.pop();
  };
  // The skills holding each floor keyword, found once per query (skillsContaining).
  const holdersOf = new Map<string, Set<number>>();
  const containing = (keyword: string): Set<number> => {
    let holders = holdersOf.get(keyword);
    if (!holders) {
      holders = keyword.length >= FLOOR_KEYWORD_LENGTH ? skillsContaining(index, keyword) : new Set();
      holdersOf.set(keyword, holders);
    }
    return holders;
  };
  // A common word was not looked up: its credit is an exact match in the skill's own fields.
  const commonCredit = (word: QueryWord, id: number): number => {
    let exact = common.has(word.term) ? (index.commonTermFields.get(word.term)?.get(id) ?? 0) : 0;
    for (const alternative of word.alternatives) {
      if (common.has(alternative)) exact = Math.max(exact, ALTERNATIVE_WEIGHT * (index.commonTermFields.get(alternative)?.get(id) ?? 0));
    }
    return exact;
  };
  const confidenceOf = (id: number, result: SearchResult | undefined, relative: number): number => {
    if (index.canonicalNames[id] === queryName) return EXACT_NAME_CONFIDENCE;
    const credit = (word: QueryWord) => {
      const looked = wordCredit(word, result, () => holdsKeyword(index.haystacks[id]!, word), kindCache);
      return common.size === 0 ? looked : Math.max(looked, commonCredit(word, id));
    };
    const coverage = words.reduce((sum, word) => sum + credit(word), 0) / words.length;
    return Math.max(MIN_CONFIDENCE, roundConfidence(coverage * (0.5 + 0.5 * relative)));
  };

  // Per query word: the terms through which it can be found (itself, its English equivalents) and
  // whether one of them is common (credited from commonTermFields, not from the search's result).
  const wordTerms = words.map((word) => [word.term, ...word.alternatives]);
  const wordIsCommon = wordTerms.map((terms) => terms.some((term) => common.has(term)));
  /**
   * The most coverage a result can have: a word the result matched (through any of its terms) or a
   * common one at most 1, any other at most the substring floor's SUBSTRING_WEIGHT (wordCredit).
   */
  const coverageBound = (result: SearchResult): number => {
    let bound = 0;
    for (let i = 0; i < words.length; i++) {
      bound += wordIsCommon[i] || wordTerms[i]!.some((term) => result.queryTerms.includes(term)) ? 1 : SUBSTRING_WEIGHT;
    }
    return bound / words.length;
  };

  // A skill named as the query is meant, whatever its score.
  for (const id of index.byCanonicalName.get(queryName) ?? []) {
    if (!allowed(id)) continue;
    seen.add(id);
    // Ahead of any other skill of confidence 1 (every word exactly in the best skill's name).
    offer({ skill: skills[id]!, score: Number.POSITIVE_INFINITY, confidence: EXACT_NAME_CONFIDENCE });
  }
  // Results come best score first, and coverage is at most 1: once (0.5 + 0.5 × relative) cannot beat
  // the last of the best `limit`, no later result can, and their coverage is never computed (a common
  // word matches thousands of skills of a large registry).
  for (const result of results) {
    const id = result.id as number;
    if (seen.has(id) || !allowed(id)) continue;
    const relative = bestScore > 0 ? result.score / bestScore : 0;
    const ceiling = 0.5 + 0.5 * relative;
    if (best.length === limit && ceiling < rank(best[limit - 1]!)) break;
    seen.add(id);
    // A skill that cannot enter the best `limit` even with every word it matched credited in full is
    // not scored (coverageBound); the rounding of a confidence to two decimals is allowed for.
    if (best.length === limit && index.canonicalNames[id] !== queryName && coverageBound(result) * ceiling + 0.005 < rank(best[limit - 1]!)) continue;
    offer({ skill: skills[id]!, score: result.score, confidence: confidenceOf(id, result, relative) });
  }
  // The seed's floor: skills only a keyword substring finds, at most SUBSTRING_WEIGHT × 0.5 confident,
  // matter only while fewer than `limit` skills rank above that.
  const floorCeiling = SUBSTRING_WEIGHT * 0.5;
  if (best.length < limit || rank(best[limit - 1]!) <= floorCeiling) {
    const holders = new Set<number>();
    for (const keyword of floorKeywords(query, words)) for (const id of containing(keyword)) holders.add(id);
    for (const id of [...holders].sort((a, b) => a - b)) {
      if (seen.has(id) || !allowed(id)) continue;
      seen.add(id);
      offer({ skill: skills[id]!, score: 0, confidence: confidenceOf(id, undefined, 0) });
    }
  }
  const candidates = best;
  return candidates.map(({ skill, confidence }) => ({
    name: skill.name,
    description: skill.description,
    category: skill.category,
    confidence,
    available: skill.available !== false,
  }));
}
