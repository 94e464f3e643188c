/**
 * End-to-end fault paths of the built CLI in headless mode against the scripted server: streams cut off
 * mid-reply, tool arguments that are not JSON, replies cut by the output limit, Retry-After.
 */
import { existsSync } from 'node:fs'
import { appendFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { runCli } from '../support/run-cli.ts'
import { startScriptedServer } from '../support/scripted-server.ts'

const env = setupE2eEnv()
const { cli } = env

type Event = { type: string; [key: string]: unknown }
const eventsOf = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Event)

type Msg = {
  role: string
  content: string
  tool_call_id?: string
  tool_calls?: Array<{ function: { arguments: string } }>
}
const messagesOf = (i: number) => (env.server.requests[i]?.body.messages ?? []) as Msg[]

async function userSettings(settings: Record<string, unknown>): Promise<void> {
  const dir = join(env.box.home, '.config', 'agent-tui')
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'settings.json'), JSON.stringify(settings))
}

/** `{"command":"touch cutA.txt"}` cut right after its closing quote: one `}` short of valid JSON. */
const CUT_BASH = {
  text: 'Creating the file. ',
  toolCalls: [{ name: 'Bash', arguments: '{"command":"touch cutA.txt"}' }],
  chunkSize: 7,
  // role, 3 text pieces, id+name, then 4 argument pieces of 7 = 28 characters.
  cutAfterChunks: 9,
}

describe('headless: streams cut off mid-reply', () => {
  it('runs nothing from a cut stream, retries the step and says so in stream-json', async () => {
    env.server.enqueue(CUT_BASH, { text: 'I did not create it.' })
    const r = await cli(['-p', 'make cutA.txt', '--mode', 'dangerous', '--output-format', 'stream-json'])
    expect(r.code).toBe(0)
    expect(existsSync(join(env.box.workspace, 'cutA.txt'))).toBe(false)
    const events = eventsOf(r.stdout)
    const retry = events.find((e) => e.type === 'retry')
    expect(retry).toMatchObject({
      attempt: 2,
      max_attempts: 5,
      discarded: true,
      server_asked: false,
      reason: `${env.server.baseUrl} closed the stream mid-reply (no finish_reason and no [DONE])`,
    })
    expect(retry?.delay_ms).toBeGreaterThanOrEqual(500)
    expect(events.filter((e) => e.type === 'tool_use')).toEqual([])
    expect(events.at(-1)).toMatchObject({
      type: 'result',
      status: 'completed',
      result: 'I did not create it.',
    })
    // The history sent with the retry carries nothing of the cut attempt.
    expect(messagesOf(1).map((m) => m.role)).toEqual(['system', 'user'])
  })

  it('ends with status error and exit 1 when every attempt is cut, never the partial text as the reply', async () => {
    await userSettings({ retry: { maxAttempts: 2 } })
    env.server.enqueue(CUT_BASH, CUT_BASH)
    const r = await cli(['-p', 'make cutA.txt', '--mode', 'dangerous', '--verbose'])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(existsSync(join(env.box.workspace, 'cutA.txt'))).toBe(false)
    const reason = `${env.server.baseUrl} closed the stream mid-reply (no finish_reason and no [DONE])`
    expect(r.stderr).toContain(
      `[warn] ${reason} — attempt 1 of 2 failed; the partial reply was discarded; next try in`,
    )
    expect(r.stderr).toContain(`agent-tui: ${reason} (gave up after 2 attempts)`)
    expect(env.server.requests).toHaveLength(2)
  })

  it('reports status error in the json trace when the retries run out', async () => {
    await userSettings({ retry: { maxAttempts: 1 } })
    env.server.enqueue({ text: 'The answer is', chunkSize: 4, cutAfterChunks: 3 })
    const r = await cli(['-p', 'answer', '--output-format', 'json'])
    expect(r.code).toBe(1)
    const trace = JSON.parse(r.stdout) as { status: string; result: string; errors: string[] }
    expect(trace.status).toBe('error')
    expect(trace.result).toBe('')
    expect(trace.errors).toEqual([
      `${env.server.baseUrl} closed the stream mid-reply (no finish_reason and no [DONE])`,
    ])
  })

  it('still works with a server that answers a streamed request with one JSON completion', async () => {
    env.server.enqueue({ text: 'Whole, not streamed.', ignoreStream: true })
    const r = await cli(['-p', 'hi'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('Whole, not streamed.\n')
  })
})

describe('headless: tool arguments that are not JSON', () => {
  it('does not run a Bash call missing its closing brace, and sends {} plus the envelope afterwards', async () => {
    env.server.enqueue(
      { toolCalls: [{ name: 'Bash', arguments: '{"command":"touch cutA.txt"' }] },
      { text: 'It was not run.' },
    )
    const r = await cli(['-p', 'make cutA.txt', '--mode', 'dangerous', '--output-format', 'json'])
    expect(r.code).toBe(0)
    expect(existsSync(join(env.box.workspace, 'cutA.txt'))).toBe(false)
    const history = messagesOf(1)
    const assistant = history.find((m) => m.role === 'assistant')
    expect(assistant?.tool_calls?.map((c) => c.function.arguments)).toEqual(['{}'])
    const result = history.find((m) => m.role === 'tool')
    const envelope = JSON.parse(result?.content ?? '{}')
    expect(envelope.error).toMatchObject({ tool: 'Bash', category: 'validation' })
    expect(envelope.error.message).toContain('arguments are not valid JSON')
    expect(JSON.parse(r.stdout)).toMatchObject({
      status: 'completed',
      tool_calls: [{ name: 'Bash', ok: false, status: 'error' }],
    })
  })
})

describe('headless: replies cut by the output limit', () => {
  it('continues a reply that hit the limit and prints the whole text', async () => {
    env.server.enqueue({ text: 'Part one, ', finishReason: 'length' }, { text: 'part two.' })
    const r = await cli(['-p', 'write it', '--verbose'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('Part one, part two.\n')
    expect(r.stderr).toContain(
      '[warn] The reply hit the output token limit (finish_reason: length); asking the model to continue where it stopped (1 of 2)',
    )
    expect(messagesOf(1).at(-1)?.content).toContain('cut off by the output token limit')
  })
})

describe('headless: Retry-After', () => {
  it("waits what the server asked (retry-after-ms) and shows it as the server's wait", async () => {
    env.server.enqueue({ status: 429, headers: { 'retry-after-ms': '300' } }, { text: 'after the wait' })
    const r = await cli(['-p', 'x', '--output-format', 'stream-json'])
    expect(r.code).toBe(0)
    const events = eventsOf(r.stdout)
    expect(events.find((e) => e.type === 'retry')).toMatchObject({ delay_ms: 300, server_asked: true })
    expect(events.at(-1)).toMatchObject({ type: 'result', result: 'after the wait' })
  })

  it('fails at once with the wait named when the server asks for more than the cap', async () => {
    env.server.enqueue({ status: 429, headers: { 'retry-after': '3600' } }, { text: 'never' })
    const r = await cli(['-p', 'x'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(
      'the server asked to wait 3600 s (60 min) before retrying, longer than the 300 s',
    )
    expect(env.server.requests).toHaveLength(1)
  })
})

describe('headless: a session log with a torn last line', () => {
  it('cuts the torn line off (kept in a .torn file) before --continue appends, so the next resume keeps it all', async () => {
    env.server.enqueue({ text: 'one' })
    const first = await cli(['-p', 'first question', '--output-format', 'json'])
    const id = JSON.parse(first.stdout).session_id as string
    const dir = join(env.box.home, '.local', 'state', 'agent-tui', 'sessions')
    const [project] = await readdir(dir)
    const file = join(dir, String(project), `${id}.jsonl`)
    // A crash mid-write: the last event is a fragment without its newline.
    await appendFile(file, '{"type":"assistant/settled","id":"a9","mess')
    env.server.enqueue({ text: 'two' })
    const second = await cli(['-p', 'second question', '--continue'])
    expect(second.code).toBe(0)
    expect(second.stderr).toContain(`moved the torn last line (43 bytes) to ${file}.torn`)
    expect(await readFile(`${file}.torn`, 'utf8')).toBe('{"type":"assistant/settled","id":"a9","mess\n')
    env.server.enqueue({ text: 'three' })
    const third = await cli(['-p', 'third question', '--continue'])
    expect(third.code).toBe(0)
    expect(third.stderr).toBe('')
    const users = messagesOf(2).filter((m) => m.role === 'user')
    expect(users.map((m) => m.content)).toEqual(['first question', 'second question', 'third question'])
  })
})

describe('headless: listing the models at start (no model configured)', () => {
  it('tries the listing again when it fails once, and runs with the first listed model', async () => {
    const server = await startScriptedServer({
      modelsFaults: [{ status: 503 }],
      models: [{ id: 'listed-model' }],
      replies: [{ text: 'answered' }],
    })
    try {
      const r = await runCli(['--base-url', server.baseUrl, '-p', 'hi'], {
        cwd: env.box.workspace,
        env: env.box.env,
      })
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      expect(r.stdout).toBe('answered\n')
      expect(server.requests[0]?.body.model).toBe('listed-model')
    } finally {
      await server.close()
    }
  })

  it('says what failed and what to set when the listing keeps failing', async () => {
    const server = await startScriptedServer({ modelsFaults: [{ status: 502 }, { status: 502 }] })
    try {
      const r = await runCli(['--base-url', server.baseUrl, '-p', 'hi'], {
        cwd: env.box.workspace,
        env: env.box.env,
      })
      expect(r.code).toBe(2)
      expect(r.stderr).toBe(
        `agent-tui: no model configured, and listing models at ${server.baseUrl}/models failed: HTTP 502 (tried 2 times).\n` +
          'Pass --model NAME (or set AGENT_TUI_MODEL, or "model" in settings).\n',
      )
    } finally {
      await server.close()
    }
  })
})
