import { describe, expect, it } from 'vitest'
import { type McpRuntime, SessionTools } from '../../../../source/agent/runtime/session-tools.js'
import { announce } from '../../../../source/mcp/announce.js'
import { createMcpTool, toolDescription, toolParameters } from '../../../../source/mcp/mcp-tool.js'
import { createStore } from '../../../../source/store/create-store.js'
import { initialState } from '../../../../source/store/state.js'
import type { AnyTool } from '../../../../source/tools/types.js'
import { echoTool } from '../turn/loop-harness.js'

/** An MCP client whose tools and "still starting" list the test sets. */
function fakeMcp() {
  const state = { tools: [] as AnyTool[], connecting: [] as string[], configured: true }
  const settled: number[] = []
  const info = (name: string) => ({
    name,
    description: `${name} tool`,
    inputSchema: { type: 'object' },
    readOnly: true,
  })
  const add = (name: string) =>
    state.tools.push(
      createMcpTool({
        exposed: `mcp__s__${name}`,
        server: 's',
        info: info(name),
        call: async () => ({ content: [] }),
      }),
    )
  const announced = () =>
    state.tools.map((t) => ({
      name: t.name,
      server: 's',
      description: toolDescription('s', info(t.name.slice(8))),
      parameters: toolParameters(info(t.name.slice(8)).inputSchema),
    }))
  const mcp: McpRuntime = {
    start: async () => undefined,
    settle: async (ms) => {
      settled.push(ms)
      state.connecting = []
    },
    connecting: () => state.connecting,
    refreshed: async () => undefined,
    hasServers: () => state.configured,
    tools: () => [...state.tools],
    tool: (name) => state.tools.find((t) => t.name === name),
    offeredNow: () => announce(new Map(), announced(), [])?.offered ?? new Map(),
    announce: (offered) => announce(offered, announced(), []),
    serverNames: () => ['s'],
    readMention: async () => '',
    expandPrompt: async () => ({ text: '', images: [] }),
    reconnect: () => undefined,
    authenticate: () => undefined,
  }
  return { mcp, state, settled, add }
}

function setup(fake: ReturnType<typeof fakeMcp>) {
  const store = createStore(
    initialState({ id: 's', cwd: '/w', model: 'm', baseUrl: 'http://x', title: '', startedAt: 0 }, 'safe'),
  )
  const resources = { ...echoTool(), name: 'ListMcpResources' }
  const tools = new SessionTools({
    core: [echoTool()],
    mcpCore: [resources],
    mcp: fake.mcp,
    store,
    newId: (p) => `${p}-1`,
    startupWaitMs: 5000,
  })
  return { store, tools }
}

const names = (tools: SessionTools) => tools.definitions().map((d) => d.function.name)
const signal = new AbortController().signal

describe('SessionTools', () => {
  it('fixes the definitions at the first step, after waiting for servers still starting', async () => {
    const fake = fakeMcp()
    fake.add('a')
    fake.state.connecting = ['slow']
    const { store, tools } = setup(fake)
    await tools.prepare(signal)
    expect(fake.settled).toEqual([5000])
    expect(names(tools)).toEqual(['Echo', 'ListMcpResources', 'mcp__s__a'])
    const notice = Object.values(store.getState().transcript.items).find((i) => i.kind === 'notice')
    expect(notice).toMatchObject({ text: 'MCP servers started: slow' })
    // Later tools never change the definitions…
    fake.add('b')
    const before = JSON.stringify(tools.definitions())
    await tools.prepare(signal)
    expect(JSON.stringify(tools.definitions())).toBe(before)
    // …they are announced once, and callable by name.
    const last = store.getState().messages.at(-1)
    expect(last?.role).toBe('user')
    expect(String(last?.content)).toContain('- mcp__s__b (server s): b tool')
    await tools.prepare(signal)
    expect(store.getState().messages).toHaveLength(1)
    expect(tools.lookup.get('mcp__s__b')?.name).toBe('mcp__s__b')
    expect([...tools.lookup.keys()]).toEqual(['Echo', 'ListMcpResources', 'mcp__s__a', 'mcp__s__b'])
    // /clear (or a compaction) takes the announcement out of the history: the model is told again.
    store.dispatch({ type: 'conversation/cleared' })
    await tools.prepare(signal)
    expect(store.getState().messages).toHaveLength(1)
    expect(String(store.getState().messages[0]?.content)).toContain('- mcp__s__b (server s)')
  })

  it('without MCP servers the resource tools are not offered (but known to the executor)', async () => {
    const fake = fakeMcp()
    fake.state.configured = false
    const { tools } = setup(fake)
    await tools.prepare(signal)
    expect(names(tools)).toEqual(['Echo'])
    expect(tools.lookup.get('ListMcpResources')).toBeDefined()
    expect(tools.planModeToolNames()).toEqual(['Echo'])
  })
})
