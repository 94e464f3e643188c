/**
 * The search tool's ranking (docs/tools.md#tools-on-demand): `select:A,B` picks tools by exact name; any
 * other query is words, matched against each tool's name (its parts: server, tool, words of a snake_case
 * or camelCase name), its description and its parameters' names. An exact name always comes first. Pure.
 */

export interface Searchable {
  name: string
  description: string
  parameters: Record<string, unknown>
}

export interface SearchResult<T extends Searchable> {
  matches: T[]
  /** Names of the next best matches, beyond the limit. */
  more: string[]
  /** `select:` names that match no tool. */
  unknown: string[]
}

const STOP_WORDS = new Set(
  'a an and any are as at by can do for from get i in into is it me my of on or some that the this to tool tools use using with'.split(
    ' ',
  ),
)

export function searchTools<T extends Searchable>(
  query: string,
  tools: readonly T[],
  limit: number,
): SearchResult<T> {
  const trimmed = query.trim()
  if (/^select:/i.test(trimmed)) return select(trimmed.slice('select:'.length), tools)
  const exact = tools.find((t) => sameName(t.name, trimmed))
  const words = [...new Set(tokens(trimmed).filter((w) => !STOP_WORDS.has(w)))]
  const scored = tools
    .map((tool, order) => ({ tool, order, score: tool === exact ? 1000 : score(tool, words) }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order)
  return {
    matches: scored.slice(0, limit).map((s) => s.tool),
    more: scored.slice(limit, limit + 10).map((s) => s.tool.name),
    unknown: [],
  }
}

/** Exact names, or a tool's own part of an MCP name (`create_page` for `mcp__notion__create_page`). */
function select<T extends Searchable>(list: string, tools: readonly T[]): SearchResult<T> {
  const matches: T[] = []
  const unknown: string[] = []
  for (const wanted of list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const tool =
      tools.find((t) => sameName(t.name, wanted)) ?? tools.find((t) => sameName(ownPart(t.name), wanted))
    if (!tool) unknown.push(wanted)
    else if (!matches.includes(tool)) matches.push(tool)
  }
  return { matches, more: [], unknown }
}

function score(tool: Searchable, words: readonly string[]): number {
  if (words.length === 0) return 0
  const name = new Set(tokens(tool.name))
  const description = new Set(tokens(tool.description))
  const params = new Set(Object.keys(propertiesOf(tool.parameters)).flatMap(tokens))
  let total = 0
  let matched = 0
  for (const word of words) {
    let points = 0
    if (name.has(word)) points += 10
    else if (
      word.length >= 3 &&
      [...name].some((n) => n.startsWith(word) || (n.length >= 4 && word.startsWith(n)))
    )
      points += 5
    if (description.has(word)) points += 2
    else if (word.length >= 4 && [...description].some((d) => d.startsWith(word))) points += 1
    if (params.has(word)) points += 1
    if (points > 0) matched++
    total += points
  }
  // A tool that matches every word beats one that matches one word very well.
  return total + (matched === words.length ? 5 * matched : 0)
}

/** Lower-case words of a name or a text: `mcp__notion__API-post-search` → mcp, notion, api, post, search. */
export function tokens(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0)
    .map(stem)
}

/** Plurals as their singular, so "pages" finds `create_page`. */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1)
  return word
}

function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase()
}

function ownPart(name: string): string {
  return /^mcp__.+?__(.+)$/.exec(name)?.[1] ?? name
}

function propertiesOf(schema: Record<string, unknown>): Record<string, unknown> {
  const props = schema.properties
  return typeof props === 'object' && props !== null && !Array.isArray(props)
    ? (props as Record<string, unknown>)
    : {}
}
