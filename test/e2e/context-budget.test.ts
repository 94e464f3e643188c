import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { keys, pollUntil, startTui, type TuiSession } from '../support/pty-terminal.ts'
import { makeSandbox, runCli, type Sandbox } from '../support/run-cli.ts'
import {
  type RecordedRequest,
  type ScriptedReply,
  type ScriptedServer,
  type ScriptedServerOptions,
  startScriptedServer,
} from '../support/scripted-server.ts'

/**
 * The context budget end to end (docs/context.md#the-budget): the built CLI against a scripted server
 * that counts every request against its own window and refuses one over it.
 */

let box: Sandbox | undefined
let server: ScriptedServer | undefined
let tui: TuiSession | undefined
afterEach(async () => {
  await tui?.kill()
  tui = undefined
  expect(server?.pairingViolations).toEqual([])
  await server?.close()
  await box?.cleanup()
  server = undefined
  box = undefined
})

async function setup(opts: ScriptedServerOptions): Promise<{ box: Sandbox; server: ScriptedServer }> {
  box = await makeSandbox()
  server = await startScriptedServer(opts)
  return { box, server }
}

const cli = (args: string[]) =>
  runCli(['--base-url', (server as ScriptedServer).baseUrl, '--model', 'm', ...args], {
    cwd: (box as Sandbox).workspace,
    env: (box as Sandbox).env,
    timeoutMs: 60_000,
  })

type Msg = { role: string; content: string | null }
const messages = (r: RecordedRequest) => r.body.messages as Msg[]
const SUMMARISER = 'Stop here and write a summary'
const isSummariser = (r: RecordedRequest) => String(messages(r).at(-1)?.content ?? '').startsWith(SUMMARISER)

async function files(count: number, size: number): Promise<string[]> {
  const names: string[] = []
  for (let i = 1; i <= count; i++) {
    let text = ''
    for (let n = 1; text.length < size; n++)
      text += `file ${i} line ${n}: export const value${n} = compute(${n}, ${i})\n`
    const name = `f${String(i).padStart(2, '0')}.txt`
    await writeFile(join((box as Sandbox).workspace, name), text.slice(0, size))
    names.push(name)
  }
  return names
}

/** Reads each file in turn (the summariser gets a summary), then answers `done`. */
function readEach(names: string[]): (req: RecordedRequest) => ScriptedReply {
  let step = 0
  return (req) => {
    if (isSummariser(req))
      return { text: `FILES MODIFIED: none\nCURRENT STATE: read f01–f${String(step).padStart(2, '0')}` }
    const name = names[step++]
    return name ? { toolCalls: [{ name: 'Read', arguments: { file_path: name } }] } : { text: 'done' }
  }
}

describe('a 36-Read session at an 8k window', () => {
  it('completes: every request within the window by the server’s count, earlier steps summarised, nothing cut', async () => {
    await setup({ models: [{ id: 'm', context_length: 8192 }], contextWindow: { tokens: 8192 } })
    const names = await files(36, 1500)
    const reply = readEach(names)
    ;(server as ScriptedServer).enqueue(...Array.from({ length: 80 }, () => reply))
    // Every request carries the tool definitions and the system prompt; the rest is the conversation.
    const r = await cli(['-p', 'read every file', '--output-format', 'json'])
    expect(r.code, r.stdout.slice(-3000)).toBe(0)
    const s = server as ScriptedServer
    const turn = s.requests.filter((q) => !isSummariser(q))
    expect(turn).toHaveLength(37)
    expect(s.overWindow).toBe(0)
    for (const q of s.requests) expect(q.promptTokens).toBeLessThanOrEqual(8192)
    expect(s.requests.filter(isSummariser).length).toBeGreaterThan(0)
    for (const q of turn) {
      const text = messages(q).map((m) => m.content ?? '')
      expect(text.some((t) => t.includes('[earlier messages truncated'))).toBe(false)
    }
    // The last request: the summary of the earlier steps, then the latest ones; the last result whole.
    const last = messages(turn.at(-1) as RecordedRequest)
    expect(last.some((m) => (m.content ?? '').startsWith('[Summary of the conversation so far'))).toBe(true)
    expect(last.at(-1)?.content).toContain('file 36 line 1:')
    const trace = JSON.parse(r.stdout) as {
      result: string
      context: { window: number; window_source: string }
    }
    expect(trace.result).toBe('done')
    expect(trace.context).toMatchObject({
      window: 8192,
      window_source: "context_length in the endpoint's model listing",
    })
  }, 90_000)
})

describe('definitions that take over a third of the window', () => {
  const WARNING =
    /The tool definitions take ~[\d.]+k tokens \(\d+ tools, [\d.]+ kB\), \d+ % of the model's 6,000-token window \(settings\)/

  async function smallWindow(): Promise<void> {
    await setup({ models: [{ id: 'm' }] })
    await mkdir(join((box as Sandbox).workspace, '.agent-tui'), { recursive: true })
    await writeFile(
      join((box as Sandbox).workspace, '.agent-tui', 'settings.json'),
      JSON.stringify({ models: { m: { contextLimit: 6000 } } }),
    )
  }

  it('headless: on stderr and in the json context field, with the figures and the fix', async () => {
    await smallWindow()
    ;(server as ScriptedServer).enqueue({ text: 'hi' })
    const r = await cli(['-p', 'hello', '--output-format', 'json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(WARNING)
    expect(r.stderr).toContain('fewer MCP servers, or --tools to send fewer tools')
    const trace = JSON.parse(r.stdout) as { context: { warnings: Array<Record<string, unknown>> } }
    expect(trace.context.warnings).toHaveLength(1)
    expect(trace.context.warnings[0]).toMatchObject({
      kind: 'definitions',
      window: 6000,
      window_source: 'settings',
    })
    expect(trace.context.warnings[0]?.share as number).toBeGreaterThan(1 / 3)
  })

  it('stream-json: a notice event with the context figures', async () => {
    await smallWindow()
    ;(server as ScriptedServer).enqueue({ text: 'hi' })
    const r = await cli(['-p', 'hello', '--output-format', 'stream-json'])
    expect(r.code, r.stderr).toBe(0)
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; text?: string; context?: { kind: string } })
    const warned = events.find((e) => e.type === 'notice' && e.context?.kind === 'definitions')
    expect(warned?.text).toMatch(WARNING)
    // Said before the first request goes out.
    expect(events.indexOf(warned as never)).toBeLessThan(events.findIndex((e) => e.type === 'context'))
  })

  it('TUI: a notice at start, before anything is typed', async () => {
    await smallWindow()
    const b = box as Sandbox
    tui = startTui({
      args: ['--base-url', (server as ScriptedServer).baseUrl, '--model', 'm'],
      cwd: b.workspace,
      env: b.env,
      cols: 120,
      rows: 40,
    })
    const screen = await tui.waitFor(/The tool definitions take ~[\d.]+k tokens/)
    expect(screen.replace(/\s+/g, ' ')).toMatch(/of the model's 6,000-token window \(settings\)/)
    expect((server as ScriptedServer).requests).toHaveLength(0)
  })

  it('says nothing when they fit', async () => {
    await setup({ models: [{ id: 'm', context_length: 128_000 }] })
    ;(server as ScriptedServer).enqueue({ text: 'hi' })
    const r = await cli(['-p', 'hello', '--output-format', 'json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).not.toMatch(/tool definitions take/)
    expect((JSON.parse(r.stdout) as { context: { warnings: unknown[] } }).context.warnings).toEqual([])
  })

  it('settings larger than what Ollama serves: warned at start, with what works', async () => {
    await setup({
      models: [{ id: 'm' }],
      native: { ollamaPs: { models: [{ name: 'm:latest', context_length: 4096 }] } },
    })
    await mkdir(join((box as Sandbox).workspace, '.agent-tui'), { recursive: true })
    await writeFile(
      join((box as Sandbox).workspace, '.agent-tui', 'settings.json'),
      JSON.stringify({ models: { m: { contextLimit: 65_536 } } }),
    )
    ;(server as ScriptedServer).enqueue({ text: 'hi' })
    const r = await cli(['-p', 'hello', '--output-format', 'json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(
      /Settings give m a 65,536-token window, but the endpoint serves it with 4,096 \(Ollama's \/api\/ps, for the loaded model\)/,
    )
    const trace = JSON.parse(r.stdout) as { context: { warnings: Array<{ kind: string }> } }
    expect(trace.context.warnings.map((w) => w.kind)).toEqual(['served_window'])
  })

  it("TUI: a local server's own window is read after the first frame and /context names it", async () => {
    await setup({
      models: [{ id: 'model.gguf', meta: { n_ctx_train: 131_072 } }],
      native: { props: { default_generation_settings: { n_ctx: 16_384 } } },
    })
    const b = box as Sandbox
    // No --model: the listing picks it before the frame; /props is asked after it.
    tui = startTui({
      args: ['--base-url', (server as ScriptedServer).baseUrl],
      cwd: b.workspace,
      env: b.env,
      cols: 120,
      rows: 40,
    })
    const t = tui
    await t.waitFor('❯')
    // /context is a snapshot: open it until the window read after the frame is in.
    let shown = ''
    await pollUntil(
      async () => {
        await t.submit('/context')
        shown = await t.waitFor('any other key closes')
        t.write(keys.esc)
        await t.waitFor((s) => !s.includes('any other key closes'))
        return /window 16k tokens/.test(shown)
      },
      () => `the window never showed; last /context:\n${shown}`,
      15_000,
    )
    expect(shown).toContain("llama.cpp's /props, n_ctx")
  })
})
