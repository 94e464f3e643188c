import { describe, expect, it } from 'vitest'
import type { McpServerView } from '../../../source/store/domain.js'
import { panelLines, serverDetails, serverRow } from '../../../source/ui/panes/mcp/mcp-lines.js'

const server = (over: Partial<McpServerView>): McpServerView => ({
  name: 'docs',
  source: '.mcp.json',
  transport: 'stdio',
  target: 'npx docs-mcp',
  status: 'connected',
  tools: ['mcp__docs__search', 'mcp__docs__fetch'],
  resources: true,
  prompts: [{ command: 'mcp__docs__summarize', name: 'summarize', usage: '/mcp__docs__summarize <topic>' }],
  ...over,
})

describe('/mcp panel lines', () => {
  it.each([
    ['connected', server({}), 'docs  connected      2 tools · 1 prompt · resources  (.mcp.json)'],
    ['failed', server({ status: 'failed', error: 'x' }), 'docs  failed         (.mcp.json)'],
    ['needs sign-in', server({ status: 'needs_auth' }), 'docs  needs sign-in  (.mcp.json)'],
    ['connecting', server({ status: 'connecting' }), 'docs  connecting…    (.mcp.json)'],
  ])('row: %s', (_name, view, row) => {
    expect(serverRow(view, 4)).toBe(row)
  })

  it('details: target, error, sign-in URL, trust hint, tools and prompts', () => {
    expect(serverDetails(server({})).map((l) => l.text)).toEqual([
      'command: npx docs-mcp',
      'tools: mcp__docs__search, mcp__docs__fetch',
      'prompts: /mcp__docs__summarize <topic>',
    ])
    const remote = server({
      transport: 'http',
      target: 'https://x/mcp',
      status: 'needs_auth',
      authUrl: 'https://auth/authorize?x=1',
      tools: [],
      prompts: [],
      error: 'the authorization server refused: access_denied',
    })
    expect(serverDetails(remote)).toEqual([
      { text: 'http URL: https://x/mcp', kind: 'detail' },
      { text: 'error: the authorization server refused: access_denied', kind: 'error' },
      { text: 'sign in at: https://auth/authorize?x=1', kind: 'detail' },
    ])
    expect(serverDetails(server({ status: 'disabled-untrusted', tools: [], prompts: [] })).at(-1)?.text).toBe(
      'it comes from this repository: /trust to trust the folder and start it',
    )
  })

  it('marks the selected server and shows its details; with none configured, says where to add them', () => {
    const lines = panelLines(
      [server({ name: 'a' }), server({ name: 'b', status: 'failed', error: 'boom' })],
      1,
    )
    expect(lines.filter((l) => l.kind === 'selected').map((l) => l.text)).toEqual([
      '❯ b  failed         (.mcp.json)',
    ])
    expect(lines.some((l) => l.text === 'error: boom')).toBe(true)
    expect(panelLines([], 0).map((l) => l.text)).toContain('No MCP servers are configured.')
  })
})
