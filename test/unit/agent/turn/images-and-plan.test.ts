import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { loadImageAttachment, MAX_IMAGE_BYTES, sniffImageType } from '../../../../source/agent/turn/images.js'
import { createReadTool } from '../../../../source/tools/read.js'
import { type ScriptedServer, startScriptedServer } from '../../../support/scripted-server.ts'
import { echoTool, makeHarness } from './loop-harness.js'

// A valid 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
)

let server: ScriptedServer | undefined
let dir: string | undefined
afterEach(async () => {
  if (server) {
    expect(server.pairingViolations).toEqual([])
    await server.close()
  }
  if (dir) await rm(dir, { recursive: true, force: true })
  server = undefined
  dir = undefined
})

type Msg = { role: string; content: unknown; tool_call_id?: string }

describe('images in the runtime', () => {
  it('sends a Read image to a vision model as a user message right after the tool results', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-tui-img-'))
    await writeFile(join(dir, 'shot.png'), PNG)
    server = await startScriptedServer({
      replies: [
        { toolCalls: [{ name: 'Read', arguments: { file_path: join(dir, 'shot.png') } }] },
        { text: 'a dot' },
      ],
    })
    const h = makeHarness({ baseUrl: server.baseUrl, tools: [createReadTool()], vision: true })
    await h.run('what is in the screenshot?')
    const messages = server?.requests[1]?.body.messages as Msg[]
    const toolAt = messages.findIndex((m) => m.role === 'tool')
    expect(typeof messages[toolAt]?.content).toBe('string')
    const follow = messages[toolAt + 1]
    expect(follow?.role).toBe('user')
    const parts = follow?.content as Array<{ type: string; image_url?: { url: string } }>
    expect(
      parts.some((p) => p.type === 'image_url' && p.image_url?.url.startsWith('data:image/png;base64,')),
    ).toBe(true)
  })

  it('tells a model without vision that it cannot see the image and sends no image part', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-tui-img-'))
    await writeFile(join(dir, 'shot.png'), PNG)
    server = await startScriptedServer({
      replies: [
        { toolCalls: [{ name: 'Read', arguments: { file_path: join(dir, 'shot.png') } }] },
        { text: 'ok' },
      ],
    })
    const h = makeHarness({ baseUrl: server.baseUrl, tools: [createReadTool()] })
    await h.run('look')
    const messages = server?.requests[1]?.body.messages as Msg[]
    expect(JSON.stringify(messages)).not.toContain('image_url')
    expect(String(messages.find((m) => m.role === 'tool')?.content)).toMatch(/image/i)
  })

  it('user messages carry images as content parts', async () => {
    server = await startScriptedServer({ replies: [{ text: 'seen' }] })
    const h = makeHarness({ baseUrl: server.baseUrl, tools: [echoTool()], vision: true })
    const url = `data:image/png;base64,${PNG.toString('base64')}`
    const { runTurn } = await import('../../../../source/agent/turn/loop.js')
    await runTurn(
      h.deps,
      {
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image_url', image_url: { url } },
        ],
        text: 'what is this?',
      },
      new AbortController().signal,
    )
    const user = ((server?.requests[0]?.body.messages ?? []) as Msg[]).find((m) => m.role === 'user')
    expect(user?.content).toEqual([
      { type: 'text', text: 'what is this?' },
      { type: 'image_url', image_url: { url } },
    ])
  })
})

describe('loadImageAttachment', () => {
  it('validates by magic bytes, not by extension, and caps the size', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-tui-img-'))
    await writeFile(join(dir, 'real.png'), PNG)
    await writeFile(join(dir, 'fake.png'), 'not an image at all')
    const ok = await loadImageAttachment('real.png', dir)
    expect(ok.url.startsWith('data:image/png;base64,')).toBe(true)
    await expect(loadImageAttachment('fake.png', dir)).rejects.toThrow(/not a PNG, JPEG, GIF or WebP/)
    await expect(loadImageAttachment('missing.png', dir)).rejects.toThrow(/cannot read image/)
    const big = Buffer.alloc(MAX_IMAGE_BYTES + 1)
    PNG.copy(big)
    await writeFile(join(dir, 'big.png'), big)
    await expect(loadImageAttachment('big.png', dir)).rejects.toThrow(/limit is 20 MB/)
  })

  it.each([
    ['png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a], 'image/png'],
    ['jpeg', [0xff, 0xd8, 0xff, 0xe0], 'image/jpeg'],
    ['gif', [...Buffer.from('GIF89a')], 'image/gif'],
    ['webp', [...Buffer.from('RIFF\u0000\u0000\u0000\u0000WEBPVP8 ')], 'image/webp'],
    ['text', [...Buffer.from('hello world!')], null],
  ])('sniffs %s', (_name, bytes, mime) => {
    expect(sniffImageType(Uint8Array.from(bytes))).toBe(mime)
  })
})

describe('plan mode requests', () => {
  it('restricts callable tools with allowed_tools where supported, keeping definitions identical', async () => {
    server = await startScriptedServer({ replies: [{ text: 'safe' }, { text: 'planned' }] })
    const h = makeHarness({ baseUrl: server.baseUrl, tools: [echoTool()], allowedTools: true })
    h.deps.store.dispatch({ type: 'mode/changed', mode: 'safe' })
    await h.run('one')
    h.deps.store.dispatch({ type: 'mode/changed', mode: 'plan' })
    await h.run('two')
    expect(server.requests[0]?.body.tool_choice).toBe('auto')
    expect(server.requests[1]?.body.tool_choice).toEqual({
      type: 'allowed_tools',
      allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'Echo' } }] },
    })
    expect(JSON.stringify(server.requests[1]?.body.tools)).toBe(
      JSON.stringify(server.requests[0]?.body.tools),
    )
  })
})
