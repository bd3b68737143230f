import { ErrorSchemaBuilder, type ErrorSchema, type RJSFValidationError } from "@rjsf/utils";
import type { AjvErrorDetail } from "@/lib/client/api-error";
import { describeSchemaError, locateSchemaError, pointerSegments, type FieldMessage } from "@/lib/client/validation-messages";

function fieldPathOf(error: AjvErrorDetail): string[] {
  const segments = pointerSegments(error.instancePath);
  // ajv reports a missing property on its parent object; the form shows it on the property itself.
  const missing = error.params?.missingProperty;
  if (error.keyword === "required" && typeof missing === "string") segments.push(missing);
  return segments;
}

/**
 * The ajv errors of the server's `invalid_args` details, or of the Raw JSON check, as list entries
 * (field path and message, see locateSchemaError), without repeats.
 */
export function listAjvErrors(errors: readonly AjvErrorDetail[]): FieldMessage[] {
  const seen = new Set<string>();
  const list: FieldMessage[] = [];
  for (const error of errors) {
    const entry = locateSchemaError(error);
    const key = `${entry.path}\n${entry.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    list.push(entry);
  }
  return list;
}

/**
 * Turns the server's `invalid_args` ajv errors into an rjsf ErrorSchema, so the form shows each
 * message (worded by describeSchemaError) on its field as `extraErrors`; errors about the args object
 * itself, such as an unknown field, go to the root.
 */
export function ajvErrorsToErrorSchema(errors: readonly AjvErrorDetail[]): ErrorSchema {
  const builder = new ErrorSchemaBuilder();
  for (const error of errors) {
    const path = fieldPathOf(error);
    builder.addErrors(describeSchemaError(error), path.length > 0 ? path : undefined);
  }
  return builder.ErrorSchema;
}

/**
 * rjsf `transformErrors`: rewords the form's own ajv errors the way the server's are worded
 * (describeSchemaError), so a field reads "must match the pattern ^/" whichever side found it.
 */
export function humanizeFormErrors(errors: RJSFValidationError[]): RJSFValidationError[] {
  return errors.map((error) => {
    if (!error.name) return error;
    const message = describeSchemaError({ keyword: error.name, params: error.params as Record<string, unknown> | undefined, message: error.message });
    return { ...error, message, stack: error.property ? `${error.property.replace(/^\./, "")}: ${message}` : message };
  });
}
