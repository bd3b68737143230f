import { SPANISH_GLOSSARY } from "./spanish-glossary";
import { STOPWORDS } from "./stopwords";

/** One word of a search query: as typed (folded) and as indexed (folded + stemmed). */
export interface QueryWord {
  /** Lowercase, accents removed, e.g. "logs", "análisis" → "analisis". */
  word: string;
  /** `word` after the light plural stemmer (`stemWord`), e.g. "logs" → "log"; what the index holds. */
  term: string;
  /** Stemmed English equivalents of a Spanish word (SPANISH_GLOSSARY), else empty. */
  alternatives: string[];
}

/**
 * Lowercases a text and removes accents (NFD, combining marks dropped), so "Análisis" and "analisis"
 * compare equal. Returns the folded text; never throws.
 */
export function foldText(text: string): string {
  if (!NON_ASCII.test(text)) return text.toLowerCase();
  return text.normalize("NFD").replace(/\p{M}+/gu, "").toLowerCase();
}

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Splits a text into folded words: camelCase and PascalCase humps ("diskUsage", "HTTPServer") and
 * anything that is not a letter or digit (snake_case, kebab-case, spaces, punctuation) separate words.
 * Returns the words in order, one-letter words dropped; stopwords are kept (callers decide).
 */
export function splitWords(text: string): string[] {
  // Fast paths: most skill text is ASCII and has few capitals.
  const humps =
    text === text.toLowerCase()
      ? text
      : text.replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2").replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2");
  const folded = foldText(humps);
  return folded
    .split(NON_ASCII.test(folded) ? /[^\p{L}\p{N}]+/u : /[^a-z0-9]+/)
    .filter((word) => word.length > 1);
}

/** True when a folded word is a common English or Spanish function word (STOPWORDS). */
export function isStopword(word: string): boolean {
  return STOPWORDS.has(word);
}

/**
 * A light plural stemmer for English and Spanish, so "logs"/"log", "errors"/"error",
 * "servicios"/"servicio", "processes"/"process", "policies"/"policy" meet in the index. Takes a folded
 * word, returns its stem; words of 3 letters or fewer and words ending in ss/us/is are left alone.
 */
export function stemWord(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(sses|xes|ches|shes)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s") && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/**
 * What starts the whole-name term of a compound name (indexTerms, compoundNames): no word holds it
 * (splitWords splits on it), so a query word never prefix- or fuzzy-matches a whole name. Unmarked,
 * "deploy" prefix-matched "deploy-kafka-topic" and every other name that starts with it, hundreds in a
 * large fleet, each a term of its own to score: half the time of such a search, for a name word that
 * already matched exactly.
 */
export const WHOLE_NAME_MARK = "=";

/**
 * The index terms of a skill's text field: its words, stopwords dropped, stemmed. For the `name` field
 * of a compound name ("deploy-service", "disk_usage") the whole folded name, marked (WHOLE_NAME_MARK),
 * is one more term, so the name typed as written matches exactly (compoundNames). Used as MiniSearch's
 * `tokenize` at indexing time.
 */
export function indexTerms(text: string, field: string): string[] {
  const terms = splitWords(text)
    .filter((word) => !isStopword(word))
    .map(stemWord);
  if (field === "name") {
    const whole = foldText(text.trim());
    if (whole.length > 1 && !terms.includes(whole)) terms.unshift(`${WHOLE_NAME_MARK}${whole}`);
  }
  return terms;
}

/**
 * The distinct meaningful words of a query (stopwords and one-letter words dropped), in order of first
 * appearance, each with its stemmed index term and, for a Spanish operations word, its English
 * equivalent. An empty list means the query has nothing to search.
 */
export function queryWords(query: string): QueryWord[] {
  const seen = new Set<string>();
  const words: QueryWord[] = [];
  for (const word of splitWords(query)) {
    if (isStopword(word)) continue;
    const term = stemWord(word);
    if (seen.has(term)) continue;
    seen.add(term);
    const english = SPANISH_GLOSSARY[word] ?? SPANISH_GLOSSARY[term];
    const alternative = english === undefined ? null : stemWord(english);
    words.push({ word, term, alternatives: alternative && alternative !== term ? [alternative] : [] });
  }
  return words;
}

/**
 * The query's whitespace-separated tokens that are whole compound names ("disk_usage", "deploy-service",
 * "diskUsage"), as the whole-name terms `indexTerms` keeps for skill names: folded and marked
 * (WHOLE_NAME_MARK), e.g. "=deploy-service".
 */
export function compoundNames(query: string): string[] {
  return query
    .split(/\s+/)
    .map((token) => token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ""))
    .filter((token) => /[-_.]|\p{Ll}\p{Lu}/u.test(token) && splitWords(token).length > 1)
    .map((token) => `${WHOLE_NAME_MARK}${foldText(token)}`);
}

/**
 * A skill name or query in one canonical spelling for the exact-name test: folded words joined by one
 * space, so "deploy-service", "Deploy Service", "deploy_service" and "deployService" are equal.
 */
export function canonicalName(text: string): string {
  return splitWords(text).join(" ");
}
