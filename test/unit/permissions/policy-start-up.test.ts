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
  opts: { workspace?: string; allow?: string[]; startUp?: StartUpPath[] } = {},
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

  it('ordinary files there stay writable, and NotebookEdit is judged like Edit', () => {
    expect(decide('auto', { tool: 'Edit', path: `${home}/notes/todo.md` }).decision).toBe('allow')
    expect(decide('auto', { tool: 'Edit', path: `${home}/.bashrc.bak` }).decision).toBe('allow')
    expect(decide('auto', { tool: 'NotebookEdit', path: `${home}/.ipython/x.ipynb` }).decision).toBe('allow')
    expect(decide('auto', { tool: 'NotebookEdit', path: `${home}/.vim/x.ipynb` }).decision).toBe('ask')
  })

  it.each<[string, Mode, Decision]>([
    ['echo evil >> .bashrc', 'auto', 'ask'],
    ['echo evil >> .bashrc', 'ci', 'deny'],
    ['echo evil >> ~/.zshrc', 'safe', 'ask'],
    ['echo x > notes.txt', 'auto', 'allow'],
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
