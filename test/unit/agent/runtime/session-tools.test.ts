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
    announce: (offered, opts) => announce(offered, announced(), [], opts),
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

describe('SessionTools: tools on demand and masks', () => {
  function small(
    fake: ReturnType<typeof fakeMcp>,
    extra: Partial<ConstructorParameters<typeof SessionTools>[0]>,
  ) {
    const store = createStore(
      initialState({ id: 's', cwd: '/w', model: 'm', baseUrl: 'http://x', title: '', startedAt: 0 }, 'safe'),
    )
    const tools = new SessionTools({
      core: [{ ...echoTool(), name: 'Read' }, echoTool()],
      mcpCore: [{ ...echoTool(), name: 'ListMcpResources' }],
      mcp: fake.mcp,
      store,
      newId: (p) => `${p}-1`,
      startupWaitMs: 5000,
      ...extra,
    })
    return { store, tools }
  }

  it('a small window sends the core and the finders; ToolSearch finds deferred and later tools', async () => {
    const fake = fakeMcp()
    // Enough tools that the finders cost less than their definitions (else nothing is deferred).
    const many = Array.from({ length: 30 }, (_, i) => `t${i}`)
    for (const n of many) fake.add(n)
    const { store, tools } = small(fake, { window: () => ({ tokens: 100, charsPerToken: 4 }) })
    await tools.prepare(signal)
    expect(names(tools)).toEqual(['Read', 'ToolSearch', 'CallTool'])
    const report = tools.report()
    expect(report.fixed).toBe(true)
    expect(report.deferred.map((d) => d.name)).toEqual([
      'Echo',
      'ListMcpResources',
      ...many.map((n) => `mcp__s__${n}`),
    ])
    const search = tools.lookup.get('ToolSearch')
    const found = await search?.execute({ query: 'select:mcp__s__t7' }, {} as never)
    expect(found?.forModel).toContain('## mcp__s__t7')
    // A tool that comes later is announced briefly and found the same way; the definitions do not change.
    const before = JSON.stringify(tools.definitions())
    fake.add('late')
    await tools.prepare(signal)
    expect(JSON.stringify(tools.definitions())).toBe(before)
    expect(String(store.getState().messages.at(-1)?.content)).toContain("get a tool's schema with ToolSearch")
    const late = await search?.execute({ query: 'select:late' }, {} as never)
    expect(late?.forModel).toContain('## mcp__s__late')
  })

  it('a tool the user turned off: refused before the gate, not found by ToolSearch, the definitions unchanged', async () => {
    for (const tokens of [100, 1_000_000]) {
      const fake = fakeMcp()
      for (const n of Array.from({ length: 30 }, (_, i) => `t${i}`)) fake.add(n)
      const all = [...fake.state.tools]
      const off = new Set<string>()
      // As the manager does: tools() leaves out what is off, tool() still knows it, disabled() says why.
      fake.mcp.tools = () => all.filter((t) => !off.has(t.name))
      fake.mcp.tool = (name) => all.find((t) => t.name === name)
      fake.mcp.disabled = (name) => (off.has(name) ? 'disabled by the user in this session' : undefined)
      const { tools } = small(fake, { window: () => ({ tokens, charsPerToken: 4 }) })
      await tools.prepare(signal)
      const before = JSON.stringify(tools.definitions())
      expect(tools.lookup.get('mcp__s__t7')).toBeDefined()
      off.add('mcp__s__t7')
      await tools.prepare(signal)
      expect(JSON.stringify(tools.definitions())).toBe(before)
      expect(tools.lookup.get('mcp__s__t7')).toBeUndefined()
      expect(tools.lookup.unavailable?.('mcp__s__t7')).toBe('disabled by the user in this session')
      const search = tools.lookup.get('ToolSearch')
      if (tokens === 100) {
        const found = await search?.execute({ query: 'select:mcp__s__t7' }, {} as never)
        expect(found?.forModel).not.toContain('## mcp__s__t7')
        expect((await search?.execute({ query: 'select:mcp__s__t8' }, {} as never))?.forModel).toContain(
          '## mcp__s__t8',
        )
      } else expect(search).toBeUndefined()
      off.clear()
      expect(tools.lookup.get('mcp__s__t7')).toBeDefined()
    }
  })

  it('a large window defers nothing and sends no finders', async () => {
    const fake = fakeMcp()
    fake.add('a')
    const { tools } = small(fake, { window: () => ({ tokens: 1_000_000, charsPerToken: 4 }) })
    await tools.prepare(signal)
    expect(names(tools)).toEqual(['Read', 'Echo', 'ListMcpResources', 'mcp__s__a'])
    expect(tools.lookup.get('ToolSearch')).toBeUndefined()
  })

  it('a mask takes tools out of the definitions and the lookup, with why; own() is what the user runs', async () => {
    const fake = fakeMcp()
    fake.add('a')
    const { tools } = small(fake, {
      only: { names: ['Read', 'mcp__s__*'], source: '--tools' },
      window: () => ({ tokens: 1_000_000, charsPerToken: 4 }),
    })
    await tools.prepare(signal)
    expect(names(tools)).toEqual(['Read', 'mcp__s__a'])
    expect(tools.lookup.get('Echo')).toBeUndefined()
    expect(tools.lookup.unavailable?.('Echo')).toBe('--tools does not list it (Read,mcp__s__*)')
    expect(tools.own('Echo')?.name).toBe('Echo')
    expect(tools.report().masked).toEqual([
      { name: 'Echo', reason: '--tools does not list it (Read,mcp__s__*)' },
      { name: 'ListMcpResources', reason: '--tools does not list it (Read,mcp__s__*)' },
    ])
  })
})
