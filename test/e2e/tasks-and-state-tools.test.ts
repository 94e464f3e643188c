import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isGone, waitFor } from '../unit/tasks/helpers.ts'
import { setupE2eEnv } from '../support/e2e-env.ts'
import type { RecordedRequest } from '../support/scripted-server.ts'

const env = setupE2eEnv()
const { cli } = env

type Msg = { role: string; content: string; tool_call_id?: string }
const lastToolResult = (req: RecordedRequest | undefined) =>
  ((req?.body.messages as Msg[]) ?? []).filter((m) => m.role === 'tool').at(-1)?.content ?? ''
const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] })
const pidIn = async (file: string) => Number((await readFile(join(env.box.workspace, file), 'utf8')).trim())

describe('background jobs through the CLI (dangerous mode)', () => {
  it('returns b1 at once, TaskOutput blocks for the full output, TaskStop kills the job tree', async () => {
    env.server.enqueue(
      call('Bash', { command: 'sleep 0.3; echo first-line; echo second-line', run_in_background: true }),
      call('TaskOutput', { task_id: 'b1', block: true, timeout: 20000 }),
      call('Bash', {
        command: '(sleep 300 & echo $! > grandchild.pid; wait) & echo $$ > leader.pid; wait',
        run_in_background: true,
      }),
      // Stop only once the job has started its tree (waits on the files, bounded by Bash's timeout).
      call('Bash', { command: 'until [ -s grandchild.pid ] && [ -s leader.pid ]; do sleep 0.02; done' }),
      call('TaskStop', { task_id: 'b2' }),
      call('TaskOutput', { task_id: 'b9' }),
      { text: 'all done' },
    )
    const r = await cli(['-p', 'jobs', '--mode', 'dangerous', '--output-format', 'json'])
    expect(r.code, r.stderr).toBe(0)
    expect(lastToolResult(env.server.requests[1])).toContain('b1')
    const output = lastToolResult(env.server.requests[2])
    expect(output).toContain('first-line')
    expect(output).toContain('second-line')
    expect(output).toMatch(/completed/)
    expect(lastToolResult(env.server.requests[5])).toMatch(/stop/i)
    const unknown = JSON.parse(lastToolResult(env.server.requests[6]))
    expect(unknown.error.message).toContain('b1')
    expect(unknown.error.message).toContain('b2')
    const leader = await pidIn('leader.pid')
    const grandchild = await pidIn('grandchild.pid')
    await waitFor(() => isGone(leader) && isGone(grandchild), 'the stopped job tree to be gone')
  })

  it('moves a foreground command that hits its timeout to the background as b2 and still collects it', async () => {
    env.server.enqueue(
      call('Bash', { command: 'echo warm', run_in_background: true }),
      call('Bash', { command: 'echo early; sleep 3; echo late', timeout: 1000 }),
      call('TaskOutput', { task_id: 'b2', block: true, timeout: 20000 }),
      { text: 'ok' },
    )
    const r = await cli(['-p', 'slow', '--mode', 'dangerous'])
    expect(r.code, r.stderr).toBe(0)
    const moved = lastToolResult(env.server.requests[2])
    expect(moved).toContain('b2')
    expect(moved).toContain('early')
    expect(lastToolResult(env.server.requests[3])).toContain('late')
  })

  it('keeps the logs of an earlier run when a resumed session starts its ids at b1 again', async () => {
    for (const word of ['first-run', 'second-run']) {
      env.server.enqueue(
        call('Bash', { command: `echo ${word}`, run_in_background: true }),
        call('TaskOutput', { task_id: 'b1', block: true, timeout: 20000 }),
        { text: 'ok' },
      )
      const r = await cli([
        '-p',
        'go',
        '--mode',
        'dangerous',
        ...(word === 'second-run' ? ['--continue'] : []),
      ])
      expect(r.code, r.stderr).toBe(0)
    }
    const outputs = join(env.box.home, '.local', 'state', 'agent-tui', 'outputs')
    // The outputs folder also holds the spill sweep's marker (.last-sweep): take the session's folder.
    const [session] = (await readdir(outputs)).filter((name) => !name.startsWith('.'))
    const runs = await readdir(join(outputs, String(session)))
    const logs = await Promise.all(
      runs
        .filter((r) => r.startsWith('run-'))
        .map((r) => readFile(join(outputs, String(session), r, 'tasks', 'b1.log'), 'utf8')),
    )
    expect(logs.sort()).toEqual(['first-run\n', 'second-run\n'])
  })

  it('leaves no job process behind when agent-tui exits', async () => {
    env.server.enqueue(
      call('Bash', { command: 'echo $$ > job.pid; exec sleep 300', run_in_background: true }),
      // Finish only once the job is really running, so the test knows its pid.
      call('Bash', { command: 'until [ -s job.pid ]; do sleep 0.02; done' }),
      { text: 'started a job' },
    )
    const r = await cli(['-p', 'start', '--mode', 'dangerous'])
    expect(r.code).toBe(0)
    const pid = await pidIn('job.pid')
    await waitFor(() => isGone(pid), 'the background job to be stopped at exit')
  })
})

describe('state and interaction tools in headless mode', () => {
  it('TodoWrite rejects two in_progress items and accepts a valid list', async () => {
    env.server.enqueue(
      call('TodoWrite', {
        todos: [
          { content: 'a', status: 'in_progress', activeForm: 'Doing a' },
          { content: 'b', status: 'in_progress', activeForm: 'Doing b' },
        ],
      }),
      call('TodoWrite', {
        todos: [
          { content: 'a', status: 'in_progress', activeForm: 'Doing a' },
          { content: 'b', status: 'pending', activeForm: 'Doing b' },
        ],
      }),
      { text: 'planned' },
    )
    const r = await cli(['-p', 'plan', '--output-format', 'json'])
    const trace = JSON.parse(r.stdout) as { tool_calls: Array<{ ok: boolean }> }
    expect(trace.tool_calls.map((c) => c.ok)).toEqual([false, true])
    expect(JSON.parse(lastToolResult(env.server.requests[1])).error.message).toMatch(/in_progress/)
  })

  it('AskUserQuestion and ExitPlanMode fail clearly, Config refuses mode', async () => {
    env.server.enqueue(
      call('AskUserQuestion', {
        questions: [
          {
            question: 'Which db?',
            header: 'DB',
            multiSelect: false,
            options: [
              { label: 'pg', description: 'Postgres' },
              { label: 'sqlite', description: 'SQLite' },
            ],
          },
        ],
      }),
      call('ExitPlanMode', { plan: 'do it' }),
      { text: 'fine' },
    )
    const r = await cli(['-p', 'ask', '--mode', 'plan'])
    expect(r.code).toBe(0)
    expect(lastToolResult(env.server.requests[1])).toContain('no user available')
    expect(lastToolResult(env.server.requests[2])).toMatch(/no user available/)
    // Even where the policy lets config calls through, the tool never changes permissions.
    env.server.enqueue(call('Config', { setting: 'mode', value: 'dangerous' }), { text: 'fine' })
    await cli(['-p', 'config', '--mode', 'dangerous'])
    expect(lastToolResult(env.server.requests.at(-1))).toMatch(/cannot be changed by the model/)
  })

  it('plan mode keeps the tool definitions byte-identical to safe mode and refuses Edit', async () => {
    await writeFile(join(env.box.workspace, 'f.txt'), 'one\n')
    env.server.enqueue({ text: 'safe run' })
    await cli(['-p', 'hello', '--mode', 'safe'])
    env.server.enqueue(
      call('Read', { file_path: 'f.txt' }),
      call('Edit', { file_path: 'f.txt', old_string: 'one', new_string: 'two' }),
      { text: 'could not edit' },
    )
    const r = await cli(['-p', 'change it', '--mode', 'plan', '--output-format', 'json'])
    expect(r.code).toBe(0)
    const tools = env.server.requests.map((q) => JSON.stringify(q.body.tools))
    expect(new Set(tools).size).toBe(1)
    const envelope = JSON.parse(lastToolResult(env.server.requests[3]))
    expect(envelope.error).toMatchObject({ tool: 'Edit', category: 'permission' })
    expect(await readFile(join(env.box.workspace, 'f.txt'), 'utf8')).toBe('one\n')
  })

  it('Write to an existing unread file and Edit after an external change are refused', async () => {
    await writeFile(join(env.box.workspace, 'g.txt'), 'original\n')
    env.server.enqueue(
      call('Write', { file_path: 'g.txt', content: 'clobbered\n' }),
      call('Read', { file_path: 'g.txt' }),
      call('Bash', { command: 'sleep 0.05; echo changed-outside > g.txt' }),
      call('Edit', { file_path: 'g.txt', old_string: 'changed-outside', new_string: 'x' }),
      { text: 'done' },
    )
    const r = await cli(['-p', 'write', '--mode', 'dangerous', '--output-format', 'json'])
    const trace = JSON.parse(r.stdout) as { tool_calls: Array<{ name: string; ok: boolean }> }
    expect(trace.tool_calls.map((c) => `${c.name}:${c.ok}`)).toEqual([
      'Write:false',
      'Read:true',
      'Bash:true',
      'Edit:false',
    ])
    expect(lastToolResult(env.server.requests[1])).toMatch(/Read/)
    expect(lastToolResult(env.server.requests[4])).toMatch(/changed|modified|stale/i)
    expect(await readFile(join(env.box.workspace, 'g.txt'), 'utf8')).toBe('changed-outside\n')
  })
})
