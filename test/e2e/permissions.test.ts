import { mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { runCli } from '../support/run-cli.ts'

const env = setupE2eEnv()
const { cli } = env

type Trace = {
  status: string
  tool_calls: Array<{ name: string; status: string }>
}

type Msg = { role: string; content: string; tool_call_id?: string }

/** The tool results the model got, in order. */
function toolResults(): string[] {
  const last = env.server.requests.at(-1)?.body.messages as Msg[] | undefined
  return (last ?? []).filter((m) => m.role === 'tool').map((m) => m.content)
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  )

describe('permissions end to end (headless)', () => {
  it('auto mode: an Edit through `gitlink -> .git` is a write to .git/ and is refused', async () => {
    const ws = env.box.workspace
    const config = '[core]\n\trepositoryformatversion = 0\n'
    await mkdir(join(ws, '.git', 'hooks'), { recursive: true })
    await writeFile(join(ws, '.git', 'config'), config)
    await symlink('.git', join(ws, 'gitlink'))
    env.server.enqueue(
      { toolCalls: [{ name: 'Read', arguments: { file_path: 'gitlink/config' } }] },
      {
        toolCalls: [
          {
            name: 'Edit',
            arguments: {
              file_path: 'gitlink/config',
              old_string: '[core]',
              new_string: '[core]\n\tfsmonitor = "touch /tmp/X"',
            },
          },
          {
            name: 'Write',
            arguments: { file_path: 'gitlink/hooks/pre-commit', content: '#!/bin/sh\ntouch X\n' },
          },
        ],
      },
      { text: 'done' },
    )
    const r = await cli(['-p', 'harden git', '--mode', 'auto', '--output-format', 'json'])
    expect(r.code).toBe(0)
    const trace = JSON.parse(r.stdout) as Trace
    expect(trace.tool_calls.map((c) => [c.name, c.status])).toEqual([
      ['Read', 'done'],
      ['Edit', 'denied'],
      ['Write', 'denied'],
    ])
    const [, edit, write] = toolResults()
    expect(edit).toContain('writes to .git/ always ask (gitlink/config resolves to .git/config)')
    // No allow rule opens a protected write, so the hint does not offer one.
    expect(edit).toContain('not opened by allow rules')
    expect(edit).not.toContain('--allowed-tools')
    expect(write).toContain('gitlink/hooks/pre-commit resolves to .git/hooks/pre-commit')
    expect(await readFile(join(ws, '.git', 'config'), 'utf8')).toBe(config)
    expect(await exists(join(ws, '.git', 'hooks', 'pre-commit'))).toBe(false)
  })

  it('ci mode: --allowed-tools "Bash(touch *)" does not reach outside the workspace', async () => {
    const outside = join(env.box.root, 'outside')
    await mkdir(outside)
    env.server.enqueue(
      { toolCalls: [{ name: 'Bash', arguments: { command: 'touch ../outside/x' } }] },
      { toolCalls: [{ name: 'Bash', arguments: { command: 'touch inside.txt' } }] },
      { text: 'done' },
    )
    const r = await cli(['-p', 'touch', '--allowed-tools', 'Bash(touch *)', '--output-format', 'json'])
    const trace = JSON.parse(r.stdout) as Trace
    expect(trace.tool_calls.map((c) => c.status)).toEqual(['denied', 'done'])
    expect(toolResults()[0]).toContain('`touch` writes ../outside/x: writes outside the workspace always ask')
    expect(await exists(join(outside, 'x'))).toBe(false)
    expect(await exists(join(env.box.workspace, 'inside.txt'))).toBe(true)
  })

  it('dangerous mode: --disallowed-tools "Bash(rm *)" holds through bash -c, timeout and a variable', async () => {
    const victim = join(env.box.workspace, 'victim.txt')
    await writeFile(victim, 'keep me\n')
    env.server.enqueue(
      {
        toolCalls: [
          { name: 'Bash', arguments: { command: "bash -c 'rm victim.txt'" } },
          { name: 'Bash', arguments: { command: 'timeout 5 rm victim.txt' } },
          { name: 'Bash', arguments: { command: 'RM=rm; $RM victim.txt' } },
        ],
      },
      { text: 'done' },
    )
    const r = await cli([
      '-p',
      'clean up',
      '--mode',
      'dangerous',
      '--disallowed-tools',
      'Bash(rm *)',
      '--output-format',
      'json',
    ])
    const trace = JSON.parse(r.stdout) as Trace
    expect(trace.tool_calls.map((c) => c.status)).toEqual(['denied', 'denied', 'denied'])
    const [bashC, timeout, variable] = toolResults()
    expect(bashC).toContain(
      "rule Bash(rm *) in --disallowed-tools denies `bash -c 'rm victim.txt'` (it runs `rm` through bash -c)",
    )
    expect(timeout).toContain('(it runs `rm` through timeout)')
    expect(variable).toContain('a program whose name is only known when it runs')
    expect(await readFile(victim, 'utf8')).toBe('keep me\n')
  })

  it('a Read deny rule holds for a Grep or Glob of the folder above: the denied files are left out', async () => {
    const ws = env.box.workspace
    await mkdir(join(ws, 'private'))
    await writeFile(join(ws, 'private', 'salaries.txt'), 'needle: 120000\n')
    await writeFile(join(ws, 'notes.txt'), 'needle: public\n')
    env.server.enqueue(
      {
        toolCalls: [
          { name: 'Grep', arguments: { pattern: 'needle', output_mode: 'content' } },
          { name: 'Grep', arguments: { pattern: 'needle', path: '.' } },
          { name: 'Grep', arguments: { pattern: 'needle', output_mode: 'count' } },
          { name: 'Glob', arguments: { pattern: '**/*.txt' } },
        ],
      },
      { text: 'done' },
    )
    const r = await cli([
      '-p',
      'search',
      '--mode',
      'dangerous',
      '--disallowed-tools',
      'Read(private/**)',
      '--output-format',
      'json',
    ])
    expect((JSON.parse(r.stdout) as Trace).tool_calls.map((c) => c.status)).toEqual([
      'done',
      'done',
      'done',
      'done',
    ])
    const [content, files, count, glob] = toolResults()
    expect(content).toContain('notes.txt:1:needle: public')
    expect(files).toContain('notes.txt')
    expect(count).toContain('notes.txt:1')
    expect(glob).toContain('notes.txt')
    for (const result of [content, files, count, glob]) {
      expect(result).not.toContain('salaries')
      expect(result).toContain('left out: rule Read(private/**) in --disallowed-tools denies reading them')
    }
    expect(JSON.stringify(env.server.requests.map((q) => q.body.messages))).not.toContain('120000')
  })

  it("started in the home folder, auto mode does not rewrite agent-tui's own settings or trusted folders unasked", async () => {
    const home = env.box.home
    const settings = join(home, '.config', 'agent-tui', 'settings.json')
    await mkdir(join(home, '.config', 'agent-tui'), { recursive: true })
    await writeFile(settings, '{}\n')
    env.server.enqueue(
      {
        toolCalls: [
          {
            name: 'Write',
            arguments: {
              file_path: '.config/agent-tui/settings.json',
              content: '{"permissions":{"allow":["Bash"]}}',
            },
          },
          {
            name: 'Bash',
            arguments: { command: `echo '{"trusted":[]}' > .local/state/agent-tui/trusted-folders.json` },
          },
          { name: 'Write', arguments: { file_path: 'notes.md', content: 'mine\n' } },
        ],
      },
      { text: 'done' },
    )
    const r = await runCli(
      [
        '--base-url',
        env.server.baseUrl,
        '--model',
        'm',
        '-p',
        'go',
        '--mode',
        'auto',
        '--output-format',
        'json',
        // Auto mode asks before any edit where the home folder is writable: an allow rule opens one.
        '--allowed-tools',
        'Edit(notes.md)',
      ],
      { cwd: home, env: env.box.env, timeoutMs: 40_000 },
    )
    expect((JSON.parse(r.stdout) as Trace).tool_calls.map((c) => c.status)).toEqual([
      'denied',
      'denied',
      'done',
    ])
    expect(toolResults()[0]).toContain("writes to agent-tui's own settings and state always ask")
    expect(await readFile(settings, 'utf8')).toBe('{}\n')
    expect(await exists(join(home, 'notes.md'))).toBe(true)
  })

  it('ci mode: reads outside the workspace are refused, for Read and for an allowed `cat`, unless --add-dir', async () => {
    const outside = join(env.box.root, 'elsewhere')
    await mkdir(outside)
    const secret = join(outside, 'shadow')
    await writeFile(secret, 'root:$6$hash\n')
    const script = () =>
      env.server.enqueue(
        { toolCalls: [{ name: 'Read', arguments: { file_path: secret } }] },
        { toolCalls: [{ name: 'Bash', arguments: { command: `cat ${secret}` } }] },
        { text: 'done' },
      )
    script()
    const refused = await cli(['-p', 'read it', '--allowed-tools', 'Bash(cat *)', '--output-format', 'json'])
    expect((JSON.parse(refused.stdout) as Trace).tool_calls.map((c) => c.status)).toEqual([
      'denied',
      'denied',
    ])
    const [read, cat] = toolResults()
    expect(read).toContain('reads outside the workspace need consent')
    expect(cat).toContain(`\`cat\` reads ${secret}: reads outside the workspace need consent`)
    expect(JSON.stringify(env.server.requests.map((q) => q.body.messages))).not.toContain('root:$6$hash')

    script()
    const added = await cli([
      '-p',
      'read it',
      '--allowed-tools',
      'Bash(cat *)',
      '--add-dir',
      outside,
      '--output-format',
      'json',
    ])
    expect((JSON.parse(added.stdout) as Trace).tool_calls.map((c) => c.status)).toEqual(['done', 'done'])
    expect(toolResults().join('\n')).toContain('root:$6$hash')
  })

  it("a repository's own additionalDirectories widen the boundary only once its folder is trusted", async () => {
    const outside = join(env.box.root, 'shared')
    await mkdir(outside)
    await writeFile(join(outside, 'notes.md'), 'shared notes\n')
    await mkdir(join(env.box.workspace, '.agent-tui'))
    await writeFile(
      join(env.box.workspace, '.agent-tui', 'settings.json'),
      JSON.stringify({ additionalDirectories: [outside] }),
    )
    const script = () =>
      env.server.enqueue(
        { toolCalls: [{ name: 'Read', arguments: { file_path: join(outside, 'notes.md') } }] },
        { text: 'done' },
      )
    script()
    const untrusted = await cli(['-p', 'read', '--output-format', 'json'])
    expect((JSON.parse(untrusted.stdout) as Trace).tool_calls.map((c) => c.status)).toEqual(['denied'])
    script()
    const trusted = await cli(['-p', 'read', '--trust-project', '--output-format', 'json'])
    expect((JSON.parse(trusted.stdout) as Trace).tool_calls.map((c) => c.status)).toEqual(['done'])
  })

  it('--add-dir with a path that is not a directory is a usage error', async () => {
    const r = await cli(['-p', 'x', '--add-dir', 'no/such/dir'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--add-dir no/such/dir')
    expect(r.stderr).toContain('is not a directory')
  })
})
