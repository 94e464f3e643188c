/**
 * Tool definitions are fixed when the session's first request goes out (byte-stable: docs/mcp.md#when-servers-start). MCP
 * tools that appear later — a server that connects late, one that changes its list, one started when
 * the folder is trusted — are announced to the model in a message at the next step instead, and are
 * callable by name through the executor. Pure.
 */

export interface AnnouncedTool {
  /** `mcp__server__tool`. */
  name: string
  server: string
  description: string
  parameters: Record<string, unknown>
}

export interface Announcement {
  /** The message the model gets. */
  text: string
  /** The line the transcript shows. */
  note: string
  /** What the model has been told about after this announcement (name → signature). */
  offered: Map<string, string>
}

/** How the session tells the model about new tools. */
export interface AnnounceOptions {
  /** Whether the session offers the tool at all (a mask leaves some out); default every tool. */
  offers?(name: string): boolean
  /**
   * The session sends MCP tools on demand: new ones are listed by name and one line, to be found with
   * `finder` and called through `caller`, instead of with their whole schemas.
   */
  brief?: { finder: string; caller: string }
}

/** What identifies a tool's definition: a change of description or schema is announced again. */
export function signature(tool: AnnouncedTool): string {
  return JSON.stringify([tool.description, tool.parameters])
}

/**
 * Compares what the model was told (`offered`) with the tools available now. `gone` names offered tools
 * that no longer exist (their server removed them, or the server was removed) — a server that is only
 * down keeps its tools: calls to them get an error envelope until it is back.
 */
export function announce(
  offered: ReadonlyMap<string, string>,
  all: readonly AnnouncedTool[],
  gone: readonly string[],
  opts: AnnounceOptions = {},
  /** Of `gone`, those the user turned off in `/mcp` (the model is told so). */
  disabled: ReadonlySet<string> = new Set(),
): Announcement | null {
  const available = opts.offers ? all.filter((t) => opts.offers?.(t.name)) : all
  const added = available.filter((t) => offered.get(t.name) !== signature(t))
  const removed = gone.filter((name) => offered.has(name))
  if (added.length === 0 && removed.length === 0) return null
  const next = new Map(offered)
  for (const t of added) next.set(t.name, signature(t))
  for (const name of removed) next.delete(name)
  const lines: string[] = []
  if (added.length && opts.brief) {
    const { finder, caller } = opts.brief
    lines.push(
      `MCP tools became available after this session started (or changed). They are tools on demand: get a tool's schema with ${finder} ("select:NAME") and call it through ${caller}:`,
    )
    for (const t of added) lines.push(`- ${t.name} (server ${t.server}): ${oneLine(t.description)}`)
  } else if (added.length) {
    lines.push(
      'MCP tools became available after this session started (or changed). They are not in your tool list, but you can call them by name like any other tool, with arguments matching the schema:',
    )
    for (const t of added) {
      lines.push(`- ${t.name} (server ${t.server}): ${t.description.replace(/\s+/g, ' ')}`)
      lines.push(`  parameters: ${JSON.stringify(t.parameters)}`)
    }
  }
  const off = removed.filter((name) => disabled.has(name))
  const other = removed.filter((name) => !disabled.has(name))
  if (other.length)
    lines.push(`These MCP tools are no longer available; do not call them: ${other.join(', ')}`)
  if (off.length)
    lines.push(`The user disabled these MCP tools for this session; do not call them: ${off.join(', ')}`)
  const servers = [...new Set(added.map((t) => t.server))]
  const note = [
    added.length
      ? `MCP: ${added.length} tool${added.length === 1 ? '' : 's'} of ${servers.join(', ')} announced to the model`
      : '',
    other.length
      ? `MCP: ${other.length} tool${other.length === 1 ? '' : 's'} withdrawn (${other.join(', ')})`
      : '',
    off.length ? `MCP: the model was told ${off.join(', ')} ${off.length === 1 ? 'is' : 'are'} off` : '',
  ]
    .filter(Boolean)
    .join('; ')
  return { text: lines.join('\n'), note, offered: next }
}

/** A description's first line, at most 120 characters. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length <= 120 ? flat : `${flat.slice(0, 119)}…`
}
