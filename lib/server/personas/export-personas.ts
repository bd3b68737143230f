import { formatPersonasYaml } from "./persona-yaml";
import { listPersonas, toPersonaInput } from "./persona-store";

/**
 * Every persona as one YAML document (`GET /api/v1/personas/export`), by name, in the format
 * `POST /api/v1/personas/import` reads back (issue 4 point 2). Returns the text.
 */
export async function exportPersonasYaml(): Promise<string> {
  return formatPersonasYaml((await listPersonas()).map(toPersonaInput));
}
