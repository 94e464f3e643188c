import { describe, expect, it } from 'vitest'
import { type Decision, evaluate, type PolicyInput } from '../../../source/permissions/policy.js'
import { parseRule } from '../../../source/permissions/rules.js'
import { type StartUpPath, startUpPaths } from '../../../source/permissions/start-up-files.js'
import type { Mode } from '../../../source/store/domain.js'

/**
 * Files that run code at a later start, outside the sandbox (start-up-files.ts), ask before a Write,
 * Edit or shell write in every mode but dangerous — when the workspace is the home directory, when a
 * dotfiles repository holds what they link to, and a project's own .vscode/ and .idea/ at any depth.
 */

const home = '/home/u'

function decide(
  mode: Mode,
  call: { tool: string; path?: string; command?: string },
  opts: {
    workspace?: string
    additionalDirs?: string[]
    realHome?: string
    allow?: string[]
    startUp?: StartUpPath[]
  } = {},
) {
  const edit = call.command === undefined
  const input: PolicyInput = {
    mode,
    tool: call.tool,
    risk: edit ? 'edit' : 'exec',
    target: edit
      ? { kind: 'path', path: call.path!, access: 'write' }
      : { kind: 'command', command: call.command!, cwd: opts.workspace ?? home },
    readOnly: false,
    rules: { allow: (opts.allow ?? []).map((r) => parseRule(r, '--allowed-tools')), ask: [], deny: [] },
    workspace: opts.workspace ?? home,
    home,
    ...(opts.additionalDirs ? { additionalDirs: opts.additionalDirs } : {}),
    ...(opts.realHome ? { realHome: opts.realHome } : {}),
    ...(opts.startUp ? { startUp: opts.startUp } : {}),
  }
  return evaluate(input)
}

const MODES: Array<[Mode, Decision]> = [
  ['safe', 'ask'],
  ['auto', 'ask'],
  ['plan', 'deny'],
  ['ci', 'deny'],
  ['dangerous', 'allow'],
]

describe('start-up files in a workspace that is the home directory', () => {
  it.each(
    [
      `${home}/.bashrc`,
      `${home}/.zshenv`,
      `${home}/.profile`,
      `${home}/.gitconfig`,
      `${home}/.config/fish/config.fish`,
      `${home}/.config/git/config`,
      `${home}/.config/systemd/user/evil.service`,
      `${home}/.config/autostart/evil.desktop`,
      `${home}/.local/bin/git`,
      `${home}/bin/sudo`,
      `${home}/.vscode/extensions/x/extension.js`,
      `${home}/.BASHRC`,
      `${home}/.local/share/agent-tui/plugins/ralph-loop/hooks/stop-hook.sh`,
      `${home}/.local/share/agent-tui/plugins.json`,
    ].flatMap((path) => MODES.map(([mode, decision]) => [path, mode, decision] as const)),
  )('an Edit of %s in %s mode: %s', (path, mode, decision) => {
    expect(decide(mode, { tool: 'Edit', path }).decision).toBe(decision)
  })

  it('says what runs it', () => {
    expect(decide('auto', { tool: 'Write', path: `${home}/.bashrc` }).reason).toBe(
      'writes to ~/.bashrc always ask (bash runs it in every interactive shell)',
    )
    expect(decide('auto', { tool: 'Edit', path: `${home}/.config/fish/conf.d/x.fish` }).reason).toContain(
      'writes to ~/.config/fish/ always ask',
    )
  })

  it("names the plugins' hooks and MCP servers for agent-tui's data dir", () => {
    expect(
      decide('auto', { tool: 'Write', path: `${home}/.local/share/agent-tui/plugins/x/hooks/h.sh` }).reason,
    ).toBe(
      'writes to ~/.local/share/agent-tui/ always ask (agent-tui runs the hooks and MCP servers of the plugins installed there)',
    )
  })

  it('auto mode asks before every other edit there too: no list holds what ~/.bashrc sources', () => {
    const other = decide('auto', { tool: 'Edit', path: `${home}/.nvm/nvm.sh` })
    expect(other.decision).toBe('ask')
    expect(other.protectedWrite).toBeUndefined()
    expect(other.reason).toBe(
      'auto mode asks before edits here: the workspace holds your home directory, where what your shell and tools run when they next start (what ~/.bashrc sources, programs on PATH below ~) cannot all be known',
    )
    for (const tool of ['Write', 'NotebookEdit'])
      expect(decide('auto', { tool, path: `${home}/notes/todo.ipynb` }).decision).toBe('ask')
    // An allow rule still opens ordinary files; start-up files stay protected.
    const allow = ['Edit(~/notes/**)']
    expect(decide('auto', { tool: 'Edit', path: `${home}/notes/todo.md` }, { allow }).decision).toBe('allow')
    expect(decide('ci', { tool: 'Edit', path: `${home}/notes/todo.md` }, { allow }).decision).toBe('allow')
    expect(decide('auto', { tool: 'Edit', path: `${home}/.bashrc.bak` }).decision).toBe('ask')
    expect(decide('dangerous', { tool: 'Edit', path: `${home}/.nvm/nvm.sh` }).decision).toBe('allow')
  })

  it('an added directory that holds the home directory: its edits ask, the project’s do not', () => {
    const opts = { workspace: '/work/proj', additionalDirs: ['/home'] }
    expect(decide('auto', { tool: 'Edit', path: `${home}/.nvm/nvm.sh` }, opts).reason).toContain(
      '/home holds your home directory',
    )
    expect(decide('auto', { tool: 'Edit', path: '/work/proj/src/app.ts' }, opts).decision).toBe('allow')
    // The workspace inside the home directory is no writable root holding it.
    expect(
      decide('auto', { tool: 'Edit', path: `${home}/proj/a.ts` }, { workspace: `${home}/proj` }).decision,
    ).toBe('allow')
  })

  it('a home under a symlink is recognised by its real path', () => {
    const opts = { workspace: '/var/home/u', realHome: '/var/home/u' }
    expect(decide('auto', { tool: 'Edit', path: '/var/home/u/.nvm/nvm.sh' }, opts).decision).toBe('ask')
  })

  it.each<[string, Mode, Decision]>([
    ['echo evil >> .bashrc', 'auto', 'ask'],
    ['echo evil >> .bashrc', 'ci', 'deny'],
    ['echo evil >> ~/.zshrc', 'safe', 'ask'],
    // A redirection is an edit: auto mode asks before it here too.
    ['echo x > notes.txt', 'auto', 'ask'],
  ])('a shell write %j in %s mode: %s', (command, mode, decision) => {
    expect(decide(mode, { tool: 'Bash', command }).decision).toBe(decision)
  })

  it('protected paths beat allow rules, globs included', () => {
    const allow = ['Bash(sed *)', 'Bash(tee *)', 'Bash(cp *)']
    expect(decide('ci', { tool: 'Bash', command: 'sed -i s/a/b/ notes.txt' }, { allow }).decision).toBe(
      'allow',
    )
    for (const command of [
      'sed -i s/a/b/ .profile',
      'sed -i s/a/b/ ~/.b*',
      'tee -a .config/nvim/init.lua < x',
      'cp evil .local/bin/ls',
      'sed -i s/a/b/ .v*/settings.json',
    ])
      expect([command, decide('ci', { tool: 'Bash', command }, { allow }).decision]).toEqual([
        command,
        'deny',
      ])
  })
})

describe('start-up files elsewhere', () => {
  const workspace = '/work/proj'

  it('a project’s .vscode/ and .idea/ ask at any depth; its other files do not', () => {
    for (const path of [`${workspace}/.vscode/tasks.json`, `${workspace}/pkg/a/.idea/workspace.xml`])
      expect([path, decide('auto', { tool: 'Edit', path }, { workspace }).decision]).toEqual([path, 'ask'])
    expect(decide('auto', { tool: 'Edit', path: `${workspace}/src/app.ts` }, { workspace }).decision).toBe(
      'allow',
    )
    expect(
      decide('auto', { tool: 'Edit', path: `${workspace}/.vscode/tasks.json` }, { workspace }).reason,
    ).toBe(
      'writes to .vscode/ always ask (VS Code runs its tasks and the programs its settings name when the folder is opened)',
    )
  })

  it('what ~/.bashrc links to in a dotfiles repository asks, as the session resolves it', () => {
    const workspace = '/work/dotfiles'
    const startUp: StartUpPath[] = [
      ...startUpPaths({ home }),
      {
        path: `${workspace}/bash/bashrc`,
        kind: 'file',
        why: 'bash runs it',
        shown: 'dotfiles (where ~/.bashrc leads)',
      },
    ]
    const edit = (path: string) => decide('auto', { tool: 'Edit', path }, { workspace, startUp }).decision
    expect(edit(`${workspace}/bash/bashrc`)).toBe('ask')
    expect(edit(`${workspace}/README.md`)).toBe('allow')
  })

  it('zsh files are looked for at ZDOTDIR too, config at XDG_CONFIG_HOME', () => {
    const paths = startUpPaths({ home, zdotdir: `${home}/.config/zsh`, configHome: '/xdg' }).map(
      (p) => p.path,
    )
    expect(paths).toContain(`${home}/.zshrc`)
    expect(paths).toContain(`${home}/.config/zsh/.zshrc`)
    expect(paths).toContain('/xdg/fish')
    expect(paths).not.toContain(`${home}/.config/fish`)
  })
})
