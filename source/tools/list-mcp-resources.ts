import { z } from 'zod'
import { boundOutput } from './spill.js'
import { defineTool, type McpResourceEntry, type McpResourceSource, ToolError } from './types.js'

const DESCRIPTION = `Lists the resources (files, documents, records…) that the connected MCP servers offer.
- Without "server", every connected server's resources; with it, that server's only.
- Each entry gives the server, the URI, the name and the type; read one with ReadMcpResource.
- Resource templates (URIs with {placeholders}) are listed too: fill in the placeholders to read one.`

const schema = z.strictObject({
  server: z.string().min(1).optional().describe('Name of the MCP server (default: all connected servers)'),
})

export type ListMcpResourcesArgs = z.infer<typeof schema>

/** ListMcpResources (docs/mcp.md#tools-resources-and-prompts): resources of one or all connected MCP servers. */
export function createListMcpResourcesTool(source: McpResourceSource) {
  return defineTool<ListMcpResourcesArgs>({
    name: 'ListMcpResources',
    description: DESCRIPTION,
    schema,
    risk: 'read',
    isReadOnly: () => true,
    permissionTarget: () => ({ kind: 'none' }),
    async preview(args) {
      return { kind: 'json', text: JSON.stringify(args) }
    },
    summarize: (args) => (args.server ? `ListMcpResources ${args.server}` : 'ListMcpResources'),
    async execute(args, ctx) {
      const known = source.servers()
      if (known.length === 0)
        throw new ToolError('not_found', 'no MCP servers are configured in this session', {
          hint: 'MCP servers come from settings "mcpServers" and .mcp.json',
        })
      if (args.server && !known.some((s) => s.name === args.server)) {
        throw new ToolError('not_found', `no MCP server "${args.server}"`, {
          hint: `servers: ${known.map((s) => `${s.name} (${s.status})`).join(', ')}`,
        })
      }
      const found = await source.listResources(args.server, ctx.signal)
      const lines: string[] = []
      let count = 0
      for (const entry of found) {
        if (entry.error) {
          lines.push(`${entry.server}: ${entry.error}`)
          continue
        }
        if (entry.resources.length === 0 && entry.templates.length === 0) {
          lines.push(`${entry.server}: no resources`)
          continue
        }
        for (const r of entry.resources) {
          count++
          lines.push(`${entry.server}  ${r.uri}${describe(r)}`)
        }
        for (const t of entry.templates) lines.push(`${entry.server}  ${t.uri}  (template)${describe(t)}`)
      }
      const idle = known.filter((s) => s.status !== 'connected' && (!args.server || s.name === args.server))
      for (const s of idle) lines.push(`${s.name}: not connected (${s.status})`)
      const text = lines.join('\n') || 'no resources'
      const bounded = await boundOutput(text, { spiller: ctx.spill, hint: 'mcp-resources', limit: 30_000 })
      return {
        forModel: bounded.text,
        display: { kind: 'list', count, truncated: bounded.truncated, items: lines.slice(0, 200) },
      }
    },
  })
}

function describe(r: McpResourceEntry): string {
  const facts = [r.name, r.mimeType].filter(Boolean).join(', ')
  const about = r.description ? ` — ${r.description.replace(/\s+/g, ' ').slice(0, 160)}` : ''
  return `${facts ? `  (${facts})` : ''}${about}`
}
