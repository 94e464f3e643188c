import { describe, expect, it } from 'vitest'
import type { McpServerView } from '../../../source/store/domain.js'
import { McpPanel } from '../../../source/ui/panes/mcp/mcp-panel.js'
import { fakeCommands, KEYS, makeStore, renderPane, waitFor } from '../shell/helpers.js'

const docs: McpServerView = {
  name: 'docs',
  source: 'settings',
  transport: 'stdio',
  target: 'node docs.js',
  status: 'connected',
  tools: ['mcp__docs__fetch', 'mcp__docs__search'],
  resources: false,
  prompts: [],
}

function panel(servers: McpServerView[], width = 80, height = 20) {
  const store = makeStore()
  store.dispatch({ type: 'mcp/servers', servers })
  const commands = fakeCommands({ store })
  const closed: number[] = []
  const r = renderPane(<McpPanel width={width} height={height} onClose={() => closed.push(1)} />, {
    store,
    commands,
  })
  return { ...r, store, commands, closed }
}

describe('the /mcp panel', () => {
  it('Space turns the selected server off (the answer shows), the store shows it off', async () => {
    const r = panel([docs])
    await waitFor(() => r.frame().includes('❯ docs'), r.frame)
    expect(r.frame()).toContain('Space on/off · Enter tools')
    r.stdin.write(' ')
    await waitFor(() => r.commands.named('setMcpEnabled').length === 1)
    expect(r.commands.named('setMcpEnabled')).toEqual([['docs', false]])
    await waitFor(() => r.frame().includes('docs turned off'), r.frame)
    r.store.dispatch({ type: 'mcp/servers', servers: [{ ...docs, status: 'disabled', tools: [] }] })
    await waitFor(() => r.frame().includes('off (this session)'), r.frame)
    expect(r.frame()).toContain('turned off for this session: Space turns it on again')
    r.stdin.write(' ')
    await waitFor(() => r.commands.named('setMcpEnabled').length === 2)
    expect(r.commands.named('setMcpEnabled')[1]).toEqual(['docs', true])
  })

  it('Enter lists the tools; Space turns one off; Esc goes back, Esc again closes', async () => {
    const r = panel([docs])
    await waitFor(() => r.frame().includes('❯ docs'), r.frame)
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.frame().includes('docs — tools'), r.frame)
    expect(r.frame()).toContain('❯ [on]  mcp__docs__fetch')
    r.stdin.write(KEYS.down)
    await waitFor(() => r.frame().includes('❯ [on]  mcp__docs__search'), r.frame)
    r.stdin.write(' ')
    await waitFor(() => r.commands.named('setMcpEnabled').length === 1)
    expect(r.commands.named('setMcpEnabled')).toEqual([['docs', false, 'mcp__docs__search']])
    r.store.dispatch({ type: 'mcp/servers', servers: [{ ...docs, disabledTools: ['mcp__docs__search'] }] })
    await waitFor(() => r.frame().includes('❯ [off] mcp__docs__search'), r.frame)
    r.stdin.write(KEYS.esc)
    await waitFor(() => r.frame().includes('off in this session: mcp__docs__search'), r.frame)
    expect(r.closed).toEqual([])
    r.stdin.write(KEYS.esc)
    await waitFor(() => r.closed.length === 1)
  })

  it('x twice removes the server; a refusal shows in red words', async () => {
    const r = panel([docs])
    await waitFor(() => r.frame().includes('❯ docs'), r.frame)
    r.stdin.write('x')
    await waitFor(() => r.frame().includes('x again removes "docs" from this session'), r.frame)
    r.stdin.write('x')
    await waitFor(() => r.commands.named('removeMcpServer').length === 1)
    await waitFor(() => r.frame().includes('removed docs'), r.frame)
  })

  it('a change the session refuses says why', async () => {
    const store = makeStore()
    store.dispatch({ type: 'mcp/servers', servers: [docs] })
    const commands = {
      ...fakeCommands({ store }),
      setMcpEnabled: () => Promise.reject(new Error('MCP server "docs" has no tool "x" now')),
    }
    const r = renderPane(<McpPanel width={80} height={20} onClose={() => {}} />, { store, commands })
    await waitFor(() => (r.lastFrame() ?? '').includes('❯ docs'))
    r.stdin.write(' ')
    await waitFor(() => r.frame().includes('has no tool "x" now'), r.frame)
  })

  it('with no servers, it says how to add one for this session', async () => {
    const r = panel([])
    await waitFor(() => r.frame().includes('No MCP servers are configured.'), r.frame)
    expect(r.frame()).toContain('/mcp add <name> <command> [args…]')
  })
})
