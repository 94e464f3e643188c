import { appendFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isGone, waitFor } from '../unit/tasks/helpers.ts'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { runCli } from '../support/run-cli.ts'

const env = setupE2eEnv()
const { cli } = env

function scriptReadEditBash() {
  env.server.enqueue(
    { toolCalls: [{ name: 'Read', arguments: { file_path: 'greeting.txt' } }] },
    {
      toolCalls: [
        { name: 'Edit', arguments: { file_path: 'greeting.txt', old_string: 'world', new_string: 'there' } },
      ],
    },
    { toolCalls: [{ name: 'Bash', arguments: { command: 'cat greeting.txt > seen.txt; pwd' } }] },
    { text: 'Greeting updated.' },
  )
}

type Msg = { role: string; content: string; tool_call_id?: string }
const messagesOf = (i: number) => (env.server.requests[i]?.body.messages ?? []) as Msg[]

type Trace = {
  result: string
  status: string
  steps: number
  tool_calls: Array<{ name: string; ok: boolean; status: string; duration_ms: number }>
  errors: string[]
  session_id: string
  usage: { input: number; output: number; cached: number }
}

describe('headless -p', () => {
  it('Read → Edit → Bash in dangerous mode edits the file, runs in the workspace and prints the trace', async () => {
    await writeFile(join(env.box.workspace, 'greeting.txt'), 'hello world\n')
    scriptReadEditBash()
    const r = await cli(['-p', 'fix the greeting', '--mode', 'dangerous', '--output-format', 'json'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const trace = JSON.parse(r.stdout) as Trace
    expect(trace.status).toBe('completed')
    expect(trace.result).toBe('Greeting updated.')
    expect(trace.tool_calls.map((c) => [c.name, c.ok])).toEqual([
      ['Read', true],
      ['Edit', true],
      ['Bash', true],
    ])
    expect(await readFile(join(env.box.workspace, 'greeting.txt'), 'utf8')).toBe('hello there\n')
    expect(await readFile(join(env.box.workspace, 'seen.txt'), 'utf8')).toBe('hello there\n')
    const bashResult = messagesOf(3).at(-1)
    expect(bashResult?.content).toContain(env.box.workspace)
  })

  it('refuses the Edit with a permission envelope in the default ci mode and leaves the file unchanged', async () => {
    await writeFile(join(env.box.workspace, 'greeting.txt'), 'hello world\n')
    scriptReadEditBash()
    const r = await cli(['-p', 'fix the greeting', '--output-format', 'json'])
    expect(r.code).toBe(0)
    const trace = JSON.parse(r.stdout) as Trace
    expect(trace.tool_calls.map((c) => c.status)).toEqual(['done', 'denied', 'denied'])
    const editResult = messagesOf(2).at(-1)
    const envelope = JSON.parse(editResult?.content ?? '{}')
    expect(envelope.error).toMatchObject({ tool: 'Edit', category: 'permission' })
    expect(await readFile(join(env.box.workspace, 'greeting.txt'), 'utf8')).toBe('hello world\n')
  })

  it('lets --allowed-tools permit a specific command in ci mode', async () => {
    env.server.enqueue(
      { toolCalls: [{ name: 'Bash', arguments: { command: 'mkdir made' } }] },
      { toolCalls: [{ name: 'Bash', arguments: { command: 'mkdir made2 > log.txt' } }] },
      { text: 'done' },
    )
    const r = await cli(['-p', 'go', '--allowed-tools', 'Bash(mkdir *)', '--output-format', 'json'])
    const calls = JSON.parse(r.stdout).tool_calls as Array<{ status: string }>
    // The rule covers the plain command; the redirection to a file is a write the rule does not cover.
    expect(calls.map((c) => c.status)).toEqual(['done', 'denied'])
    expect((await stat(join(env.box.workspace, 'made'))).isDirectory()).toBe(true)
  })

  it('prints the final text in text mode and appends stdin to the prompt', async () => {
    env.server.enqueue({ text: 'It says hi.' })
    const r = await cli(['-p', 'what does stdin say?'], { stdin: 'hi from a pipe' })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('It says hi.\n')
    const user = messagesOf(0).find((m) => m.role === 'user')
    expect(user?.content).toContain('what does stdin say?')
    expect(user?.content).toContain('hi from a pipe')
  })

  it('streams one JSON event per line with init, deltas, tool events and the result', async () => {
    env.server.enqueue({ toolCalls: [{ name: 'Glob', arguments: { pattern: '*' } }] }, { text: 'listed' })
    const r = await cli(['-p', 'list', '--output-format', 'stream-json'])
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string })
    const types = events.map((e) => e.type)
    expect(types[0]).toBe('init')
    expect(types).toContain('tool_use')
    expect(types).toContain('tool_result')
    expect(types).toContain('assistant_delta')
    expect(types.at(-1)).toBe('result')
  })

  it('shows retries as events and succeeds after a transient 503', async () => {
    env.server.enqueue({ status: 503, headers: { 'retry-after': '0' } }, { text: 'recovered' })
    const r = await cli(['-p', 'x', '--output-format', 'stream-json'])
    expect(r.code).toBe(0)
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string })
    expect(events.some((e) => e.type === 'retry')).toBe(true)
    expect(events.at(-1)).toMatchObject({ type: 'result', result: 'recovered' })
  })

  it('exits 1 with a clear message when the endpoint keeps failing', async () => {
    env.server.enqueue({ status: 401, body: { error: { message: 'bad key' } } })
    const r = await cli(['-p', 'x'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/authentication failed/i)
    expect(r.stderr).toContain(env.server.baseUrl)
  })

  it('exits 3 at the step limit after a final answer without tools', async () => {
    env.server.enqueue(
      { toolCalls: [{ name: 'Glob', arguments: { pattern: '*' } }] },
      { toolCalls: [{ name: 'Glob', arguments: { pattern: '*' } }] },
      { text: 'summary' },
    )
    const r = await cli(['-p', 'x', '--max-steps', '3'])
    expect(r.code).toBe(3)
    expect(r.stdout).toBe('summary\n')
    expect(env.server.requests.at(-1)?.body.tool_choice).toBe('none')
  })

  it('exits 2 naming the problem for a bad flag and for invalid settings', async () => {
    const bad = await cli(['--frobnicate'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--frobnicate')
    await mkdir(join(env.box.workspace, '.agent-tui'))
    await writeFile(
      join(env.box.workspace, '.agent-tui', 'settings.json'),
      '{"permissions": {"allow": [42]}}',
    )
    const invalid = await cli(['-p', 'x'])
    expect(invalid.code).toBe(2)
    expect(invalid.stderr).toContain('.agent-tui/settings.json')
    expect(invalid.stderr).toContain('permissions.allow[0]')
    expect(invalid.stderr).not.toMatch(/\bat .*\.js:\d+/)
  })

  it('explains that the full-screen session needs a terminal when run from a pipe without -p', async () => {
    const r = await cli(['fix it'], { stdin: '' })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('needs a terminal')
    expect(r.stderr).toContain('-p')
  })

  it('prints --version and --help without an endpoint', async () => {
    const v = await runCli(['--version'], { cwd: env.box.workspace, env: env.box.env })
    expect(v.code).toBe(0)
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/)
    const h = await runCli(['--help'], { cwd: env.box.workspace, env: env.box.env })
    expect(h.stdout).toContain('--output-format')
    expect(h.stdout).toContain('--dangerously-skip-permissions')
  })

  it('--continue resumes the session with its history and keeps the pairing rule', async () => {
    env.server.enqueue(
      { toolCalls: [{ name: 'Glob', arguments: { pattern: '*' } }] },
      { text: 'first answer' },
    )
    const first = await cli(['-p', 'first question', '--output-format', 'json'])
    const id = JSON.parse(first.stdout).session_id as string
    // A full-screen session opened and left without a message since: --continue passes over it.
    const dir = join(env.box.home, '.local', 'state', 'agent-tui', 'sessions')
    const project = join(dir, String((await readdir(dir))[0]))
    const header = (await readFile(join(project, `${id}.jsonl`), 'utf8')).split('\n')[0] as string
    const left = JSON.stringify({
      ...JSON.parse(header),
      id: '29990101-000000-abcdef',
      createdAt: Date.now(),
    })
    await writeFile(join(project, '29990101-000000-abcdef.jsonl'), `${left}\n`)
    env.server.enqueue({ text: 'second answer' })
    const second = await cli(['-p', 'second question', '--continue', '--output-format', 'json'])
    expect(JSON.parse(second.stdout).session_id).toBe(id)
    const messages = env.server.requests.at(-1)?.body.messages as Array<{ role: string; content: string }>
    expect(messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      'first question',
      'second question',
    ])
    expect(messages.some((m) => m.role === 'tool')).toBe(true)
    env.server.enqueue({ text: 'third' })
    const third = await cli(['-p', 'third', '--resume', id])
    expect(third.stdout).toBe('third\n')
  })

  it('skips a torn last line of a session with a warning and answers dangling tool calls on resume', async () => {
    env.server.enqueue({ text: 'one' })
    const first = await cli(['-p', 'one', '--output-format', 'json'])
    const id = JSON.parse(first.stdout).session_id as string
    const dir = join(env.box.home, '.local', 'state', 'agent-tui', 'sessions')
    const [project] = await readdir(dir)
    const file = join(dir, String(project), `${id}.jsonl`)
    // Simulate a crash: an assistant message with a tool call whose result never got written, then a torn line.
    const call = {
      id: 'call_dangling',
      type: 'function',
      function: { name: 'Glob', arguments: '{"pattern":"*"}' },
    }
    await appendFile(
      file,
      `${JSON.stringify({ type: 'assistant/settled', id: 'a9', message: { role: 'assistant', content: null, tool_calls: [call] } })}\n{"type":"tool/fin`,
    )
    env.server.enqueue({ text: 'resumed fine' })
    const r = await cli(['-p', 'go on', '--continue'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('resumed fine\n')
    expect(r.stderr).toContain('torn')
    const messages = env.server.requests.at(-1)?.body.messages as Array<{
      role: string
      tool_call_id?: string
    }>
    expect(messages.some((m) => m.role === 'tool' && m.tool_call_id === 'call_dangling')).toBe(true)
  })

  it('Ctrl+C (SIGINT) interrupts the turn: the command tree is killed, partial text kept, exit 130', async () => {
    env.server.enqueue(
      {
        text: 'Running the long check.',
        toolCalls: [
          {
            name: 'Bash',
            arguments: { command: '(sleep 300 & echo $! > child.pid; wait) & echo $$ > leader.pid; wait' },
          },
        ],
      },
      { text: 'never reached' },
    )
    let cliPid = 0
    const run = runCli(
      [
        '--base-url',
        env.server.baseUrl,
        '--model',
        'm',
        '-p',
        'check',
        '--mode',
        'dangerous',
        '--output-format',
        'json',
      ],
      { cwd: env.box.workspace, env: env.box.env, onSpawn: (pid) => (cliPid = pid) },
    )
    const pidFile = (name: string) => readFile(join(env.box.workspace, name), 'utf8').then(Number, () => 0)
    await waitFor(
      async () => (await pidFile('child.pid')) > 0 && (await pidFile('leader.pid')) > 0,
      'the command to start',
    )
    process.kill(cliPid, 'SIGINT')
    const r = await run
    expect(r.code).toBe(130)
    const trace = JSON.parse(r.stdout)
    expect(trace.status).toBe('interrupted')
    expect(trace.result).toBe('Running the long check.')
    expect(trace.tool_calls[0].status).toBe('cancelled')
    const child = await pidFile('child.pid')
    const leader = await pidFile('leader.pid')
    await waitFor(() => isGone(child) && isGone(leader), 'the interrupted command tree to be gone')
    expect(env.server.requests).toHaveLength(1)
  })

  it('--debug writes every action to a JSONL file and prints its path', async () => {
    env.server.enqueue({ text: 'hi' })
    const r = await cli(['-p', 'x', '--debug'])
    const path = /debug log written to (.+)$/m.exec(r.stderr)?.[1]
    expect(path).toBeTruthy()
    const types = (await readFile(String(path), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).type)
    expect(types).toContain('assistant/delta')
    expect(types).toContain('turn/ended')
  })
})
