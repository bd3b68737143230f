import { customizeValidator } from "@rjsf/validator-ajv8";
import { AJV_OPTIONS } from "@/lib/validation/ajv-options";

/**
 * The ajv 8 validator of the args forms, configured with the project's one Ajv configuration
 * (AJV_OPTIONS) and every ajv-formats format (date-time, email, uri, …), as rjsf's customizeValidator
 * adds by default, so the form checks what the server's ajv checks (STYLE.md rule 4: the skill's schema
 * renders the form and validates the call).
 */
export const argsValidator = customizeValidator<Record<string, unknown>>({ ajvOptionsOverrides: { ...AJV_OPTIONS } });
