/**
 * The catalog of tools on demand, as the search tool's description lists them: each by name and one
 * line while that fits the budget; past it, names only, grouped by MCP server; past that, a count per
 * server. Fixed with the definitions, so byte-stable for the session. Pure.
 */

export interface CatalogEntry {
  name: string
  description: string
}

export type CatalogForm = 'lines' | 'names' | 'counts'

/** Characters of a description's first sentence kept in a catalog line. */
const LINE = 90

export function catalogText(
  entries: readonly CatalogEntry[],
  budgetBytes: number,
): { text: string; form: CatalogForm } {
  const lines = entries.map((e) => `- ${e.name}: ${firstSentence(e.description)}`).join('\n')
  if (bytes(lines) <= budgetBytes) return { text: lines, form: 'lines' }
  const groups = groupByServer(entries)
  const names = groups
    .map((g) => (g.server ? `- ${g.server}: ${g.tools.join(', ')}` : `- ${g.tools.join(', ')}`))
    .join('\n')
  if (bytes(names) <= budgetBytes) return { text: names, form: 'names' }
  const counts = groups.map((g) =>
    g.server
      ? `- ${g.server}* (${g.tools.length} tool${g.tools.length === 1 ? '' : 's'})`
      : `- ${g.tools.join(', ')}`,
  )
  return { text: fitLines(counts, budgetBytes), form: 'counts' }
}

/** The first sentence of a description on one line, at most LINE characters. */
export function firstSentence(description: string): string {
  const flat = description.replace(/\s+/g, ' ').trim()
  const end = flat.search(/[.!?](\s|$)/)
  const sentence = end === -1 ? flat : flat.slice(0, end + 1)
  return sentence.length <= LINE ? sentence : `${sentence.slice(0, LINE - 1).trimEnd()}…`
}

interface Group {
  /** `mcp__server__` for a server's tools; empty for the built-ins. */
  server: string
  /** The built-ins by name; a server's tools by their own part of the name. */
  tools: string[]
}

function groupByServer(entries: readonly CatalogEntry[]): Group[] {
  const groups: Group[] = []
  for (const { name } of entries) {
    const match = /^(mcp__.+?__)(.+)$/.exec(name)
    const server = match?.[1] ?? ''
    const tool = match?.[2] ?? name
    const group = groups.find((g) => g.server === server)
    if (group) group.tools.push(tool)
    else groups.push({ server, tools: [tool] })
  }
  return groups
}

/** As many lines as fit, then how many were left out. */
function fitLines(lines: readonly string[], budgetBytes: number): string {
  const kept: string[] = []
  let used = 0
  for (const [i, line] of lines.entries()) {
    const rest = lines.length - i
    if (used + bytes(line) + 1 > budgetBytes && kept.length > 0) {
      kept.push(`- … and ${rest} more group${rest === 1 ? '' : 's'}: search to find them`)
      break
    }
    kept.push(line)
    used += bytes(line) + 1
  }
  return kept.join('\n')
}

function bytes(text: string): number {
  return Buffer.byteLength(text)
}
