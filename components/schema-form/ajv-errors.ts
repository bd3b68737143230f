import { ErrorSchemaBuilder, type ErrorSchema } from "@rjsf/utils";
import type { AjvErrorDetail } from "@/lib/client/api-error";

function pathOf(error: AjvErrorDetail): string[] {
  const segments = error.instancePath
    .split("/")
    .slice(1)
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));
  // ajv reports a missing property on its parent object; the form shows it on the property itself.
  const missing = error.params?.missingProperty;
  if (error.keyword === "required" && typeof missing === "string") segments.push(missing);
  return segments;
}

/** One server-side ajv error as a line: `/path: message` (`(root)` for the args object itself). */
export function describeAjvError(error: AjvErrorDetail): string {
  const path = pathOf(error);
  return `${path.length > 0 ? `/${path.join("/")}` : "(root)"}: ${error.message ?? error.keyword}`;
}

/**
 * Turns the server's `invalid_args` ajv errors into an rjsf ErrorSchema, so the form shows each
 * message on its field (as `extraErrors`); errors about the object itself go to the root.
 */
export function ajvErrorsToErrorSchema(errors: readonly AjvErrorDetail[]): ErrorSchema {
  const builder = new ErrorSchemaBuilder();
  for (const error of errors) {
    const path = pathOf(error);
    builder.addErrors(error.message ?? error.keyword, path.length > 0 ? path : undefined);
  }
  return builder.ErrorSchema;
}
