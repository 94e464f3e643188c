// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${CLAUDE_PLUGIN_ROOT}` is Claude Code's placeholder, not a template
import { execFileSync } from 'node:child_process'
import { cp, mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { resolvePaths } from '../../../source/config/app-paths.js'
import { installUserCommands } from '../../../source/app/session/load-commands.js'
import { loadSessionSkills } from '../../../source/app/session/skills.js'
import { boundaryReaders } from '../../../source/app/session/instruction-readers.js'
import { BUILTIN_COMMANDS } from '../../../source/ui/commands/builtin-commands.js'
import { createCommandTable } from '../../../source/ui/commands/command-table.js'
import { addMarketplace, installPlugin, setEnabled } from '../../../source/plugins/install.js'
import { readMarketplace } from '../../../source/plugins/marketplace.js'
import { readPluginManifest } from '../../../source/plugins/manifest.js'
import { readRegistry } from '../../../source/plugins/registry.js'
import {
  loadSessionPlugins,
  sessionPluginLines,
  switchPlugin,
} from '../../../source/plugins/session-plugins.js'
import { readComponents } from '../../../source/plugins/components.js'

const OFFICIAL = join(import.meta.dirname, '../../fixtures/claude-code/anthropics-claude-plugins-official')
const fixture = (name: string) => join(OFFICIAL, 'plugins', name)

let root: string
let paths: ReturnType<typeof resolvePaths>
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-plugins-')))
  paths = resolvePaths({ HOME: join(root, 'home') })
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

describe("Anthropic's plugins, read as they are", () => {
  it.each([
    ['commit-commands', { commands: ['clean_gone', 'commit', 'commit-push-pr'], agents: [], skills: [] }],
    ['ralph-loop', { commands: ['cancel-ralph', 'help', 'ralph-loop'], agents: [], skills: [] }],
    [
      'example-plugin',
      { commands: ['example-command'], agents: [], skills: ['example-command', 'example-skill'] },
    ],
    [
      'pr-review-toolkit',
      {
        commands: ['review-pr'],
        agents: [
          'code-reviewer',
          'code-simplifier',
          'comment-analyzer',
          'pr-test-analyzer',
          'silent-failure-hunter',
          'type-design-analyzer',
        ],
        skills: [],
      },
    ],
  ])('%s', async (name, expected) => {
    const read = await readPluginManifest(fixture(name))
    if (!read.ok) throw new Error(read.error)
    expect(read.manifest.name).toBe(name)
    const components = await readComponents(fixture(name), read.manifest)
    expect(components).toMatchObject({ ...expected, problems: [] })
  })

  it("hooks/hooks.json and a bare .mcp.json (servers without the mcpServers key) are Claude Code's shapes", async () => {
    const security = await readPluginManifest(fixture('security-guidance'))
    if (!security.ok) throw new Error(security.error)
    const hooks = (await readComponents(fixture('security-guidance'), security.manifest)).hooks
    expect(hooks.PreToolUse?.[0]).toMatchObject({
      matcher: 'Edit|Write|MultiEdit',
      hooks: [
        { type: 'command', command: 'python3 "${CLAUDE_PLUGIN_ROOT}/hooks/security_reminder_hook.py"' },
      ],
    })
    const example = await readPluginManifest(fixture('example-plugin'))
    if (!example.ok) throw new Error(example.error)
    expect((await readComponents(fixture('example-plugin'), example.manifest)).mcpServers).toEqual({
      'example-server': { type: 'http', url: 'https://mcp.example.com/api' },
    })
  })

  it("the official marketplace: local folders, git URLs and other repositories' folders, each pinned", async () => {
    const market = await readMarketplace(OFFICIAL)
    expect(market.name).toBe('claude-plugins-official')
    expect(market.plugins.find((p) => p.name === 'ralph-loop')).toMatchObject({
      installable: true,
      source: './plugins/ralph-loop',
    })
    expect(market.plugins.find((p) => p.name === '42crunch-api-security-testing')).toEqual({
      name: '42crunch-api-security-testing',
      description: expect.any(String),
      installable: true,
      source: 'https://github.com/42Crunch-AI/claude-plugins.git',
      pick: {
        ref: 'v1.5.5',
        sha: '30287f5e3f122a646d1ac5ca3ab96e130c52a3ad',
        path: 'plugins/api-security-testing',
      },
    })
    expect(market.plugins.every((p) => p.installable)).toBe(true)
  })
})

describe('installing', () => {
  it('copies the folder into the data dir, disabled, and names it in the registry', async () => {
    const installed = await installPlugin(paths, fixture('ralph-loop'), { cwd: root })
    expect(installed.root).toBe(join(root, 'home/.local/share/agent-tui/plugins/ralph-loop'))
    expect(readRegistry(paths).plugins['ralph-loop']).toMatchObject({
      source: fixture('ralph-loop'),
      enabled: false,
      version: '1.0.0',
    })
    expect(await readdir(paths.pluginsDir)).toEqual(['ralph-loop'])
    await expect(installPlugin(paths, fixture('ralph-loop'), { cwd: root })).rejects.toThrow(
      'a plugin named ralph-loop is installed already (agent-tui plugin remove ralph-loop first)',
    )
  })

  it('refuses a plugin with a link out of its folder, and leaves nothing behind', async () => {
    const src = join(root, 'evil')
    await cp(fixture('security-guidance'), src, { recursive: true })
    await writeFile(join(root, 'elsewhere.json'), '{"hooks": {}}')
    await rm(join(src, 'hooks', 'hooks.json'))
    await symlink(join(root, 'elsewhere.json'), join(src, 'hooks', 'hooks.json'))
    await expect(installPlugin(paths, src, { cwd: root })).rejects.toThrow(
      'hooks/hooks.json is a link out of the folder',
    )
    expect(await readdir(paths.pluginsDir)).toEqual([])
    expect(readRegistry(paths).plugins).toEqual({})
  })

  it('a manifest path that leads out of the plugin is ignored, with a warning', async () => {
    const src = join(root, 'climber')
    await mkdir(join(src, '.claude-plugin'), { recursive: true })
    await writeFile(
      join(src, '.claude-plugin', 'plugin.json'),
      JSON.stringify({ name: 'climber', commands: ['../../outside', '/etc'], hooks: './hooks/extra.json' }),
    )
    const read = await readPluginManifest(src)
    if (!read.ok) throw new Error(read.error)
    expect(read.manifest.commands).toEqual([join(src, 'commands')])
    expect(read.warnings).toEqual([
      '.claude-plugin/plugin.json: "commands" "../../outside" leads out of the plugin; ignored',
      '.claude-plugin/plugin.json: "commands" "/etc" must be relative to the plugin ("./…"); ignored',
    ])
  })

  it('name@marketplace installs the folder the marketplace names', async () => {
    expect(await addMarketplace(paths, OFFICIAL, { cwd: root })).toMatchObject({
      name: 'claude-plugins-official',
    })
    const installed = await installPlugin(paths, 'security-guidance@claude-plugins-official', { cwd: root })
    expect(installed.name).toBe('security-guidance')
    await expect(installPlugin(paths, 'x@elsewhere', { cwd: root })).rejects.toThrow(
      'no marketplace named elsewhere is added (added: claude-plugins-official)',
    )
    await expect(installPlugin(paths, 'nope@claude-plugins-official', { cwd: root })).rejects.toThrow(
      'marketplace claude-plugins-official lists no plugin named nope',
    )
  })
})

describe('a local marketplace whose entry is a link', () => {
  const marketWith = async (link: string) => {
    const market = join(root, 'mkt')
    await mkdir(join(market, '.claude-plugin'), { recursive: true })
    await mkdir(join(market, 'plugins'))
    await symlink(link, join(market, 'plugins', 'linked'))
    const entry = { name: 'linked', description: 'a link', source: './plugins/linked' }
    await writeFile(
      join(market, '.claude-plugin', 'marketplace.json'),
      JSON.stringify({ name: 'mine', owner: { name: 'me' }, plugins: [entry] }),
    )
    await addMarketplace(paths, market, { cwd: root })
    return market
  }

  it('is judged where it leads: a link out of the marketplace is refused, nothing installed', async () => {
    await cp(fixture('security-guidance'), join(root, 'elsewhere', 'evil'), { recursive: true })
    await marketWith(join(root, 'elsewhere', 'evil'))
    await expect(installPlugin(paths, 'linked@mine', { cwd: root })).rejects.toThrow(
      'linked@mine: its source ./plugins/linked leads out of the marketplace',
    )
    expect(readRegistry(paths).plugins).toEqual({})
  })

  it('a link that stays inside the marketplace installs; a dangling one says why', async () => {
    const market = await marketWith('../shared/guard')
    await cp(fixture('security-guidance'), join(market, 'shared', 'guard'), { recursive: true })
    expect((await installPlugin(paths, 'linked@mine', { cwd: root })).name).toBe('security-guidance')
    await rm(join(market, 'shared'), { recursive: true })
    await rm(join(paths.pluginsDir, 'security-guidance'), { recursive: true })
    await expect(installPlugin(paths, 'linked@mine', { cwd: root })).rejects.toThrow(
      'linked@mine: its source ./plugins/linked cannot be read (ENOENT)',
    )
  })
})

describe('a marketplace entry in another repository (git-subdir), pinned to a commit', () => {
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, stdio: 'pipe' })
      .toString()
      .trim()

  it('installs that folder at that commit, and refuses a folder outside the repository', async () => {
    const src = join(root, 'repo')
    await cp(fixture('ralph-loop'), join(src, 'plugins', 'ralph-loop'), { recursive: true })
    git(root, 'init', '-q', src)
    git(src, 'add', '-A')
    git(src, 'commit', '-q', '-m', 'one')
    const pinned = git(src, 'rev-parse', 'HEAD')
    await writeFile(join(src, 'plugins', 'ralph-loop', 'README.md'), 'changed after the pin\n')
    git(src, 'commit', '-q', '-am', 'two')
    const bare = join(root, 'repo.git')
    git(root, 'clone', '-q', '--bare', src, bare)
    const market = join(root, 'market')
    await mkdir(join(market, '.claude-plugin'), { recursive: true })
    const entry = (name: string, path: string) => ({
      name,
      source: { source: 'git-subdir', url: `file://${bare}`, path, sha: pinned },
    })
    await writeFile(
      join(market, '.claude-plugin', 'marketplace.json'),
      JSON.stringify({
        name: 'team',
        plugins: [entry('ralph-loop', 'plugins/ralph-loop'), entry('climb', '..')],
      }),
    )
    await addMarketplace(paths, market, { cwd: root })
    const installed = await installPlugin(paths, 'ralph-loop@team', { cwd: root })
    expect(installed.components.commands).toEqual(['cancel-ralph', 'help', 'ralph-loop'])
    expect(await readFile(join(installed.root, 'README.md'), 'utf8')).not.toContain('changed after the pin')
    expect(await readdir(installed.root)).not.toContain('.git')
    await expect(installPlugin(paths, 'climb@team', { cwd: root })).rejects.toThrow(
      'the folder .. it names is not inside the repository',
    )
    expect((await readdir(paths.pluginsDir)).sort()).toEqual(['ralph-loop'])
  })
})

describe('a session', () => {
  it('loads the enabled plugins only: their hooks run with CLAUDE_PLUGIN_ROOT set', async () => {
    await installPlugin(paths, fixture('ralph-loop'), { cwd: root, enable: true })
    await installPlugin(paths, fixture('security-guidance'), { cwd: root })
    const loaded = await loadSessionPlugins(paths)
    expect(loaded.plugins.map((p) => p.name)).toEqual(['ralph-loop'])
    expect(loaded.hooks.hooks).toEqual([
      {
        event: 'Stop',
        matcher: '',
        command: 'bash "${CLAUDE_PLUGIN_ROOT}/hooks/stop-hook.sh"',
        timeoutSeconds: 60,
        scope: 'user',
        file: 'plugin ralph-loop',
        env: { CLAUDE_PLUGIN_ROOT: join(paths.pluginsDir, 'ralph-loop') },
      },
    ])
    setEnabled(paths, 'ralph-loop', false)
    expect((await loadSessionPlugins(paths)).plugins).toEqual([])
  })

  it('enabledPlugins in settings turn installed plugins on or off, and name the ones not installed', async () => {
    await installPlugin(paths, fixture('ralph-loop'), { cwd: root, enable: true })
    await installPlugin(paths, fixture('security-guidance'), { cwd: root })
    const loaded = await loadSessionPlugins(paths, {
      enabledPlugins: {
        'security-guidance@claude-plugins-official': true,
        'ralph-loop': false,
        'nope@m': true,
      },
      extraKnownMarketplaces: { team: { source: { source: 'github', repo: 'x/y' } } },
    })
    expect(loaded.plugins.map((p) => p.name)).toEqual(['security-guidance'])
    expect(loaded.warnings).toEqual([
      'plugins: "extraKnownMarketplaces" (team) is not fetched; add one with agent-tui plugin marketplace add <path | git-url>',
      'plugins: the settings enable nope@m, which is not installed (agent-tui plugin add nope@m)',
    ])
  })

  it('/plugin lists what the session loaded and what is installed but not loaded', async () => {
    await installPlugin(paths, fixture('ralph-loop'), { cwd: root, enable: true })
    await installPlugin(paths, fixture('security-guidance'), { cwd: root })
    const lines = sessionPluginLines(paths, (await loadSessionPlugins(paths)).plugins)
    expect(lines.slice(0, 3)).toEqual([
      expect.stringMatching(/^ralph-loop 1\.0\.0: Continuous self-referential AI loops/),
      '  commands: /ralph-loop:cancel-ralph, /ralph-loop:help, /ralph-loop:ralph-loop',
      '  hook Stop: bash "${CLAUDE_PLUGIN_ROOT}/hooks/stop-hook.sh" — runs outside the sandbox',
    ])
    expect(lines).toContain('Installed, not loaded: security-guidance (disabled)')
  })

  it('/plugin enable says what the plugin brings; an unknown name is named, with what is installed', async () => {
    await installPlugin(paths, fixture('security-guidance'), { cwd: root })
    expect(await switchPlugin(paths, 'security-guidance', true)).toEqual([
      'Enabled plugin security-guidance: sessions started from now on load what it brings:',
      '  hook PreToolUse (Edit|Write|MultiEdit): python3 "${CLAUDE_PLUGIN_ROOT}/hooks/security_reminder_hook.py" — runs outside the sandbox',
    ])
    expect(readRegistry(paths).plugins['security-guidance']?.enabled).toBe(true)
    expect(await switchPlugin(paths, 'nope', true)).toEqual([
      'no plugin named nope is installed (installed: security-guidance)',
    ])
  })

  it("offers the plugin's skills as plugin:name, readable from the installed folder", async () => {
    await installPlugin(paths, fixture('example-plugin'), { cwd: root, enable: true })
    const skills = await loadSessionSkills({
      paths,
      workspace: join(root, 'ws'),
      home: join(root, 'home'),
      read: boundaryReaders({
        workspace: join(root, 'ws'),
        home: join(root, 'home'),
        additionalDirs: [],
        appDirs: [paths.configDir, paths.stateDir, paths.dataDir],
        config: { rules: { allow: [], ask: [], deny: [] } },
      }),
      plugins: (await loadSessionPlugins(paths)).plugins,
    })
    expect(skills.problems).toEqual([])
    expect(skills.offered.map((s) => s.name)).toEqual([
      'example-plugin:example-command',
      'example-plugin:example-skill',
    ])
    expect(skills.catalog.find('example-plugin:example-skill')?.dir).toBe(
      join(paths.pluginsDir, 'example-plugin', 'skills', 'example-skill'),
    )
  })

  it('offers /plugin:name, and the bare name only when no built-in, user command or other plugin has it', async () => {
    await installPlugin(paths, fixture('ralph-loop'), { cwd: root, enable: true })
    await installPlugin(paths, fixture('commit-commands'), { cwd: root, enable: true })
    const other = join(root, 'other')
    await mkdir(join(other, 'commands'), { recursive: true })
    await writeFile(join(other, 'commands', 'commit.md'), 'Another commit')
    await installPlugin(paths, other, { cwd: root, enable: true })
    const home = join(root, 'home')
    await mkdir(join(paths.configDir, 'commands'), { recursive: true })
    await writeFile(join(paths.configDir, 'commands', 'clean_gone.md'), 'Mine')
    const table = createCommandTable(BUILTIN_COMMANDS)
    const reports: string[] = []
    await installUserCommands({
      table,
      paths,
      workspace: join(root, 'ws'),
      home,
      read: boundaryReaders({
        workspace: join(root, 'ws'),
        home,
        additionalDirs: [],
        appDirs: [paths.configDir, paths.stateDir, paths.dataDir],
        config: { rules: { allow: [], ask: [], deny: [] } },
      }),
      plugins: (await loadSessionPlugins(paths)).plugins,
      report: (text) => reports.push(text),
    })
    expect(reports).toEqual([])
    const of = (name: string) => table.find(name)?.name
    expect(of('ralph-loop:help')).toBe('ralph-loop:help')
    expect(of('help')).toBe('help') // the built-in
    expect(of('cancel-ralph')).toBe('ralph-loop:cancel-ralph')
    expect(of('commit-commands:commit')).toBe('commit-commands:commit')
    expect(of('other:commit')).toBe('other:commit')
    expect(of('commit')).toBeUndefined() // two plugins have it
    expect(of('clean_gone')).toBe('clean_gone') // the user's own
    expect(table.find('commit-commands:commit')?.description).toBe(
      'Create a git commit (plugin commit-commands)',
    )
    // ${CLAUDE_PLUGIN_ROOT} is put in before the file is read as a command.
    const ralph = table.find('ralph-loop:ralph-loop')
    const prompt = await ralph?.prompt?.('fix it')
    expect(JSON.stringify(prompt)).toContain(
      join(paths.pluginsDir, 'ralph-loop', 'scripts', 'setup-ralph-loop.sh'),
    )
  })
})
