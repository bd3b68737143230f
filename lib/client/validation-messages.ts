/**
 * One wording for JSON Schema validation errors, wherever they come from: the args form's own ajv
 * (rjsf's `transformErrors`, the Raw JSON check) and the server's `400 invalid_args` details. ajv's
 * stock messages ("must NOT have additional properties", "must match pattern \"^/\"") name neither
 * the field nor the rule in plain words; these do ("unknown field “bogus”", "must match the pattern ^/").
 */

/** The parts of an ajv error a message is made from (ajv's ErrorObject and the API's details share them). */
export interface SchemaErrorLike {
  keyword: string;
  params?: Record<string, unknown>;
  message?: string;
}

/** An ajv error with where it happened: a JSON pointer into the args (`/window/tail_lines`, `""` = the args). */
export interface LocatedSchemaError extends SchemaErrorLike {
  instancePath: string;
}

const FORMAT_MESSAGES: Record<string, string> = {
  email: "must be a valid email address",
  "idn-email": "must be a valid email address",
  uri: "must be a valid URI, e.g. https://example.com/path",
  url: "must be a valid URL, e.g. https://example.com/path",
  "uri-reference": "must be a valid URI or relative reference",
  "iri": "must be a valid IRI",
  "uri-template": "must be a valid URI template",
  hostname: "must be a valid host name",
  "idn-hostname": "must be a valid host name",
  ipv4: "must be a valid IPv4 address, e.g. 192.0.2.10",
  ipv6: "must be a valid IPv6 address, e.g. 2001:db8::1",
  "date-time": "must be a date and time in ISO 8601, e.g. 2024-05-01T12:00:00Z",
  "iso-date-time": "must be a date and time in ISO 8601, e.g. 2024-05-01T12:00:00Z",
  date: "must be a date, YYYY-MM-DD",
  time: "must be a time, HH:MM:SS with a time zone, e.g. 12:00:00Z",
  "iso-time": "must be a time, HH:MM:SS",
  duration: "must be an ISO 8601 duration, e.g. PT30S",
  uuid: "must be a valid UUID",
  regex: "must be a valid regular expression",
  "json-pointer": "must be a JSON pointer, e.g. /a/b",
  "relative-json-pointer": "must be a relative JSON pointer",
  byte: "must be base64-encoded",
  int32: "must be a 32-bit integer",
  int64: "must be a 64-bit integer",
  float: "must be a number",
  double: "must be a number",
  password: "must be a valid password",
  binary: "must be binary data",
};

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "true or false",
  array: "an array",
  object: "an object",
  null: "null",
};

/** How enum lists are cut: the first few values, then "…". */
const MAX_LISTED_VALUES = 8;

function quote(name: unknown): string {
  return `“${String(name)}”`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

function asNumber(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function listValues(values: unknown): string {
  if (!Array.isArray(values)) return "";
  const shown = values.slice(0, MAX_LISTED_VALUES).map((value) => JSON.stringify(value));
  return values.length > MAX_LISTED_VALUES ? `${shown.join(", ")}, …` : shown.join(", ");
}

function typeList(type: unknown): string {
  const names = Array.isArray(type) ? type : typeof type === "string" ? type.split(",") : [];
  const described = names.map((name) => TYPE_NAMES[String(name).trim()] ?? String(name).trim()).filter(Boolean);
  return described.join(" or ");
}

/**
 * The human message of one schema error, without its location: `unknown field “bogus”`,
 * `“message” is required`, `must match the pattern ^/`, `must be a valid email address`,
 * `must be at most 500`, … Keywords it does not know keep ajv's own message (or the keyword).
 */
export function describeSchemaError(error: SchemaErrorLike): string {
  const params = error.params ?? {};
  const limit = asNumber(params.limit);
  switch (error.keyword) {
    case "required":
      return typeof params.missingProperty === "string" ? `${quote(params.missingProperty)} is required` : "a required field is missing";
    case "additionalProperties":
      return typeof params.additionalProperty === "string" ? `unknown field ${quote(params.additionalProperty)}` : "has an unknown field";
    case "unevaluatedProperties":
      return typeof params.unevaluatedProperty === "string" ? `unknown field ${quote(params.unevaluatedProperty)}` : "has an unknown field";
    case "dependentRequired":
    case "dependencies":
      if (typeof params.missingProperty === "string" && typeof params.property === "string") {
        return `${quote(params.missingProperty)} is required when ${quote(params.property)} is set`;
      }
      break;
    case "propertyNames":
      if (typeof params.propertyName === "string") return `field name ${quote(params.propertyName)} is not allowed`;
      break;
    case "pattern":
      return typeof params.pattern === "string" ? `must match the pattern ${params.pattern}` : "does not match the expected pattern";
    case "format":
      if (typeof params.format === "string") return FORMAT_MESSAGES[params.format] ?? `must be a valid ${params.format}`;
      break;
    case "type": {
      const types = typeList(params.type);
      if (types) return `must be ${types}`;
      break;
    }
    case "enum": {
      const values = listValues(params.allowedValues);
      if (values) return `must be one of ${values}`;
      break;
    }
    case "const":
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case "minimum":
      if (limit !== null) return `must be at least ${limit}`;
      break;
    case "maximum":
      if (limit !== null) return `must be at most ${limit}`;
      break;
    case "exclusiveMinimum":
      if (limit !== null) return `must be greater than ${limit}`;
      break;
    case "exclusiveMaximum":
      if (limit !== null) return `must be less than ${limit}`;
      break;
    case "multipleOf": {
      const multiple = asNumber(params.multipleOf);
      if (multiple !== null) return `must be a multiple of ${multiple}`;
      break;
    }
    case "minLength":
      if (limit !== null) return limit === 1 ? "must not be empty" : `must be at least ${plural(limit, "character")} long`;
      break;
    case "maxLength":
      if (limit !== null) return `must be at most ${plural(limit, "character")} long`;
      break;
    case "minItems":
      if (limit !== null) return limit === 1 ? "must have at least one item" : `must have at least ${plural(limit, "item")}`;
      break;
    case "maxItems":
      if (limit !== null) return `must have at most ${plural(limit, "item")}`;
      break;
    case "uniqueItems": {
      const i = asNumber(params.i);
      const j = asNumber(params.j);
      return i !== null && j !== null ? `must not repeat an item (items ${Math.min(i, j) + 1} and ${Math.max(i, j) + 1} are the same)` : "must not repeat an item";
    }
    case "minProperties":
      if (limit !== null) return `must have at least ${plural(limit, "field")}`;
      break;
    case "maxProperties":
      if (limit !== null) return `must have at most ${plural(limit, "field")}`;
      break;
    case "contains":
      return "must contain a matching item";
    case "oneOf":
      return "must match exactly one of the allowed forms";
    case "anyOf":
      return "must match at least one of the allowed forms";
    case "not":
      return "must not match the excluded form";
    case "false schema":
      return "is not allowed";
  }
  return error.message ?? `fails the “${error.keyword}” rule`;
}

/** The segments of a JSON pointer (`/window/tail_lines` → `["window", "tail_lines"]`), unescaped. */
export function pointerSegments(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .split("/")
    .slice(1)
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** A field path as people read it: `window.tail_lines`, `patterns[0]`, `labels["a b"]`; `""` for the args object. */
export function formatFieldPath(segments: readonly string[]): string {
  let path = "";
  for (const segment of segments) {
    if (/^\d+$/.test(segment)) path += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) path += path === "" ? segment : `.${segment}`;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}

/** A located error as the console lists it: the field path as people read it (`""` = the args object) and the message. */
export interface FieldMessage {
  path: string;
  message: string;
}

/** Where `error` happened (formatFieldPath of its pointer) and what it says (describeSchemaError). */
export function locateSchemaError(error: LocatedSchemaError): FieldMessage {
  return { path: formatFieldPath(pointerSegments(error.instancePath)), message: describeSchemaError(error) };
}

/**
 * One located error as a list line: `window.tail_lines: must be at most 100000`, or just the message
 * for the args object itself (`unknown field “bogus”`, `“message” is required`).
 */
export function describeLocatedError(error: LocatedSchemaError): string {
  const { path, message } = locateSchemaError(error);
  return path === "" ? message : `${path}: ${message}`;
}
