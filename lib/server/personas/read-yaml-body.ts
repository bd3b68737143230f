import { AppError } from "../errors";
import { BodyTooLarge, readBodyBytes } from "../http/api-route";
import { MAX_PERSONA_YAML_BYTES } from "./persona-yaml";

/** Content types a YAML import may be sent with. */
const YAML_TYPES = ["text/yaml", "application/yaml", "application/x-yaml", "text/x-yaml"];

/**
 * Reads the body of a YAML import: the Content-Type must be `text/yaml` or `application/yaml` (or
 * their `x-` forms), and the body at most MAX_PERSONA_YAML_BYTES, read without buffering more
 * (readBodyBytes: its budget and cut-offs). Returns the text (UTF-8); throws AppError `bad_request`
 * (other content type), `args_too_large` (413), or readBodyBytes' 429/503/408.
 */
export async function readYamlBody(request: Request): Promise<string> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (!YAML_TYPES.includes(type)) {
    throw new AppError("bad_request", `send the personas as YAML with Content-Type text/yaml or application/yaml (got ${type === "" ? "none" : JSON.stringify(type)})`);
  }
  try {
    // Through the same budget and cut-offs as every body (an admin's stalled import was never answered).
    return (await readBodyBytes(request, MAX_PERSONA_YAML_BYTES)).toString("utf8");
  } catch (error) {
    if (error instanceof BodyTooLarge) throw new AppError("args_too_large", `the YAML is larger than ${MAX_PERSONA_YAML_BYTES} bytes`);
    throw error;
  }
}
