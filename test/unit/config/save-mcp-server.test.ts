import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { saveMcpServer } from '../../../source/config/save-mcp-server.js'

let dir: string | undefined
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
  dir = undefined
})

async function paths() {
  dir = await mkdtemp(join(tmpdir(), 'agent-tui-save-mcp-'))
  const configDir = join(dir, 'agent-tui')
  return { configDir, userSettingsFile: join(configDir, 'settings.json') }
}

describe('saveMcpServer (/mcp add --save)', () => {
  it('creates the user settings file with the server', async () => {
    const p = await paths()
    expect(await saveMcpServer(p, 'fs', { command: 'npx', args: ['-y', 'pkg@1.0.0'] })).toBe(
      p.userSettingsFile,
    )
    expect(JSON.parse(await readFile(p.userSettingsFile, 'utf8'))).toEqual({
      mcpServers: { fs: { command: 'npx', args: ['-y', 'pkg@1.0.0'] } },
    })
  })

  it('keeps every other key and server', async () => {
    const p = await paths()
    await saveMcpServer(p, 'a', { command: 'a' })
    const current = JSON.parse(await readFile(p.userSettingsFile, 'utf8'))
    await writeFile(p.userSettingsFile, JSON.stringify({ ...current, model: 'm' }))
    await saveMcpServer(p, 'docs', { type: 'http', url: 'https://mcp.example.com/mcp' })
    expect(JSON.parse(await readFile(p.userSettingsFile, 'utf8'))).toEqual({
      model: 'm',
      mcpServers: { a: { command: 'a' }, docs: { type: 'http', url: 'https://mcp.example.com/mcp' } },
    })
  })

  it.each([
    ['a server of that name', { mcpServers: { fs: { command: 'x' } } }, /has an MCP server "fs" already/],
    ['mcpServers that is not an object', { mcpServers: [] }, /"mcpServers" must be an object/],
  ])('refuses %s and leaves the file as it was', async (_name, settings, message) => {
    const p = await paths()
    await saveMcpServer(p, 'other', { command: 'o' })
    await writeFile(p.userSettingsFile, JSON.stringify(settings))
    await expect(saveMcpServer(p, 'fs', { command: 'npx' })).rejects.toThrow(message)
    expect(JSON.parse(await readFile(p.userSettingsFile, 'utf8'))).toEqual(settings)
  })

  it('never writes a file the next start would refuse', async () => {
    const p = await paths()
    await saveMcpServer(p, 'other', { command: 'o' })
    await writeFile(p.userSettingsFile, JSON.stringify({ notASetting: true }))
    await expect(saveMcpServer(p, 'fs', { command: 'npx' })).rejects.toThrow(/notASetting/)
    expect(JSON.parse(await readFile(p.userSettingsFile, 'utf8'))).toEqual({ notASetting: true })
  })
})
