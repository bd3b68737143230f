import { Document, isScalar, isSeq, parseDocument, visit } from "yaml";
import { AppError } from "../errors";
import { parseYamlOffThread } from "@/lib/validation/args-validator";
import { parsePersonaInput, type PersonaInput } from "./persona-input";

/** Largest YAML document accepted by an import, in bytes (256 KiB). */
export const MAX_PERSONA_YAML_BYTES = 256 * 1024;

/** Most aliases (`*anchor`) a YAML import may expand: a "billion laughs" document fails fast. */
const MAX_ALIAS_COUNT = 20;

/** Most personas in one import. */
export const MAX_IMPORTED_PERSONAS = 500;

/** The first line of a yaml error, without the code frame the library appends. */
function firstLine(message: string): string {
  return message.split("\n")[0]!.replace(/:$/, "");
}

/**
 * Parses a persona YAML document (issue 4 point 2): a list of persona mappings, or one mapping, with
 * exactly the fields of parsePersonaInput. Parsing is safe: YAML 1.2 core schema (no custom types, no
 * code), one document only, unique keys, unresolved tags refused, at most MAX_ALIAS_COUNT alias
 * expansions, at most MAX_PERSONA_YAML_BYTES. Names must be distinct. Returns the validated inputs in
 * document order; throws AppError `bad_request` naming the offending persona (#position and name) and
 * field, with details `{persona, field}` — or, when several are invalid, every one of them (the first
 * PROBLEMS_LISTED in the message, details `{problems: [{message, persona, field}]}`), so an operator
 * fixes a file in one pass (`args_too_large` past the size limit).
 */
export function parsePersonasYaml(text: string): PersonaInput[] {
  checkYamlSize(text);
  const document = parseDocument(text, YAML_DOCUMENT_OPTIONS);
  const problem = document.errors[0] ?? document.warnings[0];
  if (problem) throw new AppError("bad_request", `the YAML does not parse: ${firstLine(problem.message)}`);
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    throw new AppError("bad_request", `the YAML does not parse: ${(error as Error).message}`);
  }
  return personasOf(value);
}

/**
 * parsePersonasYaml with the YAML parsed in the validation thread (parseYamlOffThread: bounded time
 * and heap; issue 10 point 1: a 256 KiB import took seconds of the event loop), the same options and
 * answers; a document that takes longer than YAML_PARSE_BUDGET_MS is refused as `bad_request`.
 */
export async function parsePersonasYamlOffThread(text: string): Promise<PersonaInput[]> {
  checkYamlSize(text);
  const parsed = await parseYamlOffThread(text, YAML_DOCUMENT_OPTIONS, MAX_ALIAS_COUNT);
  if (!parsed.ok) throw new AppError("bad_request", `the YAML does not parse: ${firstLine(parsed.message)}`);
  return personasOf(parsed.value);
}

/** How a persona document is parsed: YAML 1.2 core schema, unique keys, strict, pretty errors. */
const YAML_DOCUMENT_OPTIONS = { schema: "core", uniqueKeys: true, prettyErrors: true, strict: true } as const;

function checkYamlSize(text: string): void {
  if (Buffer.byteLength(text, "utf8") > MAX_PERSONA_YAML_BYTES) {
    throw new AppError("args_too_large", `the YAML is larger than ${MAX_PERSONA_YAML_BYTES} bytes`);
  }
}

function personasOf(value: unknown): PersonaInput[] {
  if (value === null || value === undefined) throw new AppError("bad_request", "the YAML is empty; it must hold a list of personas or one persona");
  const list: unknown[] = Array.isArray(value) ? value : [value];
  if (list.length === 0) throw new AppError("bad_request", "the YAML lists no personas");
  if (list.length > MAX_IMPORTED_PERSONAS) throw new AppError("bad_request", `the YAML lists ${list.length} personas; at most ${MAX_IMPORTED_PERSONAS} are imported at once`);
  const seen = new Set<string>();
  const personas: PersonaInput[] = [];
  const problems: AppError[] = [];
  list.forEach((raw, index) => {
    const named = typeof raw === "object" && raw !== null && typeof (raw as { name?: unknown }).name === "string" ? ` (${JSON.stringify((raw as { name: string }).name)})` : "";
    try {
      const persona = parsePersonaInput(raw, { label: `persona #${index + 1}${named}` });
      if (seen.has(persona.name)) {
        throw new AppError("bad_request", `persona #${index + 1}: name ${JSON.stringify(persona.name)} appears twice in the YAML`, { persona: persona.name, field: "name" });
      }
      seen.add(persona.name);
      personas.push(persona);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      problems.push(error);
    }
  });
  if (problems.length === 1) throw problems[0]!;
  if (problems.length > 1) {
    const listed = problems.slice(0, PROBLEMS_LISTED).map((problem) => problem.message);
    const more = problems.length > listed.length ? `; and ${problems.length - listed.length} more` : "";
    throw new AppError("bad_request", `${problems.length} personas in the YAML are invalid; nothing was imported: ${listed.join("; ")}${more}`, {
      problems: problems.slice(0, PROBLEMS_DETAILED).map((problem) => ({ message: problem.message, ...(problem.details as object | undefined) })),
    });
  }
  return personas;
}

/** Invalid personas named in an import's error message, and in its details. */
const PROBLEMS_LISTED = 5;
const PROBLEMS_DETAILED = 50;

const FLOW_LISTS = new Set(["allow", "deny", "categories"]);

/**
 * Writes personas as the import reads them: a YAML list of mappings with the five fields in order
 * (`name, description, permission_mode, skills {allow, deny}, categories` — the last only when set),
 * lists in flow style (`allow: ["category:ops", "disk_*"]`). `parsePersonasYaml(formatPersonasYaml(x))`
 * equals `x`. Returns the text (ends with a newline).
 */
export function formatPersonasYaml(personas: readonly PersonaInput[]): string {
  const document = new Document(personas.map((persona) => ({ ...persona })));
  visit(document, {
    Pair(_key, pair) {
      if (isScalar(pair.key) && FLOW_LISTS.has(String(pair.key.value)) && isSeq(pair.value)) pair.value.flow = true;
    },
  });
  return document.toString({ lineWidth: 0, flowCollectionPadding: false });
}
