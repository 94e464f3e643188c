/**
 * `/mcp`'s per-session changes: the reducer's lists, how they lie over the configured servers, and the
 * manager applying them live to a real MCP server (test/support/mcp-stdio-server.ts) — its process
 * stopped and started again, its tools withdrawn from what the model may call, servers added and
 * removed without a restart.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { SettingsSource } from '../../../source/config/load.js'
import type { McpManager } from '../../../source/mcp/manager.js'
import { createMcpManager } from '../../../source/mcp/session-manager.js'
import { applyChanges, disabledReason, SESSION_SOURCE } from '../../../source/mcp/session-changes.js'
import type { Action } from '../../../source/store/actions.js'
import { createStore, type Store } from '../../../source/store/create-store.js'
import { type McpSessionChanges, NO_MCP_CHANGES } from '../../../source/store/domain.js'
import { reduceMcpChanges } from '../../../source/store/mcp-reducer.js'
import { reducer, replay } from '../../../source/store/reducer.js'
import { initialState } from '../../../source/store/state.js'
import { isProcessAlive } from '../../../source/tasks/process-group.js'

const TEST_SERVER = join(process.cwd(), 'test/support/mcp-stdio-server.ts')

const changes = (actions: Action[]): McpSessionChanges => actions.reduce(reduceMcpChanges, NO_MCP_CHANGES)

describe('reduceMcpChanges', () => {
  const cases: Array<[string, Action[], McpSessionChanges]> = [
    [
      'a server off',
      [{ type: 'mcp/toggled', server: 'a', enabled: false }],
      { ...NO_MCP_CHANGES, disabledServers: ['a'] },
    ],
    [
      'off then on again',
      [
        { type: 'mcp/toggled', server: 'a', enabled: false },
        { type: 'mcp/toggled', server: 'a', enabled: true },
      ],
      NO_MCP_CHANGES,
    ],
    [
      'a tool off, twice',
      [
        { type: 'mcp/toggled', server: 'a', tool: 'echo', enabled: false },
        { type: 'mcp/toggled', server: 'a', tool: 'echo', enabled: false },
      ],
      { ...NO_MCP_CHANGES, disabledTools: { a: ['echo'] } },
    ],
    [
      'a tool off and on: no entry left',
      [
        { type: 'mcp/toggled', server: 'a', tool: 'echo', enabled: false },
        { type: 'mcp/toggled', server: 'a', tool: 'echo', enabled: true },
      ],
      NO_MCP_CHANGES,
    ],
    [
      'removing forgets its switches',
      [
        { type: 'mcp/toggled', server: 'a', enabled: false },
        { type: 'mcp/toggled', server: 'a', tool: 'echo', enabled: false },
        { type: 'mcp/removed', name: 'a' },
      ],
      { ...NO_MCP_CHANGES, removed: ['a'] },
    ],
    [
      'added, then removed',
      [
        { type: 'mcp/added', name: 'n', server: { command: 'x', args: [] } },
        { type: 'mcp/removed', name: 'n' },
      ],
      { ...NO_MCP_CHANGES, removed: ['n'] },
    ],
    [
      'removed, then added again',
      [
        { type: 'mcp/removed', name: 'n' },
        { type: 'mcp/added', name: 'n', server: { type: 'http', url: 'http://127.0.0.1:1/mcp' } },
      ],
      { ...NO_MCP_CHANGES, added: { n: { type: 'http', url: 'http://127.0.0.1:1/mcp' } } },
    ],
  ]
  it.each(cases)('%s', (_name, actions, expected) => {
    expect(changes(actions)).toEqual(expected)
  })

  it('an action that changes nothing keeps the state object', () => {
    const state = initialState(
      { id: 's', cwd: '/', model: 'm', baseUrl: 'u', title: '', startedAt: 0 },
      'safe',
    )
    expect(reducer(state, { type: 'mcp/toggled', server: 'a', enabled: true })).toBe(state)
  })

  it('survives /clear and a replay of the log (--continue)', () => {
    const state = initialState(
      { id: 's', cwd: '/', model: 'm', baseUrl: 'u', title: '', startedAt: 0 },
      'safe',
    )
    const log: Action[] = [
      { type: 'mcp/toggled', server: 'a', tool: 'echo', enabled: false },
      { type: 'conversation/cleared' },
      { type: 'mcp/servers', servers: [] },
    ]
    expect(replay(state, log).mcp.changes).toEqual({ ...NO_MCP_CHANGES, disabledTools: { a: ['echo'] } })
  })
})

describe('applyChanges and disabledReason', () => {
  const layer = { source: 'settings', projectBrought: false, servers: { a: { command: 'a' } } }
  it("adds the session layer last (the user's own), leaves out what was removed, says which are off", () => {
    const out = applyChanges([layer], {
      disabledServers: ['a'],
      disabledTools: {},
      added: { n: { command: 'node', args: ['s.js'] } },
      removed: ['a', 'n'],
    })
    expect(out.layers.at(-1)).toEqual({
      source: SESSION_SOURCE,
      projectBrought: false,
      servers: { n: { command: 'node', args: ['s.js'] } },
    })
    expect([...out.removed]).toEqual(['a'])
    expect([...out.off]).toEqual(['a'])
  })

  it('an added server that is not valid settings is not started, with a warning', () => {
    const bad = { n: { command: '' } } as unknown as McpSessionChanges['added']
    const out = applyChanges([], { ...NO_MCP_CHANGES, added: bad })
    expect(out.layers).toEqual([])
    expect(out.warnings[0]).toMatch(/MCP server "n" added in this session is not valid/)
  })

  it.each([
    [
      { ...NO_MCP_CHANGES, disabledServers: ['a'] },
      'a',
      'echo',
      'its MCP server "a" was disabled by the user in this session',
    ],
    [
      { ...NO_MCP_CHANGES, disabledTools: { a: ['echo'] } },
      'a',
      'echo',
      'disabled by the user in this session',
    ],
    [{ ...NO_MCP_CHANGES, disabledTools: { a: ['echo'] } }, 'a', 'note', undefined],
    [{ ...NO_MCP_CHANGES, disabledTools: { a: ['echo'] } }, 'b', 'echo', undefined],
  ])('%j %s %s', (c, server, tool, expected) => {
    expect(disabledReason(c, server, tool)).toBe(expected)
  })
})

describe('the manager applies them live', () => {
  let dir: string | undefined
  let manager: McpManager | undefined
  afterEach(async () => {
    await manager?.close()
    if (dir) await rm(dir, { recursive: true, force: true })
    manager = dir = undefined
  })

  async function session(servers: Record<string, unknown>) {
    dir = await mkdtemp(join(tmpdir(), 'agent-tui-mcp-changes-'))
    const store: Store = createStore(
      initialState({ id: 's', cwd: dir, model: 'm', baseUrl: 'u', title: '', startedAt: 0 }, 'safe'),
    )
    const notices: string[] = []
    const source = {
      scope: 'user',
      path: 'u',
      label: 'settings',
      exists: true,
      settings: { mcpServers: servers },
    }
    manager = createMcpManager({
      workspace: dir,
      env: process.env,
      version: 'test',
      sources: () =>
        ({ allowed: [source], all: [source] }) as { allowed: SettingsSource[]; all: SettingsSource[] },
      trusted: () => false,
      oauthFile: join(dir, 'oauth.json'),
      startupTimeoutMs: 20_000,
      toolTimeoutMs: 10_000,
      interactive: true,
      publish: (views) => store.dispatch({ type: 'mcp/servers', servers: views }),
      notice: (_level, text) => notices.push(text),
      changes: () => store.getState().mcp.changes,
    })
    return { store, manager, notices, dir }
  }

  const server = (pidFile: string) => ({
    command: process.execPath,
    args: [TEST_SERVER],
    env: { MCP_TEST_PID_FILE: pidFile },
  })
  const status = (store: Store, name: string) =>
    store.getState().mcp.servers.find((s) => s.name === name)?.status

  it('a server off stops its process and withdraws its tools; on starts it again', async () => {
    const root = await mkdtemp(join(tmpdir(), 'agent-tui-mcp-pid-'))
    const pidFile = join(root, 'pid')
    const { store, manager } = await session({ t: server(pidFile) })
    await manager.settle(20_000)
    expect(status(store, 't')).toBe('connected')
    const offered = manager.offeredNow()
    expect([...offered.keys()]).toContain('mcp__t__echo')
    const pid = Number(await readFile(pidFile, 'utf8'))

    store.dispatch({ type: 'mcp/toggled', server: 't', enabled: false })
    await manager.refresh()
    expect(status(store, 't')).toBe('disabled')
    expect(isProcessAlive(pid)).toBe(false)
    expect(manager.tools()).toEqual([])
    expect(manager.disabled('mcp__t__echo')).toBe(
      'its MCP server "t" was disabled by the user in this session',
    )
    expect(manager.announce(offered)?.text).toMatch(
      /^The user disabled these MCP tools for this session; do not call them: mcp__t__echo, .*mcp__t__note/,
    )

    store.dispatch({ type: 'mcp/toggled', server: 't', enabled: true })
    await manager.refresh()
    await manager.settle(20_000)
    expect(status(store, 't')).toBe('connected')
    expect(manager.disabled('mcp__t__echo')).toBeUndefined()
    expect(Number(await readFile(pidFile, 'utf8'))).not.toBe(pid)
    await rm(root, { recursive: true, force: true })
  })

  it('a tool off: not offered, its call refused with the reason, the rest stay', async () => {
    const { store, manager, dir } = await session({})
    store.dispatch({
      type: 'mcp/added',
      name: 't',
      server: { command: process.execPath, args: [TEST_SERVER] },
    })
    void dir
    await manager.settle(20_000)
    const offered = manager.offeredNow()
    store.dispatch({ type: 'mcp/toggled', server: 't', tool: 'echo', enabled: false })
    await manager.refresh()
    const names = manager.tools().map((t) => t.name)
    expect(names).not.toContain('mcp__t__echo')
    expect(names).toContain('mcp__t__note')
    expect(manager.disabled('mcp__t__echo')).toBe('disabled by the user in this session')
    expect(store.getState().mcp.servers[0]?.disabledTools).toEqual(['mcp__t__echo'])
    expect(manager.announce(offered)?.text).toBe(
      'The user disabled these MCP tools for this session; do not call them: mcp__t__echo',
    )
    // Any path that reaches the tool itself is refused too.
    const tool = manager.tool('mcp__t__echo')
    const ctx = { signal: new AbortController().signal, onProgress: () => {}, supportsVision: false }
    await expect(tool?.execute({ text: 'x' }, ctx as never)).rejects.toThrow(
      'MCP tool "echo" of server "t" was disabled by the user in this session',
    )
  })

  it("a server added for the session starts at once (the user's: no trust asked); removed, its process is gone", async () => {
    const { store, manager } = await session({})
    await manager.start()
    expect(store.getState().mcp.servers).toEqual([])
    store.dispatch({
      type: 'mcp/added',
      name: 'n',
      server: { command: process.execPath, args: [TEST_SERVER] },
    })
    await manager.refresh()
    await vi.waitFor(() => expect(status(store, 'n')).toBe('connected'), { timeout: 20_000 })
    const view = store.getState().mcp.servers[0]
    expect(view).toMatchObject({ name: 'n', source: SESSION_SOURCE, added: true })
    expect(manager.tools().map((t) => t.name)).toContain('mcp__n__echo')

    store.dispatch({ type: 'mcp/removed', name: 'n' })
    await manager.refresh()
    expect(store.getState().mcp.servers).toEqual([])
    expect(manager.tool('mcp__n__echo')).toBeDefined()
    expect(manager.announce(new Map([['mcp__n__echo', 'x']]))?.text).toMatch(
      /no longer available; do not call them: mcp__n__echo/,
    )
  })
})
