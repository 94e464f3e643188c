/**
 * An MCP stdio server with a big tool list (test/support/big-schemas.ts), for the tests and bench rows
 * of tools on demand: `node test/support/mcp-big-server.ts [--tools N] [--kb K] [--seed S]`
 * (default 24 tools, 80 kB). `search {query}` answers with the query; `create_page {title}` appends the
 * title to `pages.txt` in the working directory; every other tool answers with its name and arguments.
 */
import { appendFileSync } from 'node:fs'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { bigToolList } from './big-schemas.ts'

const args = process.argv.slice(2)
const option = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`)
  return i === -1 ? fallback : Number(args[i + 1])
}
const tools = bigToolList({
  count: option('tools', 24),
  kilobytes: option('kb', 80),
  seed: option('seed', 1),
})

const server = new Server({ name: 'agent-tui-big-server', version: '1.0.0' }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }))
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: input = {} } = request.params
  const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })
  if (name === 'search') return text(`found: ${String(input.query)} (page 1)`)
  if (name === 'create_page') {
    appendFileSync('pages.txt', `${String(input.title)}\n`)
    return text(`created page "${String(input.title)}"`)
  }
  return text(`${name} ${JSON.stringify(input)}`)
})
await server.connect(new StdioServerTransport())
