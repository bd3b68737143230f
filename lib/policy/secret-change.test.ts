import { describe, expect, it } from "vitest";
import { skillsVoidedBySecretChange } from "./secret-change";

describe("skillsVoidedBySecretChange", () => {
  it.each([
    { case: "a new secret voids every skill it is given to", before: [], after: ["a", "b"], valueChanged: true, voided: ["a", "b"] },
    { case: "a deletion voids every skill it was given to", before: ["a", "b"], after: [], valueChanged: true, voided: ["a", "b"] },
    { case: "a new value voids the skills before and after", before: ["a", "b"], after: ["b", "c"], valueChanged: true, voided: ["a", "b", "c"] },
    { case: "a skills-only change voids those that lose or gain it", before: ["a", "b"], after: ["b", "c"], valueChanged: false, voided: ["a", "c"] },
    { case: "the same skills and value void nothing", before: ["a", "b"], after: ["a", "b"], valueChanged: false, voided: [] },
    { case: "the same skills with a new value void them all", before: ["a"], after: ["a"], valueChanged: true, voided: ["a"] },
    { case: "no skills at all void nothing", before: [], after: [], valueChanged: true, voided: [] },
  ])("$case", ({ before, after, valueChanged, voided }) => {
    expect(skillsVoidedBySecretChange(before, after, valueChanged)).toEqual(voided);
  });
});
