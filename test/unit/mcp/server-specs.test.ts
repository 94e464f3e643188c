import { describe, expect, it } from 'vitest'
import type { SettingsSource } from '../../../source/config/load.js'
import { parseMcpJson, resolveServers, settingsLayers } from '../../../source/mcp/server-specs.js'

const stdio = (command: string) => ({ command })

describe('resolveServers', () => {
  const user = {
    source: 'user',
    projectBrought: false,
    servers: { db: stdio('user-db'), docs: stdio('docs') },
  }
  const repo = {
    source: '.mcp.json',
    projectBrought: true,
    servers: { db: stdio('repo-db'), lint: stdio('lint') },
  }
  const view = (trusted: boolean) =>
    resolveServers([user, repo], trusted).map((r) => [r.spec.name, r.spec.settings, r.enabled, r.spec.source])

  it('untrusted: the repository lists its servers but they do not start, nor replace the user’s', () => {
    expect(view(false)).toEqual([
      ['db', stdio('user-db'), true, 'user'],
      ['docs', stdio('docs'), true, 'user'],
      ['lint', stdio('lint'), false, '.mcp.json'],
    ])
  })

  it('trusted: a later layer replaces an earlier server of the same name', () => {
    expect(view(true)).toEqual([
      ['db', stdio('repo-db'), true, '.mcp.json'],
      ['docs', stdio('docs'), true, 'user'],
      ['lint', stdio('lint'), true, '.mcp.json'],
    ])
  })
})

describe('settingsLayers', () => {
  const source = (
    scope: SettingsSource['scope'],
    label: string,
    mcpServers: Record<string, { command: string }>,
  ) => ({ scope, path: `/${label}`, label, exists: true, settings: { mcpServers } }) as SettingsSource

  it("splits each file's servers into the user's and the repository's; the user file below .mcp.json", () => {
    const mine = { a: stdio('a') }
    const userFile = source('user', 'user.json', mine)
    const project = source('project', '.agent-tui/settings.json', { b: stdio('b') })
    const untrusted = { ...project, settings: {} }
    const layers = settingsLayers([userFile, untrusted], [userFile, project])
    expect(layers.low).toEqual([{ source: 'user.json', projectBrought: false, servers: mine }])
    expect(layers.high).toEqual([
      { source: '.agent-tui/settings.json', projectBrought: true, servers: { b: stdio('b') } },
    ])
  })
})

describe('parseMcpJson (Claude Code’s format, read leniently)', () => {
  it.each([
    [
      'stdio and http, with type',
      {
        mcpServers: {
          a: { type: 'stdio', command: 'npx', args: ['x'] },
          b: { type: 'http', url: 'https://h/mcp' },
        },
      },
      { a: { type: 'stdio', command: 'npx', args: ['x'] }, b: { type: 'http', url: 'https://h/mcp' } },
      [],
    ],
    [
      'unknown keys are ignored with a warning',
      { mcpServers: { a: { command: 'x', description: 'mine', alwaysAllow: [] } } },
      { a: { command: 'x' } },
      ['.mcp.json: server "a": ignored "description", "alwaysAllow"'],
    ],
    [
      'an invalid entry is skipped, the others kept',
      { mcpServers: { bad: { args: [] }, good: { url: 'http://127.0.0.1:1/mcp' } } },
      { good: { url: 'http://127.0.0.1:1/mcp' } },
      [
        '.mcp.json: server "bad": expected {"command": …} (stdio server) or {"url": …} (HTTP server); not started',
      ],
    ],
    ['no mcpServers key', { other: 1 }, {}, []],
    [
      'wrong shape',
      { mcpServers: [] },
      {},
      ['.mcp.json: expected {"mcpServers": {"name": {…}}}; no servers started from it'],
    ],
  ])('%s', (_name, json, servers, warnings) => {
    expect(parseMcpJson(JSON.stringify(json))).toEqual({ servers, warnings })
  })

  it('invalid JSON starts nothing and says why', () => {
    const r = parseMcpJson('{"mcpServers": ')
    expect(r.servers).toEqual({})
    expect(r.warnings[0]).toMatch(/^\.mcp\.json: invalid JSON \(.+\); no servers started from it$/)
  })
})
