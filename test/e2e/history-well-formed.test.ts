/**
 * What goes back to the endpoint is well-formed, end to end: the built CLI against the scripted server,
 * which checks every request's history (each call's `arguments` exactly the JSON of one object, no lone
 * surrogate, results paired: see test/support/pairing-check.ts) and fails the test on any violation.
 */
import { appendFile, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'

const env = setupE2eEnv()
const { cli } = env

type Msg = { role: string; content: string | null; tool_calls?: Array<{ function: { arguments: string } }> }
const lastMessages = () => (env.server.requests.at(-1)?.body.messages ?? []) as Msg[]

describe('the history sent back', () => {
  it('a call whose arguments start with a byte-order mark runs, and goes back as the JSON of what ran', async () => {
    await writeFile(join(env.box.workspace, 'notes.txt'), 'hello\n')
    env.server.enqueue(
      {
        text: 'reading \ud800',
        toolCalls: [{ name: 'Read', arguments: '\ufeff {"file_path": "notes.txt"}' }],
      },
      { text: 'done' },
    )
    const r = await cli(['-p', 'read it'])
    expect(r.code, r.stderr).toBe(0)
    const assistant = lastMessages().find((m) => m.role === 'assistant')
    expect(assistant?.tool_calls?.[0]?.function.arguments).toBe('{"file_path":"notes.txt"}')
    expect(assistant?.content).toBe('reading \ufffd')
    expect(lastMessages().find((m) => m.role === 'tool')?.content).toContain('hello')
  })

  it('a session log written with the raw text (an older agent-tui) resumes with the JSON of it', async () => {
    env.server.enqueue({ text: 'one' })
    const first = await cli(['-p', 'one', '--output-format', 'json'])
    const id = JSON.parse(first.stdout).session_id as string
    const dir = join(env.box.home, '.local', 'state', 'agent-tui', 'sessions')
    const [project] = await readdir(dir)
    const file = join(dir, String(project), `${id}.jsonl`)
    const calls = [
      { id: 'call_bom', type: 'function', function: { name: 'Glob', arguments: '\ufeff{"pattern":"*"}' } },
      { id: 'call_cut', type: 'function', function: { name: 'Glob', arguments: '{"pattern":"*' } },
    ]
    const result = (callId: string, content: string) =>
      JSON.stringify({
        type: 'tool/finished',
        callId,
        name: 'Glob',
        summary: 'Glob',
        status: 'done',
        content,
        preview: '',
        display: null,
        durationMs: 1,
      })
    await appendFile(
      file,
      `${[
        JSON.stringify({
          type: 'assistant/settled',
          id: 'a9',
          message: { role: 'assistant', content: 'old \ud800 text', tool_calls: calls },
        }),
        result('call_bom', 'notes.txt'),
        result('call_cut', '{"error":{"message":"arguments are not valid JSON"}}'),
      ].join('\n')}\n`,
    )
    expect(await readFile(file, 'utf8')).toContain('\ufeff{')
    env.server.enqueue({ text: 'resumed' })
    const r = await cli(['-p', 'go on', '--continue'])
    expect(r.code, r.stderr).toBe(0)
    const old = lastMessages().find((m) => m.role === 'assistant' && m.tool_calls)
    expect(old?.tool_calls?.map((c) => c.function.arguments)).toEqual(['{"pattern":"*"}', '{}'])
    expect(old?.content).toBe('old \ufffd text')
  })
})
