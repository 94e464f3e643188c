/**
 * MCP servers' input schemas as the model is sent them: what a model does not need to call the tool is
 * left out, so a big server costs fewer bytes of every request (docs/context.md#tools-on-demand). The
 * server's full schema is still what a call's arguments are checked against (mcp-tool.ts). Pure.
 *
 * Always left out (nothing a call needs): `$comment`, `$schema`, and a `title` that only repeats the
 * property's name. In a schema still over OVERSIZED bytes after that, also `examples`, `default`s and
 * the part of any description past MAX_DESCRIPTION characters. Types, `required`, `enum`, `const`,
 * formats, bounds, patterns, `$ref`/`$defs` and every property are always kept.
 */

/** A schema larger than this (JSON bytes, after the lossless pass) is trimmed further. */
export const OVERSIZED = 2048
/** Characters of a description kept in an oversized schema. */
export const MAX_DESCRIPTION = 200

type Json = unknown
type Schema = Record<string, Json>

/** Keywords whose value is a map of names to schemas (the names are data, never keywords). */
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']
/** Keywords whose value is one schema. */
const SCHEMA_ONE = [
  'items',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'additionalItems',
  'unevaluatedItems',
]
/** Keywords whose value is a list of schemas. */
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems']

export interface TrimOptions {
  /** Also drop `examples` and `default`s and cut descriptions (an oversized schema). */
  deep: boolean
}

/** The schema as the model gets it: the lossless pass, then the deep one when it is still oversized. */
export function trimSchema(schema: Schema): Schema {
  const light = trimNode(schema, undefined, { deep: false }) as Schema
  if (JSON.stringify(light).length <= OVERSIZED) return light
  return trimNode(light, undefined, { deep: true }) as Schema
}

/**
 * The schema a call's arguments are checked against here: the server's own, but for
 * `additionalProperties: false`, since servers built on the SDKs strip unknown keys rather than refuse
 * them, and refusing a call the server would run helps no one.
 */
export function checkingSchema(schema: Schema): Schema {
  return mapSchemas(schema, (node) => {
    if (node.additionalProperties !== false) return node
    const { additionalProperties: _open, ...rest } = node
    return rest
  }) as Schema
}

/** One schema node; `name` is the property it describes, when it is one. */
function trimNode(node: Json, name: string | undefined, opts: TrimOptions): Json {
  if (!isObject(node)) return node
  const out: Schema = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === '$comment' || key === '$schema') continue
    if (key === 'title' && typeof value === 'string' && name !== undefined && sameWords(value, name)) continue
    if (opts.deep && (key === 'examples' || key === 'default' || key === 'example')) continue
    if (opts.deep && key === 'description' && typeof value === 'string') {
      out[key] = cut(value)
      continue
    }
    out[key] = trimChild(key, value, opts)
  }
  return out
}

function trimChild(key: string, value: Json, opts: TrimOptions): Json {
  if (SCHEMA_MAPS.includes(key) && isObject(value)) {
    const map: Schema = {}
    for (const [prop, sub] of Object.entries(value)) map[prop] = trimNode(sub, prop, opts)
    return map
  }
  if (SCHEMA_ONE.includes(key)) {
    if (Array.isArray(value)) return value.map((sub) => trimNode(sub, undefined, opts))
    return trimNode(value, undefined, opts)
  }
  if (SCHEMA_LISTS.includes(key) && Array.isArray(value))
    return value.map((sub) => trimNode(sub, undefined, opts))
  // Anything else is data (enum values, a const, a default kept): copied as it is.
  return value
}

/** Applies `edit` to every schema node, children first. */
function mapSchemas(node: Json, edit: (node: Schema) => Schema): Json {
  if (!isObject(node)) return node
  const out: Schema = {}
  for (const [key, value] of Object.entries(node)) {
    if (SCHEMA_MAPS.includes(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapSchemas(v, edit)]))
    } else if (SCHEMA_ONE.includes(key) || SCHEMA_LISTS.includes(key)) {
      out[key] = Array.isArray(value) ? value.map((v) => mapSchemas(v, edit)) : mapSchemas(value, edit)
    } else out[key] = value
  }
  return edit(out)
}

/** `Page ID`, `page_id`, `pageId` and `page-id` say the same. */
function sameWords(title: string, name: string): boolean {
  const words = (s: string) =>
    s
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean)
      .join(' ')
  return words(title) === words(name)
}

function cut(text: string): string {
  if (text.length <= MAX_DESCRIPTION) return text
  return `${text.slice(0, MAX_DESCRIPTION - 1).trimEnd()}…`
}

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
