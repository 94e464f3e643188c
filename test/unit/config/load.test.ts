import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ConfigError } from '../../../source/config/errors.js'
import { loadSettings, mergeSettings, parseSettingsText } from '../../../source/config/load.js'

let root: string
let home: string
let cwd: string
let env: Record<string, string>

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'agent-tui-load-'))
  home = join(root, 'home')
  cwd = join(root, 'project')
  env = { HOME: home, XDG_CONFIG_HOME: join(root, 'xdg-config') }
  await mkdir(join(cwd, '.agent-tui'), { recursive: true })
  await mkdir(join(root, 'xdg-config', 'agent-tui'), { recursive: true })
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const userFile = () => join(root, 'xdg-config', 'agent-tui', 'settings.json')
const projectFile = () => join(cwd, '.agent-tui', 'settings.json')
const localFile = () => join(cwd, '.agent-tui', 'settings.local.json')

function thrown(fn: () => unknown): ConfigError {
  try {
    fn()
  } catch (err) {
    if (err instanceof ConfigError) return err
    throw err
  }
  throw new Error('expected a ConfigError')
}

describe('parseSettingsText: invalid content', () => {
  it.each<[string, string, string, string | undefined]>([
    [
      'bad JSON with position',
      '{\n  "model": "x",\n  mode: "safe"\n}',
      'f.json:3:3: invalid JSON: ',
      undefined,
    ],
    ['unexpected token', '{\n  "model": }', 'f.json:2:12: invalid JSON: Unexpected token', undefined],
    ['truncated JSON', '{"model": "x"', 'f.json:1:14: invalid JSON:', undefined],
    ['not an object', '[1]', 'f.json: expected a JSON object at the top level', undefined],
    ['unknown key', '{"modle": "x"}', 'f.json: modle: unknown key "modle" (did you mean "model"?)', 'modle'],
    [
      'nested unknown key',
      '{"permissions": {"allowed": []}}',
      'f.json: permissions.allowed: unknown key "allowed"',
      'permissions.allowed',
    ],
    [
      'a header the HTTP client owns',
      '{"headers": {"Host": "evil.example"}}',
      'f.json: headers.Host: "Host" is set by the HTTP client and cannot be configured',
      'headers.Host',
    ],
    [
      'a header value with a line break',
      '{"headers": {"x-a": "1\\r\\nx-b: 2"}}',
      'f.json: headers["x-a"]: a header value cannot hold a line break or NUL',
      'headers["x-a"]',
    ],
    ['wrong type', '{"maxSteps": "ten"}', 'f.json: maxSteps: expected number, received string', 'maxSteps'],
    ['not positive', '{"maxSteps": 0}', 'f.json: maxSteps: expected a number above 0', 'maxSteps'],
    [
      'bad enum',
      '{"mode": "yolo"}',
      'f.json: mode: expected one of "safe"|"auto"|"plan"|"dangerous"|"ci"',
      'mode',
    ],
    [
      'bad rule',
      '{"permissions": {"allow": ["Read", "Bash", "Bash(npm"]}}',
      'f.json: permissions.allow[2]: rule "Bash(npm" must end with ")"',
      'permissions.allow[2]',
    ],
    ['bad URL', '{"baseUrl": "localhost:11434"}', 'f.json: baseUrl: expected an http(s) URL', 'baseUrl'],
    [
      'bad sandbox',
      '{"sandbox": "on"}',
      'f.json: sandbox: expected "off", "workspace-write" or {"mode": "workspace-write", "network": false}',
      'sandbox',
    ],
    [
      'misspelt sandbox key',
      '{"sandbox": {"mode": "off", "net": true}}',
      'f.json: sandbox.net: unknown key "net"',
      'sandbox.net',
    ],
    [
      'model pattern key path',
      '{"models": {"qwen*": {"contextLimit": -1}}}',
      'f.json: models["qwen*"].contextLimit: expected a number above 0',
      'models["qwen*"].contextLimit',
    ],
    [
      'mcp server shape',
      '{"mcpServers": {"docs": {"args": []}}}',
      'f.json: mcpServers.docs: expected {"command": …} (stdio server) or {"url": …} (HTTP server)',
      'mcpServers.docs',
    ],
    [
      'mcp unknown key',
      '{"mcpServers": {"docs": {"command": "x", "cwd": "/"}}}',
      'f.json: mcpServers.docs.cwd: unknown key "cwd"',
      'mcpServers.docs.cwd',
    ],
    [
      'mcp server type',
      '{"mcpServers": {"docs": {"type": "websocket", "url": "ws://x"}}}',
      'f.json: mcpServers.docs: unknown server type "websocket"; expected "stdio", "http" or "sse"',
      'mcpServers.docs',
    ],
    [
      'mcp server URL',
      '{"mcpServers": {"docs": {"url": "ftp://x"}}}',
      'f.json: mcpServers.docs.url: expected an http(s) URL such as https://mcp.example.com/mcp',
      'mcpServers.docs.url',
    ],
    [
      'mcp timeout',
      '{"mcp": {"toolTimeoutSeconds": 0}}',
      'f.json: mcp.toolTimeoutSeconds: expected a number of seconds above 0',
      'mcp.toolTimeoutSeconds',
    ],
    [
      'circuit breaker order',
      '{"circuitBreaker": {"warnAt": 50, "pauseAt": 40}}',
      'f.json: circuitBreaker.warnAt: must be less than pauseAt (40)',
      'circuitBreaker.warnAt',
    ],
    [
      'search provider',
      '{"search": {"provider": "google"}}',
      'f.json: search.provider: expected one of',
      'search.provider',
    ],
    [
      'keybinding value',
      '{"keybindings": {"tasks.toggle": 5}}',
      'f.json: keybindings["tasks.toggle"]: expected a key or a list of keys',
      'keybindings["tasks.toggle"]',
    ],
    [
      'a theme that does not exist',
      '{"theme": "solarized"}',
      'f.json: theme: expected one of auto, dark, light, high-contrast',
      'theme',
    ],
    [
      'negative timeout',
      '{"consentTimeoutSeconds": -1}',
      'f.json: consentTimeoutSeconds: expected 0 (wait forever)',
      'consentTimeoutSeconds',
    ],
  ])('%s', (_name, text, message, keyPath) => {
    const err = thrown(() => parseSettingsText(text, 'f.json'))
    expect(err.message.startsWith(message)).toBe(true)
    expect(err.file).toBe('f.json')
    expect(err.keyPath).toBe(keyPath)
    expect(err.exitCode).toBe(2)
  })

  it('lists every problem of a file', () => {
    const err = thrown(() => parseSettingsText('{"theme": 1, "extra": true}', 'f.json'))
    expect(err.message).toBe(
      'invalid settings in f.json:\n  theme: expected one of auto, dark, light, high-contrast\n  extra: unknown key "extra"',
    )
    expect(err.keyPath).toBe('theme')
  })
})

describe('parseSettingsText: valid content', () => {
  it('accepts every documented key', () => {
    const settings = {
      $schema: 'https://example.com/schema.json',
      model: 'qwen2.5-coder',
      baseUrl: 'http://127.0.0.1:11434/v1',
      apiKey: 'k',
      mode: 'auto',
      permissions: {
        allow: ['Read', 'Bash(npm test *)'],
        ask: ['Bash(git push *)'],
        deny: ['Read(~/.ssh/**)'],
      },
      models: {
        'qwen*': {
          contextLimit: 32768,
          compactAt: 0.7,
          observationWindow: 4,
          charToTokenRatio: 3.5,
          supportsTools: true,
        },
      },
      maxSteps: 40,
      search: { provider: 'searxng', url: 'http://localhost:8888', apiKeyEnv: 'SEARX_KEY' },
      mcpServers: {
        docs: { command: 'npx', args: ['docs-mcp'], env: { A: '1' }, toolTimeoutSeconds: 60 },
        remote: { url: 'https://mcp.example.com/mcp', headers: { x: 'y' } },
        typed: { type: 'stdio', command: 'db-mcp', startupTimeoutSeconds: 10 },
        legacy: {
          type: 'sse',
          url: '$' + '{MCP_BASE}/sse',
          headers: { Authorization: 'Bearer $' + '{TOKEN}' },
        },
      },
      mcp: { startupTimeoutSeconds: 20, toolTimeoutSeconds: 120 },
      consentTimeoutSeconds: 0,
      circuitBreaker: {
        warnAt: 20,
        pauseAt: 40,
        hardStopAt: 100,
        perToolLimit: 30,
        maxDurationSeconds: 600,
        silentBehavior: 'stop',
      },
      contextManagement: { observationWindow: 6, compactAt: 0.8, masking: true },
      keybindings: { 'tasks.toggle': 'ctrl+t', 'consent.approveOnce': ['y', 'enter'] },
      theme: 'dark',
      summarizerModel: 'small',
    }
    expect(parseSettingsText(JSON.stringify(settings), 'f.json')).toEqual(settings)
  })

  it.each(['', '   \n', '\uFEFF{}'])('treats %j as empty settings', (text) => {
    expect(parseSettingsText(text, 'f.json')).toEqual({})
  })
})

describe('mergeSettings', () => {
  it('later layers win; rules concatenate; objects merge per entry', () => {
    const merged = mergeSettings([
      {
        model: 'user-model',
        theme: 'dark',
        permissions: { allow: ['Read'], deny: ['Bash(rm *)'] },
        models: { 'qwen*': { contextLimit: 1000, compactAt: 0.5 } },
        circuitBreaker: { warnAt: 10 },
        search: { provider: 'brave', apiKeyEnv: 'BRAVE' },
        mcpServers: { a: { command: 'a' } },
      },
      {
        model: 'project-model',
        permissions: { allow: ['Edit(source/**)'] },
        models: { 'qwen*': { contextLimit: 2000 } },
        circuitBreaker: { pauseAt: 30 },
        search: { provider: 'searxng', url: 'http://s' },
        mcpServers: { a: { url: 'http://a' }, b: { command: 'b' } },
      },
      { model: 'local-model', permissions: { allow: ['Bash(npm test *)'], ask: ['WebFetch'] } },
    ])
    expect(merged).toEqual({
      model: 'local-model',
      theme: 'dark',
      permissions: {
        allow: ['Read', 'Edit(source/**)', 'Bash(npm test *)'],
        ask: ['WebFetch'],
        deny: ['Bash(rm *)'],
      },
      models: { 'qwen*': { contextLimit: 2000, compactAt: 0.5 } },
      circuitBreaker: { warnAt: 10, pauseAt: 30 },
      search: { provider: 'searxng', url: 'http://s' },
      mcpServers: { a: { url: 'http://a' }, b: { command: 'b' } },
    })
  })
})

describe('loadSettings', () => {
  it('works with no files at all', async () => {
    const loaded = await loadSettings({ cwd, env, home })
    expect(loaded.merged).toEqual({})
    // Claude Code's three files come first (lowest), then agent-tui's three.
    expect(loaded.sources.map((s) => [s.scope, s.exists, s.claudeCode !== undefined])).toEqual([
      ['user', false, true],
      ['project', false, true],
      ['local', false, true],
      ['user', false, false],
      ['project', false, false],
      ['local', false, false],
    ])
    expect(loaded.localSettingsPath).toBe(localFile())
  })

  it('applies local > project > user and records rule sources', async () => {
    await writeFile(
      userFile(),
      JSON.stringify({ model: 'u', theme: 'light', permissions: { deny: ['Read(~/.ssh/**)'] } }),
    )
    await writeFile(
      projectFile(),
      JSON.stringify({ model: 'p', maxSteps: 5, permissions: { allow: ['Bash(npm test *)'] } }),
    )
    await writeFile(localFile(), JSON.stringify({ model: 'l', permissions: { allow: ['Edit(source/**)'] } }))
    const loaded = await loadSettings({ cwd, env, home })
    expect(loaded.merged).toMatchObject({ model: 'l', theme: 'light', maxSteps: 5 })
    expect(loaded.merged.permissions?.allow).toEqual(['Bash(npm test *)', 'Edit(source/**)'])
    expect(loaded.rules.allow.map((r) => [r.text, r.source])).toEqual([
      ['Bash(npm test *)', '.agent-tui/settings.json'],
      ['Edit(source/**)', '.agent-tui/settings.local.json'],
    ])
    expect(loaded.rules.deny.map((r) => r.source)).toEqual([userFile()])
  })

  it('shows the user file with ~ when it lives under HOME', async () => {
    const underHome = { HOME: home }
    await mkdir(join(home, '.config', 'agent-tui'), { recursive: true })
    await writeFile(
      join(home, '.config', 'agent-tui', 'settings.json'),
      JSON.stringify({ permissions: { ask: ['Bash'] } }),
    )
    const loaded = await loadSettings({ cwd, env: underHome, home })
    expect(loaded.rules.ask.map((r) => r.source)).toEqual(['~/.config/agent-tui/settings.json'])
  })

  it('names the file that is invalid', async () => {
    await writeFile(projectFile(), '{"permissions": {"allow": ["Bash(npm test *)", "Edit("]}}')
    const err = await loadSettings({ cwd, env, home }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ConfigError)
    expect((err as ConfigError).message).toBe(
      `${projectFile()}: permissions.allow[1]: rule "Edit(" must end with ")" (form: Tool(specifier))`,
    )
    expect((err as ConfigError).file).toBe(projectFile())
  })

  it('reports a settings path that cannot be read', async () => {
    await mkdir(localFile())
    await expect(loadSettings({ cwd, env, home })).rejects.toThrow(`cannot read ${localFile()}`)
  })
})
