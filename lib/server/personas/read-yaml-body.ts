import { AppError } from "../errors";
import { MAX_PERSONA_YAML_BYTES } from "./persona-yaml";

/** Content types a YAML import may be sent with. */
const YAML_TYPES = ["text/yaml", "application/yaml", "application/x-yaml", "text/x-yaml"];

/**
 * Reads the body of a YAML import: the Content-Type must be `text/yaml` or `application/yaml` (or
 * their `x-` forms), and the body at most MAX_PERSONA_YAML_BYTES, read without buffering more.
 * Returns the text (UTF-8); throws AppError `bad_request` (other content type) or `args_too_large` (413).
 */
export async function readYamlBody(request: Request): Promise<string> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (!YAML_TYPES.includes(type)) {
    throw new AppError("bad_request", `send the personas as YAML with Content-Type text/yaml or application/yaml (got ${type === "" ? "none" : JSON.stringify(type)})`);
  }
  const tooLarge = () => new AppError("args_too_large", `the YAML is larger than ${MAX_PERSONA_YAML_BYTES} bytes`);
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > MAX_PERSONA_YAML_BYTES) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_PERSONA_YAML_BYTES) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  return Buffer.concat(chunks).toString("utf8");
}
