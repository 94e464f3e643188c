/**
 * Headless runs of the built CLI against the scripted server for the daily-driver rough edges of issue #21:
 * --cwd, stream-json/json tool arguments and results, @path attachments, denials, finished background jobs.
 */
import { writeFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'

const env = setupE2eEnv()
const { cli } = env

type Event = { type: string; [key: string]: unknown }
type Msg = { role: string; content: string | Array<{ type: string; text?: string }>; tool_call_id?: string }
const messagesOf = (i: number) => (env.server.requests[i]?.body.messages ?? []) as Msg[]
const lastMessage = (i: number) => messagesOf(i).at(-1) as Msg

const eventsOf = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Event)

describe('--cwd', () => {
  it('works in the named folder instead of the current directory', async () => {
    const project = join(env.box.root, 'project')
    await mkdir(project)
    await writeFile(join(project, 'hello.txt'), 'hello from the project\n')
    env.server.enqueue(
      { toolCalls: [{ name: 'Read', arguments: { file_path: 'hello.txt' } }] },
      { text: 'read it' },
    )
    const r = await cli(['--cwd', project, '-p', 'read hello.txt', '--output-format', 'stream-json'])
    expect(r.code).toBe(0)
    const events = eventsOf(r.stdout)
    expect(events[0]).toMatchObject({ type: 'init', cwd: project })
    expect(lastMessage(1).content).toContain('hello from the project')
  })

  it('exits 2 naming a folder that does not exist', async () => {
    const r = await cli(['--cwd', join(env.box.root, 'nope'), '-p', 'x'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--cwd')
    expect(r.stderr).toContain('no such directory')
    expect(env.server.requests).toHaveLength(0)
  })
})

describe('tool calls in json and stream-json output', () => {
  async function scriptReadAndDeniedBash() {
    await writeFile(join(env.box.workspace, 'notes.txt'), 'alpha\nbeta\n')
    env.server.enqueue(
      { toolCalls: [{ name: 'Read', arguments: { file_path: 'notes.txt', limit: 5 } }] },
      { toolCalls: [{ name: 'Bash', arguments: { command: 'touch made.txt', description: 'make a file' } }] },
      { text: 'done' },
    )
  }

  it('stream-json: tool_use carries the arguments, tool_result the result and the error text', async () => {
    await scriptReadAndDeniedBash()
    const r = await cli(['-p', 'go', '--output-format', 'stream-json'])
    expect(r.code).toBe(0)
    const events = eventsOf(r.stdout)
    const uses = events.filter((e) => e.type === 'tool_use')
    expect(uses.map((e) => [e.name, e.input])).toEqual([
      ['Read', { file_path: 'notes.txt', limit: 5 }],
      ['Bash', { command: 'touch made.txt', description: 'make a file' }],
    ])
    const results = events.filter((e) => e.type === 'tool_result')
    expect(results[0]).toMatchObject({ name: 'Read', ok: true, is_error: false, status: 'done' })
    expect(results[0]?.content).toContain('alpha')
    expect(results[0]?.id).toBe(uses[0]?.id)
    expect(results[1]).toMatchObject({ name: 'Bash', ok: false, is_error: true, status: 'denied' })
    expect(results[1]?.error).toMatch(/Bash needs approval|denied/)
    expect(results[1]?.error_category).toBe('permission')
    expect(String(results[1]?.content)).toContain('"category":"permission"')
    // Each tool_use comes before its result.
    expect(events.indexOf(uses[1] as Event)).toBeLessThan(events.indexOf(results[1] as Event))
  })

  it('json: tool_calls carry the arguments, the summary, the result and what went wrong', async () => {
    await scriptReadAndDeniedBash()
    const r = await cli(['-p', 'go', '--output-format', 'json'])
    const trace = JSON.parse(r.stdout) as { tool_calls: Array<Record<string, unknown>> }
    expect(trace.tool_calls[0]).toMatchObject({
      name: 'Read',
      input: { file_path: 'notes.txt', limit: 5 },
      summary: 'Read notes.txt (lines 1–5)',
      ok: true,
    })
    expect(trace.tool_calls[0]?.content).toContain('beta')
    expect(trace.tool_calls[1]).toMatchObject({
      name: 'Bash',
      input: { command: 'touch made.txt', description: 'make a file' },
      ok: false,
      status: 'denied',
      error_category: 'permission',
    })
    expect(trace.tool_calls[1]?.error).toContain('Bash')
  })

  it('bounds a long result with head, tail and its full size', async () => {
    // ~67k characters: over the 30,000 a result shows, and within what a 32k window leaves for one result.
    const lines = Array.from({ length: 1400 }, (_, i) => `line ${i + 1} ${'x'.repeat(40)}`)
    await writeFile(join(env.box.workspace, 'big.txt'), `${lines.join('\n')}\n`)
    env.server.enqueue({ toolCalls: [{ name: 'Read', arguments: { file_path: 'big.txt' } }] }, { text: 'ok' })
    const r = await cli(['-p', 'go', '--output-format', 'stream-json'])
    const result = eventsOf(r.stdout).find((e) => e.type === 'tool_result') as Event
    const full = lastMessage(1).content as string
    expect(result.truncated).toBe(true)
    expect(result.content_chars).toBe(full.length)
    expect(String(result.content).length).toBeLessThan(31_000)
    expect(result.content).toContain('line 1 ')
    expect(result.content).toContain('line 1400 ')
    expect(result.content).toMatch(/characters not shown here/)
  })
})

describe('denials in a headless run', () => {
  it("a ci policy denial returns the envelope and the model goes on; the message's other calls still run", async () => {
    await writeFile(join(env.box.workspace, 'notes.txt'), 'alpha\n')
    env.server.enqueue(
      {
        toolCalls: [
          { name: 'Bash', arguments: { command: 'touch made.txt' } },
          { name: 'Read', arguments: { file_path: 'notes.txt' } },
        ],
      },
      { text: 'I could not run touch, but I read the notes.' },
    )
    const r = await cli(['-p', 'go', '--output-format', 'json'])
    expect(r.code).toBe(0)
    const trace = JSON.parse(r.stdout) as {
      status: string
      result: string
      tool_calls: Array<{ status: string }>
    }
    expect(trace.status).toBe('completed')
    expect(trace.tool_calls.map((c) => c.status)).toEqual(['denied', 'done'])
    expect(env.server.requests).toHaveLength(2)
    const [denied, read] = messagesOf(1).filter((m) => m.role === 'tool')
    expect(JSON.parse(String(denied?.content)).error.message).toMatch(/^Bash denied: /)
    expect(read?.content).toContain('alpha')
  })
})

describe('a background job that finishes while the agent works', () => {
  it('is announced to the model at its next step, as a message after the results, and shown as a notice', async () => {
    // Step 2 waits until agent-tui has seen the job end (its process group leaves pids.json).
    const waitForJobEnd = [
      'while [ ! -s job.pid ]; do sleep 0.05; done',
      'pid=$(cat job.pid)',
      `while grep -Eq "\\"pid\\": $pid,?$" "$XDG_STATE_HOME/agent-tui/pids.json" 2>/dev/null; do sleep 0.05; done`,
      'echo job gone',
    ].join('; ')
    env.server.enqueue(
      {
        toolCalls: [
          {
            name: 'Bash',
            arguments: { command: 'echo $$ > job.pid; echo built ok', run_in_background: true },
          },
        ],
      },
      { toolCalls: [{ name: 'Bash', arguments: { command: waitForJobEnd } }] },
      { text: 'The build finished.' },
    )
    const r = await cli([
      '-p',
      'build in the background',
      '--mode',
      'dangerous',
      '--output-format',
      'stream-json',
    ])
    expect(r.code).toBe(0)
    const history = messagesOf(2)
    const announced = history.filter(
      (m) => m.role === 'user' && String(m.content).startsWith('[Background task b1 finished'),
    )
    expect(announced).toHaveLength(1)
    const text = String(announced[0]?.content)
    expect(text).toContain('echo $$ > job.pid; echo built ok')
    expect(text).toContain('completed, exit code 0')
    expect(text).toContain('built ok')
    expect(text).toContain('TaskOutput (task_id "b1")')
    // Appended after the launch's result, never written into an earlier message.
    const launched = history.findIndex((m) => m.role === 'tool')
    expect(history.indexOf(announced[0] as Msg)).toBeGreaterThan(launched)
    expect(
      messagesOf(1)
        .slice(0, history.length)
        .every((m, i) => JSON.stringify(m) === JSON.stringify(history[i])),
    ).toBe(true)
    const notices = eventsOf(r.stdout).filter((e) => e.type === 'notice')
    expect(notices.map((e) => e.text)).toContainEqual(
      expect.stringMatching(/^Background task b1 finished \(completed, exit code 0\)/),
    )
  })

  it('is not announced when the model already read how it ended', async () => {
    // The job ends only once the model's next step has begun, while TaskOutput waits for it.
    env.server.enqueue(
      {
        toolCalls: [
          {
            name: 'Bash',
            arguments: {
              command: 'while [ ! -f go ]; do sleep 0.05; done; echo done',
              run_in_background: true,
            },
          },
        ],
      },
      () => {
        writeFileSync(join(env.box.workspace, 'go'), '')
        return { toolCalls: [{ name: 'TaskOutput', arguments: { task_id: 'b1', block: true } }] }
      },
      { text: 'ok' },
    )
    const r = await cli(['-p', 'go', '--mode', 'dangerous', '--output-format', 'stream-json'])
    expect(r.code).toBe(0)
    expect(String(messagesOf(2).at(-1)?.content)).toContain('completed, exit code 0')
    expect(messagesOf(2).filter((m) => String(m.content).startsWith('[Background task'))).toEqual([])
    // The user still saw it end.
    const notices = eventsOf(r.stdout).filter((e) => e.type === 'notice')
    expect(notices.map((e) => e.text)).toContainEqual(expect.stringMatching(/^Background task b1 finished/))
  })
})

describe('@path in the prompt', () => {
  it('attaches mentioned files (as Read shows them) and folders (as a listing) to the message', async () => {
    await writeFile(join(env.box.workspace, 'notes.txt'), 'alpha\nbeta\n')
    await mkdir(join(env.box.workspace, 'src'))
    await writeFile(join(env.box.workspace, 'src', 'main.ts'), 'export {}\n')
    env.server.enqueue({ text: 'They match.' })
    const r = await cli(['-p', 'compare @notes.txt with @src/', '--output-format', 'json'])
    expect(r.code).toBe(0)
    const user = messagesOf(0).find((m) => m.role === 'user')
    const content = String(user?.content)
    expect(content.startsWith('compare @notes.txt with @src/\n\n')).toBe(true)
    expect(content).toMatch(
      /\[@notes\.txt — the file .*notes\.txt, as the Read tool shows it:\]\n\s+1\talpha\n\s+2\tbeta/,
    )
    expect(content).toMatch(/\[@src\/ — the directory .*src, 1 entry \(folders end with \/\):\]\nmain\.ts/)
    // Attached, not read by a tool call.
    expect(JSON.parse(r.stdout).tool_calls).toEqual([])
  })

  it('never attaches a secrets file or a file outside the workspace without consent: refused, and the model is told', async () => {
    await writeFile(join(env.box.workspace, '.env'), 'TOKEN=hunter2\n')
    await writeFile(join(env.box.root, 'outside.txt'), 'far away\n')
    env.server.enqueue({ text: 'ok' })
    const r = await cli(['-p', 'use @.env and @../outside.txt', '--output-format', 'stream-json'])
    expect(r.code).toBe(0)
    const content = String(messagesOf(0).find((m) => m.role === 'user')?.content)
    expect(content).not.toContain('hunter2')
    expect(content).not.toContain('far away')
    expect(content).toMatch(/\[@\.env was not attached: .*\]/)
    expect(content).toMatch(/\[@\.\.\/outside\.txt was not attached: .*outside.*\]/)
  })
})
