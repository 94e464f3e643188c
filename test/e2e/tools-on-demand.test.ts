/**
 * Tool definitions on demand and tool masks end to end (docs/context.md#tools-on-demand,
 * docs/tools.md#tool-masks): the built CLI, headless, against the scripted model server, with a real MCP
 * stdio server whose tool list is ~80 kB of realistic schemas (test/support/mcp-big-server.ts), at the
 * default 32k window.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { repoRoot } from '../support/run-cli.ts'

const env = setupE2eEnv()
const BIG_SERVER = join(repoRoot, 'test/support/mcp-big-server.ts')

type Definition = { function: { name: string; description: string; parameters: unknown } }
type Trace = { status: string; tool_calls: Array<{ name: string; status: string; error?: string }> }

async function bigServer() {
  await writeFile(
    join(env.box.workspace, '.mcp.json'),
    JSON.stringify({ mcpServers: { big: { command: process.execPath, args: [BIG_SERVER] } } }),
  )
}

async function userSettings(settings: Record<string, unknown>) {
  const file = join(env.box.env.XDG_CONFIG_HOME ?? '', 'agent-tui', 'settings.json')
  await mkdir(dirname(file), { recursive: true })
  await writeFile(file, JSON.stringify(settings))
}

async function run(args: string[]) {
  const r = await env.cli(['-p', 'make a page', '--output-format', 'json', ...args])
  const trace = r.stdout ? (JSON.parse(r.stdout) as Trace) : undefined
  return { ...r, trace }
}

const toolsOf = (i: number) => env.server.requests[i]?.body.tools as Definition[] | undefined
const namesOf = (i: number) => (toolsOf(i) ?? []).map((t) => t.function.name)
/** What the model got back for each tool call, in order (the last request's history). */
function toolResults(): string[] {
  const last = env.server.requests.at(-1)?.body.messages as Array<{ role: string; content: unknown }>
  return last.filter((m) => m.role === 'tool').map((m) => String(m.content))
}

describe('a big MCP server at a 32k window', () => {
  it('sends the core and the finders (≤ 40 kB), finds the tool, calls it through CallTool, tools byte-identical', async () => {
    await bigServer()
    env.server.enqueue(
      { toolCalls: [{ name: 'ToolSearch', arguments: { query: 'create a page' } }] },
      {
        toolCalls: [
          { name: 'CallTool', arguments: { name: 'mcp__big__create_page', arguments: { title: 'Hello' } } },
        ],
      },
      // A call whose arguments miss a required field: checked against the server's own schema.
      { toolCalls: [{ name: 'CallTool', arguments: { name: 'mcp__big__create_page', arguments: {} } }] },
      { text: 'done' },
    )
    const r = await run(['--trust-project', '--allowed-tools', 'mcp__big__create_page'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.trace?.tool_calls.map((c) => [c.name, c.status])).toEqual([
      ['ToolSearch', 'done'],
      ['mcp__big__create_page', 'done'],
      ['mcp__big__create_page', 'error'],
    ])
    expect(await readFile(join(env.box.workspace, 'pages.txt'), 'utf8')).toBe('Hello\n')

    const first = toolsOf(0) ?? []
    expect(Buffer.byteLength(JSON.stringify(first))).toBeLessThanOrEqual(40 * 1024)
    const names = namesOf(0)
    for (const core of ['Bash', 'Read', 'Edit', 'Write', 'Glob', 'Grep', 'TodoWrite', 'Agent'])
      expect(names).toContain(core)
    expect(names).toContain('ToolSearch')
    expect(names).toContain('CallTool')
    expect(names.filter((n) => n.startsWith('mcp__'))).toEqual([])
    // The catalog lists the server's tools in ToolSearch's description (at this window by name, per server).
    const search = first.find((t) => t.function.name === 'ToolSearch')
    expect(search?.function.description).toMatch(/^- mcp__big__: .*\bcreate_page\b/m)
    expect(search?.function.description).toMatch(
      /^- Config, NotebookEdit, MultiEdit, DeleteFile, SaveMemory, ListMcpResources, ReadMcpResource$/m,
    )

    // Every request carried the same tools, byte for byte (prefix caching).
    const bodies = env.server.requests.map((q) => JSON.stringify(q.body.tools))
    expect(env.server.requests).toHaveLength(4)
    expect(new Set(bodies).size).toBe(1)

    const [found, created, refused] = toolResults()
    expect(found).toContain('## mcp__big__create_page')
    expect(found).toMatch(/Arguments \(JSON Schema\): \{.*"required":\["title"\]/)
    expect(created).toBe('created page "Hello"')
    expect(refused).toContain("must have required property 'title'")
  })

  it('without a rule, the forwarded call is judged as the real tool: headless, it is denied by name', async () => {
    await bigServer()
    env.server.enqueue(
      {
        toolCalls: [
          { name: 'CallTool', arguments: { name: 'mcp__big__create_page', arguments: { title: 'No' } } },
        ],
      },
      { text: 'done' },
    )
    const r = await run(['--trust-project'])
    expect(r.trace?.tool_calls.map((c) => [c.name, c.status])).toEqual([['mcp__big__create_page', 'denied']])
    expect(toolResults()[0]).toContain('mcp__big__create_page')
    await expect(readFile(join(env.box.workspace, 'pages.txt'), 'utf8')).rejects.toThrow()
  })

  it('hooks see the real tool: a PreToolUse hook matching it gets its name and its own arguments', async () => {
    await bigServer()
    const seen = join(env.box.root, 'hook-input.json')
    await userSettings({
      hooks: {
        PreToolUse: [{ matcher: 'mcp__big__.*', hooks: [{ type: 'command', command: `cat > "${seen}"` }] }],
      },
    })
    env.server.enqueue(
      {
        toolCalls: [{ name: 'CallTool', arguments: { name: 'mcp__big__search', arguments: { query: 'q' } } }],
      },
      { text: 'done' },
    )
    const r = await run(['--trust-project'])
    expect(r.code, r.stderr).toBe(0)
    const input = JSON.parse(await readFile(seen, 'utf8'))
    expect(input).toMatchObject({ tool_name: 'mcp__big__search', tool_input: { query: 'q' } })
    expect(toolResults()[0]).toBe('found: q (page 1)')
  })

  it('deferTools: never sends every definition (and far more bytes)', async () => {
    await bigServer()
    await userSettings({ deferTools: 'never' })
    env.server.enqueue({ text: 'done' })
    const r = await run(['--trust-project'])
    expect(r.code, r.stderr).toBe(0)
    expect(namesOf(0)).toContain('mcp__big__create_page')
    expect(namesOf(0)).not.toContain('ToolSearch')
    expect(Buffer.byteLength(JSON.stringify(toolsOf(0)))).toBeGreaterThan(80 * 1024)
  })
})

describe('tool masks', () => {
  it('--tools Read,Grep,Glob sends exactly those; another tool is not available, and says why', async () => {
    env.server.enqueue({ toolCalls: [{ name: 'Bash', arguments: { command: 'touch x' } }] }, { text: 'done' })
    const r = await run(['--tools', 'Read,Grep,Glob'])
    expect(r.code, r.stderr).toBe(0)
    expect(namesOf(0)).toEqual(['Read', 'Glob', 'Grep'])
    expect(toolResults()[0]).toContain('Bash is not available in this session: --tools does not list it')
  })

  it('the tools setting does the same; an unknown name is a start-up warning', async () => {
    await userSettings({ tools: ['Read', 'Raed'] })
    env.server.enqueue({ text: 'done' })
    const r = await run([])
    expect(r.code, r.stderr).toBe(0)
    expect(namesOf(0)).toEqual(['Read'])
    expect(r.stderr).toContain('no tool is named Raed')
  })

  it('a bare deny (--disallowed-tools, permissions.deny) takes the tool out of the request', async () => {
    env.server.enqueue({ text: 'done' })
    await run(['--disallowed-tools', 'WebFetch'])
    expect(namesOf(0)).not.toContain('WebFetch')
    expect(namesOf(0)).toContain('Bash')

    await userSettings({ permissions: { deny: ['Bash', 'Write(*.lock)'] } })
    env.server.enqueue({ text: 'done' })
    await run([])
    const names = namesOf(1)
    expect(names).not.toContain('Bash')
    // A deny with a specifier still lets the tool's other calls through: it stays.
    expect(names).toContain('Write')
  })

  it("a bare deny of an MCP tool takes it out of the on-demand catalog and ToolSearch's results", async () => {
    await bigServer()
    env.server.enqueue(
      { toolCalls: [{ name: 'ToolSearch', arguments: { query: 'select:create_page,search' } }] },
      { text: 'done' },
    )
    const r = await run(['--trust-project', '--disallowed-tools', 'mcp__big__create_page'])
    expect(r.code, r.stderr).toBe(0)
    const search = toolsOf(0)?.find((t) => t.function.name === 'ToolSearch')
    expect(search?.function.description).toMatch(/^- mcp__big__: .*\bsearch$/m)
    expect(search?.function.description).not.toContain('create_page')
    const [found] = toolResults()
    expect(found).toContain('No tool is named "create_page"')
    expect(found).toContain('## mcp__big__search')
  })
})
