/**
 * The project's one Ajv configuration (STYLE.md: Ajv configured in one module and imported
 * everywhere), shared by the server's validators (lib/validation/ajv.ts), the time-bounded args
 * validation thread (args-validator.ts, which receives it as data) and the browser's forms
 * (components/schema-form/validator.ts), so all three accept exactly the same args:
 * - `allErrors`: every problem reported at once;
 * - `strict: false`: manifests are written by third parties and may carry keywords ajv does not know
 *   (`x-*`, editor hints); unknown formats are then ignored and reported as warnings;
 * - `ownProperties: true`: only the args' own properties count, so a member inherited from
 *   Object.prototype never satisfies `required` (`{"required": ["constructor"]}` with `{}`) nor is
 *   validated as if it had been sent (`properties.toString` with `{}`).
 * Formats come from ajv-formats in full mode everywhere. Universal: no server or browser import.
 */
export const AJV_OPTIONS = { allErrors: true, strict: false, ownProperties: true } as const;
