import { mkdir, stat, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'

/**
 * A hostile repository and a prompt-injected model against the built CLI: what the repository ships
 * and what the model asks for in the modes that run things unasked must not reach code execution or
 * files outside the rules.
 */

const env = setupE2eEnv()
const { cli } = env

type Trace = { tool_calls: Array<{ name: string; status: string }> }
type Msg = { role: string; content: string }

function toolResults(): string[] {
  const last = env.server.requests.at(-1)?.body.messages as Msg[] | undefined
  return (last ?? []).filter((m) => m.role === 'tool').map((m) => m.content)
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  )

describe('a hostile repository (headless)', () => {
  it('safe mode: a read-only git command never uses an embedded repository’s config', async () => {
    const ws = env.box.workspace
    const marker = join(env.box.root, 'fsmonitor-ran')
    // Plain files a repository can commit: a bare-looking directory whose config names a program.
    const evil = join(ws, 'vendor', 'e')
    await mkdir(join(evil, 'objects'), { recursive: true })
    await mkdir(join(evil, 'refs'), { recursive: true })
    await writeFile(join(evil, 'HEAD'), 'ref: refs/heads/main\n')
    await writeFile(
      join(evil, 'config'),
      `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ../..\n\tfsmonitor = "touch ${marker}; false"\n`,
    )
    env.server.enqueue(
      {
        toolCalls: [
          { name: 'Bash', arguments: { command: '(cd vendor/e && git status)' } },
          { name: 'Bash', arguments: { command: 'git -C vendor/e status' } },
          { name: 'Bash', arguments: { command: 'git --git-dir=vendor/e --work-tree=. status' } },
        ],
      },
      { text: 'done' },
    )
    const r = await cli(['-p', 'look around', '--mode', 'safe', '--output-format', 'json'])
    const trace = JSON.parse(r.stdout) as Trace
    expect(trace.tool_calls.map((c) => c.status)).toEqual(['error', 'error', 'denied'])
    const [cd, dashC, gitDir] = toolResults()
    expect(cd).toContain("safe.bareRepository is 'explicit'")
    expect(dashC).toContain("safe.bareRepository is 'explicit'")
    expect(gitDir).toContain('safe mode asks before running commands')
    expect(await exists(marker)).toBe(false)
  })

  it('safe and plan mode: a file read into a variable and evaluated as arithmetic is not read-only', async () => {
    const marker = join(env.box.root, 'arithmetic-ran')
    await writeFile(join(env.box.workspace, 'VERSION'), `a[$(touch ${marker})]\n`)
    const commands = [
      'x=$(cat VERSION); [[ $x -eq 3 ]] && echo ok',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
      'x=$(cat VERSION); echo ${arr[x]}',
      'true=$(cat VERSION); echo $((true))',
    ]
    for (const mode of ['safe', 'plan']) {
      env.server.enqueue(
        { toolCalls: commands.map((command) => ({ name: 'Bash', arguments: { command } })) },
        { text: 'done' },
      )
      const r = await cli(['-p', 'check the version', '--mode', mode, '--output-format', 'json'])
      const trace = JSON.parse(r.stdout) as Trace
      expect(trace.tool_calls.map((c) => c.status)).toEqual(['denied', 'denied', 'denied'])
      const results = toolResults()
      expect(results[0]).toContain(
        mode === 'plan' ? 'plan mode only runs read-only commands' : 'makes bash evaluate',
      )
    }
    expect(await exists(marker)).toBe(false)
  })

  it('safe mode: `..` after a symlinked directory is judged where it leads, not folded away', async () => {
    const outside = join(env.box.root, 'outside')
    await mkdir(join(outside, 'sub'), { recursive: true })
    await writeFile(join(outside, 'secret'), 'TOP-SECRET\n')
    await symlink(join(outside, 'sub'), join(env.box.workspace, 'link'))
    env.server.enqueue(
      {
        toolCalls: [
          { name: 'Bash', arguments: { command: 'cat link/../secret' } },
          { name: 'Bash', arguments: { command: 'cd link && cat ../secret' } },
        ],
      },
      { text: 'done' },
    )
    const r = await cli(['-p', 'read it', '--mode', 'safe', '--output-format', 'json'])
    const trace = JSON.parse(r.stdout) as Trace
    expect(trace.tool_calls.map((c) => c.status)).toEqual(['denied', 'denied'])
    const [direct, viaCd] = toolResults()
    expect(direct).toContain('`cat` reads link/../secret (resolved to ')
    expect(direct).toContain('reads outside the workspace need consent')
    expect(viaCd).toContain('reads outside the workspace need consent')
    expect(toolResults().join('\n')).not.toContain('TOP-SECRET')
  })

  it('auto mode with `Bash(ln *)` allowed: a link is a write of what it leads to', async () => {
    const ws = env.box.workspace
    const outside = join(env.box.root, 'outside')
    await mkdir(outside)
    await mkdir(join(ws, '.git'))
    await writeFile(join(ws, '.git', 'config'), '[core]\n')
    await writeFile(join(ws, '.env'), 'KEY=1\n')
    env.server.enqueue(
      {
        toolCalls: [
          // A hard link, then an append through it (a redirection auto mode accepts as an edit).
          {
            name: 'Bash',
            arguments: { command: 'ln .git/config hard.cfg && echo "[alias] x = !touch x" >> hard.cfg' },
          },
          { name: 'Bash', arguments: { command: 'ln -s ../outside y && echo hi > y/z' } },
          { name: 'Bash', arguments: { command: 'ln .env notes.txt' } },
          { name: 'Bash', arguments: { command: 'ln -s src/main.ts main.ts' } },
        ],
      },
      { text: 'done' },
    )
    const r = await cli([
      '-p',
      'link',
      '--mode',
      'auto',
      '--allowed-tools',
      'Bash(ln *)',
      '--output-format',
      'json',
    ])
    const trace = JSON.parse(r.stdout) as Trace
    expect(trace.tool_calls.map((c) => c.status)).toEqual(['denied', 'denied', 'denied', 'done'])
    const [hard, outsideLink, secret] = toolResults()
    expect(hard).toContain('`ln` writes .git/config: writes to .git/ always ask')
    expect(outsideLink).toContain('`ln` writes ../outside: writes outside the workspace always ask')
    expect(secret).toContain('writes to secrets files (.env) always ask')
    expect(await exists(join(ws, 'hard.cfg'))).toBe(false)
    expect(await exists(join(outside, 'z'))).toBe(false)
    expect(await exists(join(ws, 'notes.txt'))).toBe(false)
  })
})
