/**
 * Files that run code at a later start, outside the sandbox (permissions/start-up-files.ts), where they
 * lie in a writable root: planned from real files, then with real bubblewrap a sandboxed command cannot
 * change them while ordinary files beside them stay writable.
 */
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { sandboxHolds, whySandboxLeaks } from '../../../source/permissions/sandbox-fence.js'
import { createBashSandbox, type SandboxStatus } from '../../../source/sandbox/bash-sandbox.js'
import { planFence } from '../../../source/sandbox/fence.js'
import { planStartUp } from '../../../source/sandbox/start-up-fence.js'
import { type ShellProcess, startShell } from '../../../source/tools/shell-process.js'
import { osSandbox } from '../../support/os-sandbox.ts'
import { makeTempDir } from '../tasks/helpers.js'

let root: string
let home: string
let cleanup: () => Promise<void>
const shells: ShellProcess[] = []

async function put(path: string, text = 'original\n'): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, text)
}

beforeEach(async () => {
  const temp = await makeTempDir()
  root = await realpath(temp.dir)
  cleanup = temp.cleanup
  home = join(root, 'home')
  await mkdir(join(home, '.config'), { recursive: true })
})

afterEach(async () => {
  for (const shell of shells.splice(0)) await shell.kill(0)
  await cleanup()
})

const plan = (projectRoots: string[], env: Record<string, string> = {}) =>
  planStartUp({ home, env, projectRoots, writable: projectRoots })

describe('planStartUp', () => {
  it('a workspace that is the home directory: existing ones read-only, missing folders reserved, and it does not hold', async () => {
    await put(join(home, '.bashrc'))
    await put(join(home, '.config', 'git', 'config'))
    await mkdir(join(home, '.local', 'bin'), { recursive: true })
    const later = plan([home])
    expect(later.readOnly).toEqual(
      expect.arrayContaining([
        join(home, '.bashrc'),
        join(home, '.config', 'git'),
        join(home, '.local', 'bin'),
      ]),
    )
    expect(later.reserved).toEqual(
      expect.arrayContaining([join(home, '.config', 'fish'), join(home, 'bin'), join(home, '.vscode')]),
    )
    expect(later.reservedFiles).toEqual(
      expect.arrayContaining([join(home, '.zshenv'), join(home, '.profile')]),
    )
    expect(later.leaks.join('\n')).toContain('the home directory is writable in the sandbox')
  })

  it('a dotfiles repository that ~/.bashrc links into: the file it leads to, and nothing else', async () => {
    const dotfiles = join(root, 'dotfiles')
    await put(join(dotfiles, 'bash', 'bashrc'))
    await put(join(dotfiles, 'README.md'))
    await symlink(join(dotfiles, 'bash', 'bashrc'), join(home, '.bashrc'))
    // A dangling link into it: writing through it would create the file.
    await symlink(join(dotfiles, 'profile'), join(home, '.profile'))
    const later = plan([dotfiles])
    expect(later.readOnly).toEqual([join(dotfiles, 'bash', 'bashrc')])
    expect(later.reservedFiles).toEqual([join(dotfiles, 'profile')])
    expect(later.leaks).toEqual([])
    // The links sit in the home directory, which is not writable in the sandbox.
    expect(later.replaceable).toEqual([])
  })

  it('a project: its .vscode and .idea, a link there replaceable; config homes from the environment', async () => {
    const ws = join(root, 'ws')
    await mkdir(join(ws, '.vscode'), { recursive: true })
    await symlink(join(root, 'elsewhere'), join(ws, '.idea'))
    const later = plan([ws], { XDG_CONFIG_HOME: join(ws, 'xdg') })
    expect(later.readOnly).toEqual([join(ws, '.vscode')])
    expect(later.replaceable).toEqual([join(ws, '.idea')])
    expect(later.reserved).toEqual(expect.arrayContaining([join(ws, 'xdg', 'fish'), join(ws, 'xdg', 'git')]))
  })

  it('a workspace inside such a folder would be read-only as a whole: it does not hold instead', async () => {
    const nvim = join(home, '.config', 'nvim')
    await put(join(nvim, 'init.lua'))
    const later = plan([nvim])
    expect(later.readOnly).not.toContain(nvim)
    expect(later.leaks).toEqual([`${nvim} is inside ~/.config/nvim, and Neovim runs it when it starts`])
  })

  it('the fence takes them in: bound read-only, reserved, and the missing files for Seatbelt', async () => {
    await put(join(home, '.bashrc'))
    const fence = planFence({ projectRoots: [home], scratchRoots: [], startUp: { home, env: {} } })
    expect(fence.readOnly).toContain(join(home, '.bashrc'))
    expect(fence.reserved).toContain(join(home, '.config', 'fish'))
    expect(fence.reservedFiles).toContain(join(home, '.zshrc'))
  })
})

async function statusFor(
  projectRoots: string[],
  outputs: string,
): Promise<Extract<SandboxStatus, { kind: 'on' }>> {
  const status = await createBashSandbox({
    network: false,
    projectRoots,
    scratchRoots: [outputs],
    env: { ...process.env, HOME: home },
  }).status()
  if (status.kind !== 'on') throw new Error(`the sandbox should work here: ${JSON.stringify(status)}`)
  return status
}

async function run(status: Extract<SandboxStatus, { kind: 'on' }>, command: string, cwd: string) {
  const shell = startShell({ command, cwd, sandbox: status.sandbox })
  shells.push(shell)
  let out = ''
  shell.onOutput((chunk) => {
    out += chunk
  })
  await shell.exited
  return out
}

describe.runIf(osSandbox?.kind === 'bwrap')('in bubblewrap', () => {
  it('a workspace that is the home directory: start-up files stay as they are, other files are writable', async () => {
    for (const name of ['.bashrc', '.profile', '.gitconfig', '.config/git/config'])
      await put(join(home, name))
    await mkdir(join(home, '.local', 'bin'), { recursive: true })
    const status = await statusFor([home], join(root, 'outputs'))
    const out = await run(
      status,
      [
        'echo evil >> .bashrc',
        'echo evil > .profile',
        'rm -f .gitconfig',
        'mv .config/git .config/git2',
        'echo evil > .local/bin/ls',
        'mkdir -p .config/fish/conf.d',
        'echo ok > notes.txt',
        'echo ok > .config/other.conf',
      ].join('; '),
      home,
    )
    expect(out).toContain('Read-only file system')
    for (const name of ['.bashrc', '.profile', '.gitconfig', '.config/git/config'])
      expect([name, readFileSync(join(home, name), 'utf8')]).toEqual([name, 'original\n'])
    expect(existsSync(join(home, '.local', 'bin', 'ls'))).toBe(false)
    expect(existsSync(join(home, '.config', 'fish', 'conf.d'))).toBe(false)
    expect(readFileSync(join(home, 'notes.txt'), 'utf8')).toBe('ok\n')
    expect(readFileSync(join(home, '.config', 'other.conf'), 'utf8')).toBe('ok\n')
    // The placeholder for the missing fish folder is gone once no command runs.
    expect(existsSync(join(home, '.config', 'fish'))).toBe(false)
    // A missing ~/.zshenv could still be created, and no list covers what ~/.bashrc sources: it does not hold.
    expect(sandboxHolds(status.view)).toBe(false)
    expect(whySandboxLeaks(status.view)).toContain('the home directory is writable in the sandbox')
  })

  it('a dotfiles repository ~/.bashrc links into: what it leads to is read-only, the rest writable, and it holds', async () => {
    const dotfiles = join(root, 'dotfiles')
    await put(join(dotfiles, 'bashrc'))
    await symlink(join(dotfiles, 'bashrc'), join(home, '.bashrc'))
    const status = await statusFor([dotfiles], join(root, 'outputs'))
    const out = await run(status, 'echo evil >> bashrc; rm -f bashrc; echo ok > README.md', dotfiles)
    expect(out).toMatch(/Read-only file system|Device or resource busy/)
    expect(readFileSync(join(dotfiles, 'bashrc'), 'utf8')).toBe('original\n')
    expect(readFileSync(join(dotfiles, 'README.md'), 'utf8')).toBe('ok\n')
    expect(sandboxHolds(status.view)).toBe(true)
  })

  it('a project’s .vscode stays as it is, and a missing .idea cannot be made', async () => {
    const ws = join(root, 'ws')
    await put(join(ws, '.vscode', 'settings.json'), '{}\n')
    await put(join(ws, 'pkg', '.vscode', 'settings.json'), '{}\n')
    const status = await statusFor([ws], join(root, 'outputs'))
    const out = await run(
      status,
      `echo '{"tasks":[{"runOptions":{"runOn":"folderOpen"}}]}' > .vscode/tasks.json; echo x > pkg/.vscode/tasks.json; mkdir -p .idea/x; echo ok > src.ts`,
      ws,
    )
    expect(out).toContain('Read-only file system')
    expect(existsSync(join(ws, '.vscode', 'tasks.json'))).toBe(false)
    // An existing nested one too (a session or an IDE opened on pkg/ reads it).
    expect(existsSync(join(ws, 'pkg', '.vscode', 'tasks.json'))).toBe(false)
    expect(existsSync(join(ws, '.idea'))).toBe(false)
    expect(readFileSync(join(ws, 'src.ts'), 'utf8')).toBe('ok\n')
    expect(sandboxHolds(status.view)).toBe(true)
  })
})
