import { describe, expect, test } from "vitest";
import { canonicalName, compoundNames, indexTerms, queryWords, splitWords, stemWord } from "@/lib/server/search/search-terms";

describe("search terms", () => {
  test.each([
    ["deploy-service", ["deploy", "service"]],
    ["disk_usage", ["disk", "usage"]],
    ["diskUsage HTTPServer", ["disk", "usage", "http", "server"]],
    ["Análisis RÁPIDO, ñandú!", ["analisis", "rapido", "nandu"]],
    ["a b c", []],
  ])("splitWords(%j)", (text, words) => {
    expect(splitWords(text)).toEqual(words);
  });

  test.each([
    ["logs", "log"],
    ["errors", "error"],
    ["processes", "process"],
    ["process", "process"],
    ["policies", "policy"],
    ["servicios", "servicio"],
    ["status", "status"],
    ["analysis", "analysis"],
    ["dns", "dns"],
  ])("stemWord(%s) = %s", (word, stem) => {
    expect(stemWord(word)).toBe(stem);
  });

  test("indexTerms keeps the whole name as one more term, marked so that no word prefix-matches it", () => {
    expect(indexTerms("listening_ports", "name")).toEqual(["=listening_ports", "listening", "port"]);
    expect(indexTerms("health", "name")).toEqual(["health"]);
    expect(indexTerms("Check the health of services", "description")).toEqual(["check", "health", "service"]);
  });

  test("queryWords drops stopwords, dedupes stems and adds English equivalents of Spanish words", () => {
    expect(queryWords("analizar los logs y el log")).toEqual([
      { word: "analizar", term: "analizar", alternatives: ["analyze"] },
      { word: "logs", term: "log", alternatives: [] },
    ]);
    expect(queryWords("the of a")).toEqual([]);
  });

  test("compoundNames and canonicalName", () => {
    expect(compoundNames('run "disk_usage" or deploy-service, diskUsage now')).toEqual([
      "=disk_usage",
      "=deploy-service",
      "=diskusage",
    ]);
    expect(canonicalName("Deploy_Service")).toBe(canonicalName("deployService"));
  });
});
