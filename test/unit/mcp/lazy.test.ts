import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { SettingsSource } from '../../../source/config/load.js'
import { createLazyMcp, type LazyMcp } from '../../../source/mcp/lazy.js'

let dir: string | undefined
let mcp: LazyMcp | undefined

afterEach(async () => {
  await mcp?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
})

/** A session's MCP handle over a real workspace; `trust()` answers the folder's trust prompt. */
async function session(sources: SettingsSource[] = []) {
  dir = await mkdtemp(join(tmpdir(), 'agent-tui-mcp-lazy-'))
  const listeners = new Set<() => void>()
  let trusted = false
  mcp = createLazyMcp({
    workspace: dir,
    env: {},
    version: 'test',
    sources: () => ({ allowed: [], all: sources }),
    trusted: () => trusted,
    subscribeTrust(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    oauthFile: join(dir, 'mcp-oauth.json'),
    startupTimeoutMs: 2_000,
    toolTimeoutMs: 1_000,
    interactive: true,
    publish: () => {},
    notice: () => {},
  })
  const trust = () => {
    trusted = true
    for (const listener of listeners) listener()
  }
  return { workspace: dir, mcp, trust }
}

describe('createLazyMcp', () => {
  it('with no server configured, starts and settles at once with no servers', async () => {
    const { mcp } = await session()
    await mcp.start()
    await mcp.settle(10_000)
    expect(mcp.views()).toEqual([])
    expect(mcp.hasServers()).toBe(false)
  })

  it('a .mcp.json written after the start is read once the folder is trusted', async () => {
    const { workspace, mcp, trust } = await session()
    await mcp.start()
    const missing = join(workspace, 'no-such-mcp-server')
    await writeFile(
      join(workspace, '.mcp.json'),
      JSON.stringify({ mcpServers: { later: { command: missing } } }),
    )
    trust()
    await vi.waitFor(() => expect(mcp.views().map((view) => view.name)).toEqual(['later']))
  })

  it("lists a settings file's server (the client loads for it)", async () => {
    const missing = '/no-such-dir/no-such-mcp-server'
    const { mcp } = await session([
      {
        scope: 'project',
        path: 'p',
        label: 'settings',
        exists: true,
        settings: { mcpServers: { own: { command: missing } } },
      },
    ] as SettingsSource[])
    await mcp.start()
    expect(mcp.views().map((view) => view.name)).toEqual(['own'])
  })
})
