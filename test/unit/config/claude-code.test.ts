import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  claudeCodePaths,
  type ExtensionLayer,
  extensionLayers,
  pickByName,
} from '../../../source/config/claude-code.ts'
import { translateClaudeSettings } from '../../../source/config/claude-settings.ts'
import { parseArgs } from '../../../source/config/flags.ts'
import {
  collectRules,
  type LoadedSettings,
  loadSettings,
  mergeSettings,
  readClaudeState,
  type SettingsSource,
} from '../../../source/config/load.ts'
import { resolveConfig } from '../../../source/config/resolve-config.ts'
import type { Settings } from '../../../source/config/schema.ts'
import { settingsEnv } from '../../../source/config/settings-env.ts'

describe("claudeCodePaths: where Claude Code's files are", () => {
  it('~/.claude and ~/.claude.json by default; CLAUDE_CONFIG_DIR moves both', () => {
    expect(claudeCodePaths({}, '/home/u', '/ws')).toEqual({
      userDir: '/home/u/.claude',
      userSettings: '/home/u/.claude/settings.json',
      userMemory: '/home/u/.claude/CLAUDE.md',
      userState: '/home/u/.claude.json',
      projectDir: '/ws/.claude',
      projectSettings: '/ws/.claude/settings.json',
      projectLocalSettings: '/ws/.claude/settings.local.json',
    })
    const moved = claudeCodePaths({ CLAUDE_CONFIG_DIR: '/cfg/claude' }, '/home/u', '/ws')
    expect([moved.userDir, moved.userState]).toEqual(['/cfg/claude', '/cfg/claude/.claude.json'])
    // A relative one is not guessed at.
    expect(claudeCodePaths({ CLAUDE_CONFIG_DIR: 'rel' }, '/home/u', '/ws').userDir).toBe('/home/u/.claude')
  })
})

describe('the one precedence: agent-tui before Claude Code, the project before the user', () => {
  const layers = extensionLayers('commands', {
    workspace: '/ws',
    configDir: '/home/u/.config/agent-tui',
    claude: claudeCodePaths({}, '/home/u', '/ws'),
  })
  it('layer order', () => {
    expect(layers.map((l) => l.dir)).toEqual([
      '/ws/.agent-tui/commands',
      '/home/u/.config/agent-tui/commands',
      '/ws/.claude/commands',
      '/home/u/.claude/commands',
    ])
    expect(
      extensionLayers('agents', { workspace: '/ws', configDir: '/c', claude: null }).map((l) => l.dir),
    ).toEqual(['/ws/.agent-tui/agents', '/c/agents'])
  })

  const [ownProject, ownUser, claudeProject, claudeUser] = layers as [
    ExtensionLayer,
    ExtensionLayer,
    ExtensionLayer,
    ExtensionLayer,
  ]
  const entry = (name: string, layer: ExtensionLayer, file: string) => ({ item: { name, file }, layer, file })
  it.each([
    [
      "agent-tui's user file beats Claude Code's project file, with a notice",
      [
        entry('ship', ownUser, '~/.config/agent-tui/commands/ship.md'),
        entry('ship', claudeProject, '.claude/commands/ship.md'),
      ],
      '~/.config/agent-tui/commands/ship.md',
      ['.claude/commands/ship.md'],
    ],
    [
      "Claude Code's project file beats its user file, silently (as in Claude Code)",
      [
        entry('Ship', claudeProject, '.claude/commands/Ship.md'),
        entry('ship', claudeUser, '~/.claude/commands/ship.md'),
      ],
      '.claude/commands/Ship.md',
      [],
    ],
    [
      "agent-tui's project file beats its user file, silently",
      [
        entry('ship', ownProject, '.agent-tui/commands/ship.md'),
        entry('ship', ownUser, '~/.config/agent-tui/commands/ship.md'),
      ],
      '.agent-tui/commands/ship.md',
      [],
    ],
  ])('%s', (_what, items, winner, hidden) => {
    const picked = pickByName(items, (name) => `/${name}`)
    expect(picked.kept.map((k) => k.file)).toEqual([winner])
    expect(picked.hidden.map((h) => h.file)).toEqual(hidden)
    for (const h of picked.hidden)
      expect(h.message).toBe(
        `/ship is also defined by ${winner}, which is used (agent-tui's own files come first)`,
      )
  })
})

describe('translateClaudeSettings: what maps, what is ignored and why', () => {
  it.each([
    [
      'permissions and defaultMode',
      { permissions: { allow: ['Bash(npm test *)'], deny: ['Read(./.env)'], defaultMode: 'acceptEdits' } },
      { permissions: { allow: ['Bash(npm test *)'], deny: ['Read(./.env)'] }, mode: 'auto' },
      [],
    ],
    [
      'hooks, one bad event does not take the others',
      {
        hooks: {
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'guard' }] }],
          Stop: 'nope',
        },
      },
      { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'guard' }] }] } },
      ['hooks.Stop'],
    ],
    [
      'env: numbers and booleans as Claude Code writes them',
      { env: { BASH_MAX_TIMEOUT_MS: 600000, DEBUG: true, NAME: 'x', BAD: { a: 1 } } },
      { env: { BASH_MAX_TIMEOUT_MS: '600000', DEBUG: 'true', NAME: 'x' } },
      ['env.BAD'],
    ],
    [
      'a model tier is ignored; a model name is a preference',
      { model: 'opus' },
      {},
      ['model ("opus" is a Claude Code model tier, not a model of this endpoint)'],
    ],
    [
      'a rule that does not parse is dropped, the rest kept',
      { permissions: { deny: ['Bash(rm -rf *)', 'Bash(', 3] } },
      { permissions: { deny: ['Bash(rm -rf *)'] } },
      ['permissions.deny[1]', 'permissions.deny[2]'],
    ],
    [
      'preferences with no meaning here, each named once with why',
      {
        statusLine: { type: 'command', command: 'x' },
        cleanupPeriodDays: 365,
        somethingNew: 1,
        $schema: 'x',
      },
      {},
      [
        'statusLine (agent-tui has no status-line command)',
        'cleanupPeriodDays',
        'somethingNew (not a Claude Code setting agent-tui knows)',
      ],
    ],
    [
      "sandbox.enabled maps; its network list is Claude Code's only",
      { sandbox: { enabled: true, network: { allowedDomains: [] } } },
      { sandbox: 'workspace-write' },
      ['sandbox.network'],
    ],
    [
      "enabledPlugins: agent-tui's own switches (installed plugins only); a value not true or false is named",
      { enabledPlugins: { 'evil@m': true, 'off@m': false, 'odd@m': 'yes' } },
      { enabledPlugins: { 'evil@m': true, 'off@m': false } },
      ['enabledPlugins.odd@m (expected true or false; agent-tui plugin enable odd turns it on)'],
    ],
    [
      'enabledPlugins that is no object is named with what it should be',
      { enabledPlugins: ['a'] },
      {},
      ['enabledPlugins (expected an object'],
    ],
  ])('%s', (_what, json, settings, ignored) => {
    const out = translateClaudeSettings(json)
    expect(out.settings).toEqual(settings)
    expect(out.ignored).toHaveLength(ignored.length)
    ignored.forEach((prefix, i) => {
      expect(out.ignored[i]?.startsWith(prefix)).toBe(true)
    })
  })

  it('a model name becomes the preferred model', () => {
    expect(translateClaudeSettings({ model: 'qwen2.5-coder:32b' }).preferredModel).toBe('qwen2.5-coder:32b')
  })

  it('never throws on what is not an object', () => {
    expect(translateClaudeSettings([1, 2]).ignored).toEqual(['(top level) (expected a JSON object)'])
  })
})

describe('settingsEnv', () => {
  it("sets the rest; agent-tui's own variables are named, not set", () => {
    expect(settingsEnv({ FOO: '1', AGENT_TUI_MODE: 'dangerous', OPENAI_BASE_URL: 'http://x' })).toEqual({
      apply: { FOO: '1' },
      skipped: ['AGENT_TUI_MODE', 'OPENAI_BASE_URL'],
    })
  })
})

describe('~/.claude.json and the settings files, read', () => {
  let root: string
  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'claude-json-')))
  })
  afterEach(() => rm(root, { recursive: true, force: true }))

  it("the user's servers and this folder's; another folder's not; a bad entry named", async () => {
    const file = join(root, '.claude.json')
    await writeFile(
      file,
      JSON.stringify({
        numStartups: 3,
        oauthAccount: { emailAddress: 'someone@example.com' },
        mcpServers: {
          memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
          broken: { nope: 1 },
        },
        projects: {
          [join(root, 'ws')]: { mcpServers: { memory: { type: 'http', url: 'http://127.0.0.1:9/mcp' } } },
          '/elsewhere': { mcpServers: { other: { command: 'x' } } },
        },
      }),
    )
    const source = await readClaudeState(file, join(root, 'ws'), '~/.claude.json')
    expect(source).toMatchObject({ scope: 'user', label: '~/.claude.json', exists: true })
    // This folder's `memory` wins over the user's, as in Claude Code.
    expect(source.settings).toEqual({
      mcpServers: { memory: { type: 'http', url: 'http://127.0.0.1:9/mcp' } },
    })
    expect(source.claudeCode?.ignored).toHaveLength(1)
    expect(source.claudeCode?.ignored[0]).toMatch(/^mcpServers\.broken \(/)
  })

  it('invalid JSON is named, not thrown; a missing file is nothing', async () => {
    await writeFile(join(root, 'bad.json'), '{"mcpServers": ')
    const bad = await readClaudeState(join(root, 'bad.json'), root, 'bad')
    expect(bad.claudeCode?.unreadable).toMatch(/^invalid JSON/)
    const missing = await readClaudeState(join(root, 'none.json'), root, 'none')
    expect(missing.exists).toBe(false)
  })

  it("loadSettings: Claude Code's files first (lowest), agent-tui's win; off with claudeDirs: false", async () => {
    const home = join(root, 'home')
    const ws = join(root, 'ws')
    const { mkdir } = await import('node:fs/promises')
    await mkdir(join(home, '.claude'), { recursive: true })
    await mkdir(join(ws, '.claude'), { recursive: true })
    await mkdir(join(ws, '.agent-tui'), { recursive: true })
    await writeFile(
      join(home, '.claude', 'settings.json'),
      JSON.stringify({ permissions: { deny: ['Bash(sudo *)'] } }),
    )
    await writeFile(
      join(ws, '.claude', 'settings.json'),
      JSON.stringify({ permissions: { defaultMode: 'plan' } }),
    )
    await writeFile(join(ws, '.claude', 'settings.local.json'), '{ not json')
    await writeFile(join(ws, '.agent-tui', 'settings.json'), JSON.stringify({ mode: 'safe' }))
    const env = { XDG_CONFIG_HOME: join(home, '.config') }
    const loaded = await loadSettings({ cwd: ws, env, home })
    expect(loaded.sources.map((s) => [s.label, s.exists, s.claudeCode !== undefined])).toEqual([
      ['~/.claude/settings.json', true, true],
      ['.claude/settings.json', true, true],
      ['.claude/settings.local.json', true, true],
      [expect.stringContaining('settings.json'), false, false],
      ['.agent-tui/settings.json', true, false],
      ['.agent-tui/settings.local.json', false, false],
    ])
    expect(loaded.merged.mode).toBe('safe')
    expect(loaded.rules.deny.map((r) => r.source)).toEqual(['~/.claude/settings.json'])
    expect(loaded.sources[2]?.claudeCode?.unreadable).toMatch(/^invalid JSON at 1:3/)
    const off = await loadSettings({ cwd: ws, env, home, claudeDirs: false })
    expect(off.sources.some((s) => s.claudeCode)).toBe(false)
  })
})

describe("resolveConfig with Claude Code's files", () => {
  const source = (
    scope: 'user' | 'project' | 'local',
    label: string,
    settings: Settings,
  ): SettingsSource => ({
    scope,
    label,
    path: `/x/${label}`,
    exists: true,
    settings,
    claudeCode: { ignored: [] },
  })
  const loadedOf = (sources: SettingsSource[]): LoadedSettings => ({
    merged: mergeSettings(sources.map((s) => s.settings)),
    sources,
    rules: collectRules(sources),
    localSettingsPath: '/x/.agent-tui/settings.local.json',
  })

  it("bypassPermissions from the repository's .claude/settings.local.json is refused; the user's own applies", () => {
    const repo = resolveConfig(
      parseArgs([]),
      loadedOf([source('local', '.claude/settings.local.json', { mode: 'dangerous' })]),
      {},
    )
    expect(repo.mode).toBe('safe')
    expect(repo.warnings.join('\n')).toContain('ignored "mode": "dangerous" in .claude/settings.local.json')
    const mine = resolveConfig(
      parseArgs([]),
      loadedOf([source('user', '~/.claude/settings.json', { mode: 'dangerous' })]),
      {},
    )
    expect(mine.mode).toBe('dangerous')
  })

  it('--no-claude-dirs, or "claudeDirs": false, turns the places off and says what did', () => {
    expect(resolveConfig(parseArgs(['--no-claude-dirs']), loadedOf([]), {})).toMatchObject({
      claudeDirs: false,
      claudeDirsOffBy: '--no-claude-dirs',
    })
    const off = resolveConfig(
      parseArgs([]),
      loadedOf([
        { ...source('user', 'mine', { claudeDirs: false }), claudeCode: undefined } as SettingsSource,
      ]),
      {},
    )
    expect(off.claudeDirs).toBe(false)
    expect(resolveConfig(parseArgs([]), loadedOf([]), {}).claudeDirs).toBe(true)
  })

  it('the most specific Claude Code model name is preferred; none when the places are off', () => {
    const files = [
      { ...source('user', '~/.claude/settings.json', {}), claudeCode: { ignored: [], preferredModel: 'a' } },
      { ...source('project', '.claude/settings.json', {}), claudeCode: { ignored: [], preferredModel: 'b' } },
    ]
    expect(resolveConfig(parseArgs([]), loadedOf(files), {}).preferredModel).toBe('b')
    expect(resolveConfig(parseArgs(['--no-claude-dirs']), loadedOf(files), {}).preferredModel).toBeUndefined()
  })
})
