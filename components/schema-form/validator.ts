import type { RJSFSchema, ValidatorType } from "@rjsf/utils";
import { customizeValidator } from "@rjsf/validator-ajv8";
import { AJV_OPTIONS } from "@/lib/validation/ajv-options";
import { resolveChosenBranches, type ChosenOptions } from "./chosen-branches";

type Args = Record<string, unknown>;

/** What rjsf's rawValidation answers: ajv's errors, or why the schema could not be compiled. */
type RawValidation<Result> = { errors?: Result[]; validationError?: Error };

/**
 * The plain ajv 8 validator of the args forms, configured with the project's one Ajv configuration
 * (AJV_OPTIONS) and every ajv-formats format (date-time, email, uri, …), as rjsf's customizeValidator
 * adds by default, so the form checks what the server's ajv checks (STYLE.md rule 4: the skill's schema
 * renders the form and validates the call).
 */
const wholeSchemaValidator = customizeValidator<Args>({ ajvOptionsOverrides: { ...AJV_OPTIONS } });

interface AjvErrorLike {
  instancePath: string;
  keyword: string;
}

function isAtOrUnder(path: string, place: string): boolean {
  return path === place || path.startsWith(`${place}/`);
}

/**
 * Validates `data` against `schema` as the form shows it: errors come from the shown option of each
 * anyOf/oneOf only (resolveChosenBranches), so a message never names another branch's required field or
 * `const` value. The whole schema still decides validity: when the shown option is satisfied but the
 * union is not (data that matches two oneOf options), the union's own error is kept, on the union.
 */
function validateShownBranches<Result>(schema: RJSFSchema, data: Args | undefined, chosen: ChosenOptions): RawValidation<Result> {
  const whole = wholeSchemaValidator.rawValidation<Result>(schema, data);
  if (whole.validationError || !whole.errors || whole.errors.length === 0 || schema.$id !== undefined) return whole;
  const resolved = resolveChosenBranches(wholeSchemaValidator, schema, data, chosen);
  if (resolved === schema) return whole;
  const shown = wholeSchemaValidator.rawValidation<Result>(resolved, data);
  // Each resolved schema is compiled once: ajv would otherwise keep every one of them in its cache.
  wholeSchemaValidator.ajv.removeSchema(resolved);
  if (shown.validationError) return whole;
  const shownErrors = (shown.errors ?? []) as unknown as AjvErrorLike[];
  const unionErrors = (whole.errors as unknown as AjvErrorLike[]).filter(
    (error) => (error.keyword === "oneOf" || error.keyword === "anyOf") && !shownErrors.some((other) => isAtOrUnder(other.instancePath, error.instancePath)),
  );
  return { errors: [...shownErrors, ...unionErrors] as unknown as Result[] };
}

/**
 * An args validator for one form: rjsf's ajv 8 validator (see wholeSchemaValidator) whose validation
 * reports the errors of the anyOf/oneOf options the form shows (`chosen` holds the person's picks by
 * union field id; see validateShownBranches). Matching options and computing defaults use the whole
 * schema, as rjsf's do.
 */
export function createArgsValidator(chosen: ChosenOptions = new Map()): ValidatorType<Args> {
  const validator = Object.create(wholeSchemaValidator) as typeof wholeSchemaValidator;
  validator.rawValidation = <Result>(schema: RJSFSchema, data?: Args) => validateShownBranches<Result>(schema, data, chosen);
  return validator;
}

/**
 * The args validator used outside a drawn form (the Raw JSON check, loaded args, defaults): each
 * union's shown option is the one the data matches best (see createArgsValidator).
 */
export const argsValidator = createArgsValidator();
