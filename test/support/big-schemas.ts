/**
 * Tool lists of realistic size for a big MCP server (as Notion's, ~76 kB of definitions): deterministic,
 * shaped like a REST API's generated tools — nested objects, enums, long descriptions, `default`s,
 * `examples`, `$comment`s and `title`s that repeat the property name. Used by mcp-big-server.ts and the
 * context bench.
 */

export interface BigTool {
  name: string
  description: string
  inputSchema: Record<string, unknown>
  annotations?: { readOnlyHint?: boolean }
}

const VERBS = ['get', 'post', 'patch', 'delete', 'query', 'list', 'retrieve', 'update', 'create', 'search']
const THINGS = [
  'page',
  'database',
  'block',
  'comment',
  'user',
  'property',
  'view',
  'file',
  'team',
  'workspace',
]
const WORDS =
  'the object identifier returned by a previous request, formatted as a UUID with or without dashes; when omitted the integration uses the parent of the current context and every nested child inherits its permissions and sharing settings'.split(
    ' ',
  )

/** A sentence of `n` words, varied by `seed`. */
function prose(seed: number, n: number): string {
  const words = Array.from({ length: n }, (_, i) => WORDS[(seed * 7 + i * 3) % WORDS.length])
  const text = words.join(' ')
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`
}

function property(seed: number, name: string, depth: number): Record<string, unknown> {
  const kind = seed % 5
  const base = { title: name.replace(/_/g, ' '), description: prose(seed, 18 + (seed % 12)) }
  if (kind === 0) return { ...base, type: 'string', format: 'uuid', examples: ['2ff0e1d4-…'] }
  if (kind === 1)
    return {
      ...base,
      type: 'string',
      enum: ['ascending', 'descending', 'created_time', 'last_edited'],
      default: 'ascending',
    }
  if (kind === 2)
    return { ...base, type: 'integer', minimum: 1, maximum: 100, default: 50, $comment: 'page size' }
  if (kind === 3 && depth < 2)
    return {
      ...base,
      type: 'object',
      properties: Object.fromEntries(
        ['type', 'id', 'rich_text', 'annotations'].map((p, i) => [p, property(seed + i + 1, p, depth + 1)]),
      ),
      required: ['type'],
      additionalProperties: false,
    }
  return {
    ...base,
    type: 'array',
    items: { type: 'string', description: prose(seed + 3, 8) },
    examples: [['a', 'b']],
  }
}

/**
 * `count` tools whose definitions total about `kilobytes` kB (JSON of name, description and schema).
 * The first tool, `search`, is read-only; the second, `create_page`, writes (the test server runs it).
 */
export function bigToolList(opts: { count: number; kilobytes: number; seed?: number }): BigTool[] {
  const per = (opts.kilobytes * 1024) / opts.count
  const seed0 = opts.seed ?? 1
  return Array.from({ length: opts.count }, (_, i) => {
    const name =
      i === 0
        ? 'search'
        : i === 1
          ? 'create_page'
          : `API-${VERBS[i % VERBS.length]}-${THINGS[(i * 3) % THINGS.length]}-${i}`
    const description =
      i === 0
        ? 'Search by title across every page and database the integration can see. Returns matching pages.'
        : i === 1
          ? 'Create a page under a parent page or database, with a title and content. Writes to the workspace.'
          : `${prose(seed0 + i, 30)} ${prose(seed0 + i + 5, 25)}`
    const properties: Record<string, unknown> = {}
    const required: string[] = []
    if (i === 0) {
      properties.query = { type: 'string', description: 'Words to search for in titles' }
      required.push('query')
    }
    if (i === 1) {
      properties.title = { type: 'string', description: 'The title of the new page' }
      required.push('title')
    }
    let k = 0
    const schema = () => ({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties,
      required,
    })
    const size = () => JSON.stringify({ name, description, parameters: schema() }).length
    for (;;) {
      const prop = `${THINGS[(i + k) % THINGS.length]}_${['id', 'filter', 'sort', 'parent', 'children'][k % 5]}_${k}`
      const before = size()
      properties[prop] = property(seed0 * 31 + i * 13 + k, prop, 0)
      k++
      // Stop at the size closest to the target.
      if (size() >= per) {
        if (size() - per > per - before) delete properties[prop]
        break
      }
    }
    return {
      name,
      description,
      inputSchema: schema(),
      ...(i === 0 ? { annotations: { readOnlyHint: true } } : {}),
    }
  })
}
