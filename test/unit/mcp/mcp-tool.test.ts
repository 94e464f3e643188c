import { readFile } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { createMcpTool, type McpToolRoute } from '../../../source/mcp/mcp-tool.js'
import { createTestEnv, run, runError, type TestEnv } from '../tools/helpers.js'

let env: TestEnv | undefined
afterEach(async () => {
  await env?.cleanup()
  env = undefined
})

function route(result: Awaited<ReturnType<McpToolRoute['call']>>, readOnly = false): McpToolRoute {
  return {
    exposed: 'mcp__docs__dump',
    server: 'docs',
    info: { name: 'dump', description: 'Dumps', inputSchema: { type: 'object' }, readOnly },
    call: async () => result,
  }
}

describe('an MCP tool as a session tool', () => {
  it('bounds a long result like any tool: the rest is spilled to a file the model can Read', async () => {
    env = await createTestEnv()
    const text = `${'line of output\n'.repeat(4000)}THE END`
    const result = await run(createMcpTool(route({ content: [{ type: 'text', text }] })), {}, env.ctx)
    expect(result.forModel.length).toBeLessThan(31_000)
    expect(result.forModel).toContain('THE END')
    const spilled = /full output: (\S+)/.exec(result.forModel)?.[1] ?? ''
    expect(spilled).toContain('mcp-docs-dump')
    expect(await readFile(spilled, 'utf8')).toBe(text)
  })

  it('an error result is an error with the server text; readOnlyHint makes it a read', async () => {
    env = await createTestEnv()
    const failing = createMcpTool(
      route({ content: [{ type: 'text', text: 'no such table' }], isError: true }),
    )
    expect((await runError(failing, {}, env.ctx)).message).toBe(
      'docs › dump reported an error: no such table',
    )
    expect(failing.risk).toBe('exec')
    expect(createMcpTool(route({ content: [] }, true)).risk).toBe('read')
  })
})
