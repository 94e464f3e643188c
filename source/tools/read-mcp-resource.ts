import { z } from 'zod'
import { boundOutput } from './spill.js'
import { defineTool, type McpResourceSource } from './types.js'

const DESCRIPTION = `Reads one resource of an MCP server, by the server's name and the resource's URI (as ListMcpResources lists them).
- Text resources come back as text; binary ones as a note with their size and type.
- Large resources are cut to their head and tail, with the path of a file that holds all of it (Read it).`

const schema = z.strictObject({
  server: z.string().min(1).describe('Name of the MCP server'),
  uri: z.string().min(1).describe('URI of the resource to read'),
})

export type ReadMcpResourceArgs = z.infer<typeof schema>

/** ReadMcpResource (docs/mcp.md#tools-resources-and-prompts). */
export function createReadMcpResourceTool(source: McpResourceSource) {
  return defineTool<ReadMcpResourceArgs>({
    name: 'ReadMcpResource',
    description: DESCRIPTION,
    schema,
    risk: 'read',
    isReadOnly: () => true,
    permissionTarget: () => ({ kind: 'none' }),
    async preview(args) {
      return { kind: 'json', text: `${args.server}: ${args.uri}` }
    },
    summarize: (args) => `ReadMcpResource ${args.server}:${args.uri}`,
    async execute(args, ctx) {
      const text = await source.readResource(args.server, args.uri, ctx.signal)
      const bounded = await boundOutput(text, {
        spiller: ctx.spill,
        hint: `mcp-${args.server}-resource`,
        limit: 30_000,
      })
      return { forModel: bounded.text, display: { kind: 'text', text: bounded.text } }
    },
  })
}
