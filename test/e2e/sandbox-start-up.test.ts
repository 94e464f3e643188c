/**
 * Files that run code at a later start, outside the sandbox (permissions/start-up-files.ts), end to end:
 * headless `--sandbox --mode auto` with real bubblewrap against the scripted server. Nothing the model
 * writes unasked there runs at the user's next shell, login or folder open; ordinary files stay writable.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { osSandbox } from '../support/os-sandbox.ts'
import { runCli } from '../support/run-cli.ts'
import type { RecordedRequest } from '../support/scripted-server.ts'

const env = setupE2eEnv()

type Msg = { role: string; content: string }
const toolResults = (req: RecordedRequest | undefined) =>
  ((req?.body.messages as Msg[]) ?? []).filter((m) => m.role === 'tool').map((m) => m.content)
const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] })
type Trace = { tool_calls: Array<{ name: string; status: string }> }
const statuses = (stdout: string) => (JSON.parse(stdout) as Trace).tool_calls.map((c) => c.status)

const AUTO = ['-p', 'go', '--sandbox', '--mode', 'auto', '--output-format', 'json']
/** A program the policy cannot see into: only the sandbox stops its write. */
const program = (file: string, text = 'evil') =>
  call('Bash', { command: `"${process.execPath}" -e "require('fs').appendFileSync('${file}', '${text}')"` })

describe.runIf(osSandbox?.kind === 'bwrap')('start-up files under --sandbox --mode auto, headless', () => {
  it('the home directory as the workspace: start-up files ask, commands ask since the sandbox cannot hold, other edits ask but for an allow rule', async () => {
    const home = env.box.home
    writeFileSync(join(home, '.bashrc'), 'original\n. ~/.nvm/nvm.sh\n')
    mkdirSync(join(home, '.nvm'))
    writeFileSync(join(home, '.nvm', 'nvm.sh'), 'original\n')
    env.server.enqueue(
      call('Bash', { command: 'echo evil >> .bashrc' }),
      call('Write', { file_path: '.zshenv', content: 'evil\n' }),
      call('Bash', { command: 'touch notes.txt' }),
      // What ~/.bashrc sources is on no list: auto mode asks before any edit where the home is writable.
      call('Edit', { file_path: '.nvm/nvm.sh', old_string: 'original', new_string: 'evil' }),
      call('Write', { file_path: 'notes.md', content: 'ok\n' }),
      { text: 'done' },
    )
    const r = await runCli(
      ['--base-url', env.server.baseUrl, '--model', 'm', ...AUTO, '--allowed-tools', 'Edit(notes.md)'],
      { cwd: home, env: env.box.env, timeoutMs: 40_000 },
    )
    expect(r.code, r.stderr).toBe(0)
    expect(statuses(r.stdout)).toEqual(['denied', 'denied', 'denied', 'denied', 'done'])
    const [bashrc, zshenv, touch, nvm] = toolResults(env.server.requests.at(-1))
    expect(bashrc).toContain('writes to ~/.bashrc always ask (bash runs it in every interactive shell)')
    expect(zshenv).toContain('writes to ~/.zshenv always ask')
    expect(touch).toContain('the home directory is writable in the sandbox')
    expect(nvm).toContain('auto mode asks before edits here: the workspace holds your home directory')
    expect(readFileSync(join(home, '.bashrc'), 'utf8')).toBe('original\n. ~/.nvm/nvm.sh\n')
    expect(readFileSync(join(home, '.nvm', 'nvm.sh'), 'utf8')).toBe('original\n')
    expect(existsSync(join(home, '.zshenv'))).toBe(false)
    expect(readFileSync(join(home, 'notes.md'), 'utf8')).toBe('ok\n')
  })

  it('ci mode denies an edit of a start-up file in the home directory', async () => {
    env.server.enqueue(call('Write', { file_path: '.profile', content: 'evil\n' }), { text: 'done' })
    const r = await runCli(
      [
        '--base-url',
        env.server.baseUrl,
        '--model',
        'm',
        '-p',
        'go',
        '--mode',
        'ci',
        '--output-format',
        'json',
      ],
      { cwd: env.box.home, env: env.box.env, timeoutMs: 40_000 },
    )
    expect(statuses(r.stdout)).toEqual(['denied'])
    expect(toolResults(env.server.requests.at(-1))[0]).toContain('writes to ~/.profile always ask')
    expect(existsSync(join(env.box.home, '.profile'))).toBe(false)
  })

  it('a dotfiles repository ~/.bashrc links into: what it leads to is read-only in the sandbox and asks; the rest runs', async () => {
    const ws = env.box.workspace
    writeFileSync(join(ws, 'bashrc'), 'original\n')
    symlinkSync(join(ws, 'bashrc'), join(env.box.home, '.bashrc'))
    env.server.enqueue(
      program('bashrc'),
      call('Bash', { command: 'echo evil >> bashrc' }),
      call('Write', { file_path: 'bashrc', content: 'evil\n' }),
      call('Bash', { command: 'echo ok > zshrc.example' }),
      { text: 'done' },
    )
    const r = await env.cli(AUTO)
    expect(r.code, r.stderr).toBe(0)
    expect(statuses(r.stdout)).toEqual(['error', 'denied', 'denied', 'done'])
    const [planted, redirect] = toolResults(env.server.requests.at(-1))
    expect(planted).toContain('EROFS')
    expect(redirect).toContain(`writes to ${join(ws, 'bashrc')} (where ~/.bashrc leads) always ask`)
    expect(readFileSync(join(ws, 'bashrc'), 'utf8')).toBe('original\n')
    expect(readFileSync(join(ws, 'zshrc.example'), 'utf8')).toBe('ok\n')
  })

  it('a project’s .vscode/ cannot be planted or changed unasked; its other files can', async () => {
    const ws = env.box.workspace
    env.server.enqueue(
      call('Bash', {
        command: `"${process.execPath}" -e "require('fs').mkdirSync('.vscode/x', { recursive: true })"`,
      }),
      call('Write', { file_path: '.vscode/tasks.json', content: '{"tasks": []}\n' }),
      program('src.ts', 'ok'),
      { text: 'done' },
    )
    const missing = await env.cli(AUTO)
    expect(statuses(missing.stdout)).toEqual(['error', 'denied', 'done'])
    expect(toolResults(env.server.requests.at(-1))[1]).toContain(
      'writes to .vscode/ always ask (VS Code runs',
    )
    expect(existsSync(join(ws, '.vscode'))).toBe(false)
    expect(readFileSync(join(ws, 'src.ts'), 'utf8')).toBe('ok')

    mkdirSync(join(ws, '.vscode'))
    writeFileSync(join(ws, '.vscode', 'settings.json'), '{}\n')
    env.server.enqueue(program('.vscode/settings.json', '{"python.defaultInterpreterPath": "./evil"}'), {
      text: 'done',
    })
    const present = await env.cli(AUTO)
    expect(statuses(present.stdout)).toEqual(['error'])
    expect(readFileSync(join(ws, '.vscode', 'settings.json'), 'utf8')).toBe('{}\n')
  })
})
