import { getClosestMatchingOption, getDiscriminatorFieldFromSchema, retrieveSchema, type RJSFSchema, type ValidatorType } from "@rjsf/utils";

/** The option the person picked in each anyOf/oneOf picker, by the union field's id ("root_targets_0_auth"). */
export type ChosenOptions = ReadonlyMap<string, number>;

type Node = Record<string, unknown>;
type Path = readonly (string | number)[];
/** Any rjsf validator, whatever its form data type (only isValid and option matching are used). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Validator = ValidatorType<any, RJSFSchema, any>;

/** True for a schema object (not a boolean schema, not an array). */
export function isSchemaNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The id rjsf gives the field at `path` (its default id prefix "root" and separator "_"). */
export function fieldIdOf(path: Path): string {
  return ["root", ...path].join("_");
}

/** The subschema a local `$ref` ("#/$defs/a", "#") points at in `root`, or undefined (remote or missing). */
export function resolveLocalRef(root: unknown, ref: string): unknown {
  if (ref !== "#" && !ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref === "#" ? [] : ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof node !== "object" || node === null || !(key in node)) return undefined;
    node = (node as Node)[key];
  }
  return node;
}

/** True when every option is a `const` (or an enum of one): the form draws such a union as a select, not as a picker of branches. */
export function isConstChoice(options: readonly unknown[]): boolean {
  return options.length > 0 && options.every((option) => isSchemaNode(option) && ("const" in option || (Array.isArray(option.enum) && option.enum.length === 1)));
}

/**
 * The index of the anyOf/oneOf option the form shows for `data` at `path`: the option the person picked
 * there (`chosen`, else the first), kept unless the data matches another one better — the rule rjsf's
 * picker itself follows (getClosestMatchingOption with the schema's discriminator), so validation and
 * the drawn branch agree.
 */
export function chosenOptionIndex(validator: Validator, root: RJSFSchema, node: Node, options: readonly unknown[], data: unknown, path: Path, chosen: ChosenOptions): number {
  const picked = chosen.get(fieldIdOf(path)) ?? 0;
  try {
    const retrieved = options.map((option) => (isSchemaNode(option) ? retrieveSchema(validator, option as RJSFSchema, root, data) : ({} as RJSFSchema)));
    const index = getClosestMatchingOption(validator, root, data, retrieved, picked, getDiscriminatorFieldFromSchema(node as RJSFSchema));
    return index >= 0 && index < options.length ? index : picked;
  } catch {
    // A branch rjsf cannot resolve: the picker falls back to what was picked, and so does validation.
    return picked;
  }
}

interface WalkContext {
  validator: Validator;
  root: RJSFSchema;
  chosen: ChosenOptions;
}

function resolveNode(ctx: WalkContext, node: unknown, data: unknown, path: Path, seenRefs: ReadonlySet<string>): unknown {
  if (!isSchemaNode(node) || data === undefined) return node;
  const out: Node = { ...node };
  const added: unknown[] = [];
  let changed = false;

  if (typeof node.$ref === "string" && !seenRefs.has(node.$ref)) {
    const target = resolveLocalRef(ctx.root, node.$ref);
    // A target with its own $id changes the base URI of what it holds: it is left to ajv as is.
    if (isSchemaNode(target) && !("$id" in target)) {
      const resolved = resolveNode(ctx, target, data, path, new Set([...seenRefs, node.$ref]));
      if (resolved !== target) {
        delete out.$ref;
        added.push(resolved);
        changed = true;
      }
    }
  }
  if (Array.isArray(node.allOf)) {
    const members = node.allOf.map((member) => resolveNode(ctx, member, data, path, seenRefs));
    if (members.some((member, index) => member !== (node.allOf as unknown[])[index])) {
      out.allOf = members;
      changed = true;
    }
  }
  for (const key of ["oneOf", "anyOf"] as const) {
    const options = node[key];
    if (!Array.isArray(options) || isConstChoice(options)) continue;
    const index = chosenOptionIndex(ctx.validator, ctx.root, node, options, data, path, ctx.chosen);
    delete out[key];
    added.push(resolveNode(ctx, options[index], data, path, seenRefs));
    changed = true;
  }
  for (const key of ["then", "else"] as const) {
    const resolved = resolveNode(ctx, node[key], data, path, seenRefs);
    if (resolved !== node[key]) {
      out[key] = resolved;
      changed = true;
    }
  }

  if (isPlainObject(data)) {
    const properties = isSchemaNode(node.properties) ? node.properties : {};
    const patterns = isSchemaNode(node.patternProperties) ? Object.keys(node.patternProperties) : [];
    const nextProperties: Node = { ...properties };
    let propertiesChanged = false;
    for (const [key, value] of Object.entries(data)) {
      const declared = Object.hasOwn(properties, key);
      // A map's values (additionalProperties) may each pick another branch: each key gets its own copy.
      const schema = declared ? properties[key] : isSchemaNode(node.additionalProperties) && !matchesAnyPattern(patterns, key) ? node.additionalProperties : undefined;
      if (schema === undefined) continue;
      const resolved = resolveNode(ctx, schema, value, [...path, key], new Set());
      if (resolved !== schema) {
        nextProperties[key] = resolved;
        propertiesChanged = true;
      }
    }
    if (propertiesChanged) {
      out.properties = nextProperties;
      changed = true;
    }
  }

  if (Array.isArray(data) && isSchemaNode(node.items)) {
    const items = node.items;
    const perItem = data.map((item, index) => resolveNode(ctx, items, item, [...path, index], new Set()));
    if (perItem.some((item) => item !== items)) {
      // Each item may pick another branch: a tuple of per-item schemas (draft-07, as the form's ajv reads
      // it), with the original item schema for any item beyond them.
      out.items = perItem;
      out.additionalItems = items;
      changed = true;
    }
  }

  if (!changed) return node;
  if (added.length > 0) out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), ...added];
  return out;
}

function matchesAnyPattern(patterns: readonly string[], key: string): boolean {
  return patterns.some((pattern) => {
    try {
      return new RegExp(pattern, "u").test(key);
    } catch {
      return false;
    }
  });
}

/**
 * `schema` with each anyOf/oneOf that `data` reaches replaced by the one option the form shows there
 * (see chosenOptionIndex; a union of consts, drawn as a select, is kept). Validating against it reports
 * only the shown branch's errors, never another branch's required fields or `const` values. Local
 * `$ref`s on the way are inlined where a union lies behind them; arrays and maps get a schema per item
 * or key, since each may pick another branch. Returns `schema` itself when `data` reaches no union.
 */
export function resolveChosenBranches(validator: Validator, schema: RJSFSchema, data: unknown, chosen: ChosenOptions = new Map()): RJSFSchema {
  return resolveNode({ validator, root: schema, chosen }, schema, data, [], new Set()) as RJSFSchema;
}

/**
 * Every schema that applies to the value at one place: `schemas` with local `$ref`s followed, `allOf`
 * members, the shown option of each anyOf/oneOf and the branch of an `if` that the value takes.
 */
export function applicableSchemas(validator: Validator, root: RJSFSchema, schemas: readonly unknown[], data: unknown, path: Path, chosen: ChosenOptions): Node[] {
  const out: Node[] = [];
  const seen = new Set<unknown>();
  const visit = (node: unknown) => {
    if (!isSchemaNode(node) || seen.has(node)) return;
    seen.add(node);
    out.push(node);
    if (typeof node.$ref === "string") visit(resolveLocalRef(root, node.$ref));
    if (Array.isArray(node.allOf)) node.allOf.forEach(visit);
    for (const key of ["oneOf", "anyOf"] as const) {
      const options = node[key];
      if (Array.isArray(options) && options.length > 0) visit(options[chosenOptionIndex(validator, root, node, options, data, path, chosen)]);
    }
    if (isSchemaNode(node.if) || typeof node.if === "boolean") {
      let passes = false;
      try {
        passes = validator.isValid(node.if as RJSFSchema, data, root);
      } catch {
        passes = false;
      }
      visit(passes ? node.then : node.else);
    }
  };
  schemas.forEach(visit);
  return out;
}

/** The subschemas of `schema` that apply to its object property `key` (properties, patternProperties, additionalProperties). */
export function propertySchemas(schema: Node, key: string): unknown[] {
  const out: unknown[] = [];
  const properties = isSchemaNode(schema.properties) ? schema.properties : {};
  const patterns = isSchemaNode(schema.patternProperties) ? schema.patternProperties : {};
  const declared = Object.hasOwn(properties, key);
  if (declared) out.push(properties[key]);
  const matched = Object.keys(patterns).filter((pattern) => matchesAnyPattern([pattern], key));
  for (const pattern of matched) out.push(patterns[pattern]);
  if (!declared && matched.length === 0 && schema.additionalProperties !== undefined) out.push(schema.additionalProperties);
  return out;
}

/** The subschemas of `schema` that apply to array item `index` (items, tuple items, prefixItems, additionalItems). */
export function itemSchemas(schema: Node, index: number): unknown[] {
  if (Array.isArray(schema.prefixItems)) return index < schema.prefixItems.length ? [schema.prefixItems[index]] : schema.items !== undefined ? [schema.items] : [];
  if (Array.isArray(schema.items)) return index < schema.items.length ? [schema.items[index]] : schema.additionalItems !== undefined ? [schema.additionalItems] : [];
  return schema.items !== undefined ? [schema.items] : [];
}
