import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import type { RecordedRequest, ScriptedReply } from '../support/scripted-server.ts'

const env = setupE2eEnv()
const { cli } = env

type Msg = { role: string; content: string | null; tool_call_id?: string }
const PLACEHOLDER = /^\[Tool result masked: (\d+) chars, first line: .*; full output: (\/\S+)\]$/
const SUMMARISER = 'Stop here and write a summary'

const messages = (r: RecordedRequest) => r.body.messages as Msg[]
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value))
const isSummariser = (r: RecordedRequest) => String(messages(r).at(-1)?.content ?? '').startsWith(SUMMARISER)

/** `count` files of `size` characters in numbered lines, named f01.txt, f02.txt, … */
async function files(count: number, size: number): Promise<string[]> {
  const names: string[] = []
  for (let i = 1; i <= count; i++) {
    let text = ''
    for (let n = 1; text.length < size; n++)
      text += `file ${i} line ${n}: export const value${n} = compute(${n}, ${i})\n`
    const name = `f${String(i).padStart(2, '0')}.txt`
    await writeFile(join(env.box.workspace, name), text.slice(0, size))
    names.push(name)
  }
  return names
}

async function settings(value: object): Promise<void> {
  await mkdir(join(env.box.workspace, '.agent-tui'), { recursive: true })
  await writeFile(join(env.box.workspace, '.agent-tui', 'settings.json'), JSON.stringify(value))
}

/** Did request i send request i-1's messages unchanged, then more? */
function extendsPrevious(requests: RecordedRequest[], i: number): boolean {
  const before = JSON.stringify(messages(requests[i - 1] as RecordedRequest))
  return JSON.stringify(messages(requests[i] as RecordedRequest)).startsWith(before.slice(0, -1))
}

/** Reads `names` one per step, then answers `done`. */
function readEach(names: string[]): (req: RecordedRequest) => ScriptedReply {
  let step = 0
  return () => {
    const name = names[step++]
    return name ? { toolCalls: [{ name: 'Read', arguments: { file_path: name } }] } : { text: 'done' }
  }
}

describe('context economy, headless against the scripted server', () => {
  it('36 Reads of 1.5 kB files: masking halves the prompt bytes, keeps system and tools fixed and the requests append-only', async () => {
    const names = await files(36, 1500)
    const run = async (masking: boolean) => {
      await settings(masking ? {} : { contextManagement: { masking: false } })
      // One replier for all 37 replies, so it counts the steps across them.
      const reply = readEach(names)
      env.server.enqueue(...Array.from({ length: 37 }, () => reply))
      const r = await cli(['-p', 'read every file', '--output-format', 'stream-json'])
      expect(r.code, r.stderr).toBe(0)
      return { requests: env.server.requests.splice(0), stdout: r.stdout }
    }
    const masked = await run(true)
    const whole = await run(false)

    for (const { requests } of [masked, whole]) {
      expect(requests).toHaveLength(37)
      // The system message and the tool definitions are byte-identical in every request.
      const system = JSON.stringify(messages(requests[0] as RecordedRequest)[0])
      const tools = JSON.stringify(requests[0]?.body.tools)
      for (const r of requests) {
        expect(JSON.stringify(messages(r)[0])).toBe(system)
        expect(JSON.stringify(r.body.tools)).toBe(tools)
      }
    }
    const sum = (rs: RecordedRequest[]) => rs.reduce((n, r) => n + bytes(r.body.messages), 0)
    const saved = 1 - sum(masked.requests) / sum(whole.requests)
    expect(saved).toBeGreaterThanOrEqual(0.5)
    const appendOnly = (rs: RecordedRequest[]) =>
      rs.slice(1).filter((_, i) => extendsPrevious(rs, i + 1)).length / (rs.length - 1)
    expect(appendOnly(masked.requests)).toBeGreaterThanOrEqual(0.75)
    expect(appendOnly(whole.requests)).toBe(1)

    // Every placeholder names a file holding the result it replaced; the last results go whole.
    const last = messages(masked.requests.at(-1) as RecordedRequest).filter((m) => m.role === 'tool')
    const full = messages(whole.requests.at(-1) as RecordedRequest).filter((m) => m.role === 'tool')
    expect(last).toHaveLength(36)
    let placeholders = 0
    for (const [k, message] of last.entries()) {
      const m = PLACEHOLDER.exec(message.content ?? '')
      if (!m) {
        expect(message.content).toBe(full[k]?.content)
        continue
      }
      placeholders++
      expect(k).toBeLessThan(32)
      expect(Number(m[1])).toBe(full[k]?.content?.length)
      expect(await readFile(m[2] as string, 'utf8')).toBe(full[k]?.content)
    }
    expect(placeholders).toBe(32)
    expect(last.slice(32).map((m) => m.content)).toEqual(full.slice(32).map((m) => m.content))

    // stream-json reports each request's figures.
    const events = masked.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; append_only?: boolean; masked?: number })
      .filter((e) => e.type === 'context')
    expect(events).toHaveLength(37)
    expect(events.at(-1)?.masked).toBe(32)
    expect(events.filter((e) => e.append_only).length).toBe(
      masked.requests.slice(1).filter((_, i) => extendsPrevious(masked.requests, i + 1)).length,
    )

    // A later turn of that session (resumed, in ci mode, where what would ask is refused) reads a
    // placeholder's file back: no consent needed, though a rule asks for every other read there.
    const first = PLACEHOLDER.exec(last[0]?.content ?? '')?.[2] as string
    await settings({ permissions: { ask: ['Read(~/.local/**)'] } })
    const other = join(env.box.home, '.local', 'state', 'agent-tui', 'note.txt')
    await writeFile(other, 'not a spill file')
    env.server.enqueue(
      { toolCalls: [{ name: 'Read', arguments: { file_path: first } }] },
      { toolCalls: [{ name: 'Read', arguments: { file_path: other } }] },
      { text: 'restored' },
    )
    const sessionId = (JSON.parse(masked.stdout.split('\n')[0] as string) as { session_id: string })
      .session_id
    const r = await cli([
      '-p',
      'look again at the first file',
      '--resume',
      sessionId,
      '--output-format',
      'json',
    ])
    expect(r.code, r.stderr).toBe(0)
    const trace = JSON.parse(r.stdout) as { tool_calls: Array<{ status: string }> }
    expect(
      trace.tool_calls.map((c) => c.status),
      r.stdout,
    ).toEqual(['done', 'denied'])
    const sent = messages(env.server.requests.at(-1) as RecordedRequest).filter((m) => m.role === 'tool')
    const restored = sent.at(-2)?.content ?? ''
    for (const line of (full[0]?.content ?? '').split('\n').slice(0, 5))
      expect(restored).toContain(line.replace(/^\s*\d+\t/, ''))
  }, 60_000)

  it('a masked and compacted session sends after --continue exactly what it would have sent without the restart', async () => {
    const names = await files(20, 2500)
    // A 14k window: the tool definitions and system prompt take ~6.7k (the Agent tool included; the full
    // prompt, which a window this small would not get by default, and every tool sent, none on demand), so
    // a dozen 2.5 kB reads fill it (masked from the fourth result on), with room left for the resumed turn's
    // messages.
    await settings({
      models: { m: { contextLimit: 14_000, promptVariant: 'full' } },
      contextManagement: { observationWindow: 2 },
      deferTools: 'never',
    })
    let step = 0
    const script = (req: RecordedRequest): ScriptedReply => {
      if (isSummariser(req))
        return { text: `SUMMARY ${step}: read f01–f${String(step).padStart(2, '0')}; nothing modified` }
      const name = names[step++]
      return name ? { toolCalls: [{ name: 'Read', arguments: { file_path: name } }] } : { text: 'all read' }
    }
    env.server.enqueue(...Array.from({ length: 40 }, () => script))
    const first = await cli(['-p', 'read every file', '--output-format', 'json'])
    expect(first.code, first.stderr).toBe(0)
    const turn1 = env.server.requests.filter((r) => !isSummariser(r))
    const summaries = env.server.requests.filter(isSummariser)
    expect(summaries.length).toBeGreaterThan(0)
    const lastBefore = messages(turn1.at(-1) as RecordedRequest)
    expect(lastBefore.some((m) => (m.content ?? '').startsWith('[Summary of the conversation so far'))).toBe(
      true,
    )
    expect(lastBefore.some((m) => PLACEHOLDER.test(m.content ?? ''))).toBe(true)

    // The spilled files are gone (as a clean-up would leave them): a resumed session writes them again.
    const outputs = join(env.box.home, '.local', 'state', 'agent-tui', 'outputs')
    // The sweep's marker (.last-sweep) may sit beside the session's folder, listed before it or not.
    const [sessionDir] = (await readdir(outputs)).filter((name) => !name.startsWith('.'))
    for (const name of await readdir(join(outputs, sessionDir as string)))
      if (name.endsWith('.txt')) await rm(join(outputs, sessionDir as string, name))

    env.server.requests.length = 0
    env.server.enqueue({ text: 'second answer' })
    const second = await cli(['-p', 'and now?', '--continue'])
    expect(second.code, second.stderr).toBe(0)
    const resumed = messages(env.server.requests[0] as RecordedRequest)
    // The request after the restart: everything the last one sent, byte for byte, then the turn's reply
    // and the new question — what an uninterrupted session would have sent.
    expect(JSON.stringify(resumed.slice(0, lastBefore.length))).toBe(JSON.stringify(lastBefore))
    expect(resumed.slice(lastBefore.length)).toEqual([
      { role: 'assistant', content: 'all read' },
      { role: 'user', content: 'and now?' },
    ])
    for (const m of resumed) {
      const path = PLACEHOLDER.exec(m.content ?? '')?.[2]
      if (path) expect((await readFile(path, 'utf8')).length).toBeGreaterThan(2000)
    }
  }, 60_000)
})
