/**
 * A scripted MCP server over stdio for end-to-end tests of the MCP client (run with the pinned Node,
 * which strips the types): `node test/support/mcp-stdio-server.ts [--crash-on-start] [--child]`.
 * Built with the SDK's own server (v1, as most servers in the wild are). Tools:
 *
 * - `echo {text}` (read-only): `echo: <text>`
 * - `fail {}` (read-only): an error result (`isError`) with the server's message
 * - `slow {ms}` (read-only): answers after `ms` milliseconds
 * - `die {}`: the process exits (code 3) while the call is open
 * - `note {text}` (writes): appends to `notes.txt` in the working directory
 * - `grow {}`: adds the tool `late_tool` and tells the client its tool list changed
 *
 * Also a prompt `greet {name}` and resources `test://readme` (text) and `test://logo` (binary).
 * `MCP_TEST_PID_FILE` receives this process's pid; with `--child` it starts a `sleep` child (in its process
 * group) whose pid goes to `MCP_TEST_CHILD_PID_FILE`, as servers started through `npx` have children.
 */
import { spawn } from 'node:child_process'
import { appendFileSync, writeFileSync } from 'node:fs'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'

const args = process.argv.slice(2)
if (args.includes('--crash-on-start')) {
  process.stderr.write('boom: the test server cannot find its configuration\n')
  process.exit(1)
}
if (process.env.MCP_TEST_PID_FILE) writeFileSync(process.env.MCP_TEST_PID_FILE, String(process.pid))
if (args.includes('--child')) {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' })
  if (process.env.MCP_TEST_CHILD_PID_FILE)
    writeFileSync(process.env.MCP_TEST_CHILD_PID_FILE, String(child.pid))
}

const server = new McpServer({ name: 'agent-tui-test-server', version: '1.0.0' })
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })
const readOnly = { readOnlyHint: true }

server.registerTool(
  'echo',
  { description: 'Echoes the text back', inputSchema: { text: z.string() }, annotations: readOnly },
  async ({ text: value }) => text(`echo: ${value}`),
)
server.registerTool(
  'fail',
  { description: 'Always reports an error', inputSchema: {}, annotations: readOnly },
  async () => ({ ...text('the database is locked'), isError: true }),
)
server.registerTool(
  'slow',
  { description: 'Answers after a while', inputSchema: { ms: z.number() }, annotations: readOnly },
  async ({ ms }) => {
    await new Promise((resolve) => setTimeout(resolve, ms))
    return text(`done after ${ms} ms`)
  },
)
server.registerTool('die', { description: 'Exits mid-call', inputSchema: {} }, async () => {
  process.stderr.write('test server: exiting on purpose\n')
  process.exit(3)
})
server.registerTool(
  'note',
  { description: 'Appends a note to notes.txt', inputSchema: { text: z.string() } },
  async ({ text: value }) => {
    appendFileSync('notes.txt', `${value}\n`)
    return text('noted')
  },
)
server.registerTool(
  'grow',
  { description: 'Adds a tool', inputSchema: {}, annotations: readOnly },
  async () => {
    server.registerTool(
      'late_tool',
      { description: 'A tool that appeared later', inputSchema: { n: z.number() }, annotations: readOnly },
      async ({ n }) => text(`late tool got ${n}`),
    )
    return text('added late_tool')
  },
)

server.registerPrompt(
  'greet',
  { description: 'Greets someone', argsSchema: { name: z.string() } },
  ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Please greet ${name} warmly.` } }],
  }),
)
server.registerResource('readme', 'test://readme', { mimeType: 'text/plain' }, async (uri) => ({
  contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'The test server reads this to you.' }],
}))
server.registerResource('logo', 'test://logo', { mimeType: 'image/png' }, async (uri) => ({
  contents: [{ uri: uri.href, mimeType: 'image/png', blob: Buffer.alloc(1500, 7).toString('base64') }],
}))

await server.connect(new StdioServerTransport())
