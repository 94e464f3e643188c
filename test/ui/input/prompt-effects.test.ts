import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { SubmitInput } from '../../../source/agent/runtime/commands.js'
import type { FlashLevel } from '../../../source/ui/commands/command-context.js'
import type { EditorResult } from '../../../source/ui/panes/input/external-editor.js'
import { type PromptEffectDeps, runPromptEffect } from '../../../source/ui/panes/input/prompt-effects.js'
import type { PromptEffect, PromptEvent } from '../../../source/ui/panes/input/prompt-model.js'
import { fakeCommands } from '../shell/fake-commands.js'

const dir = mkdtempSync(join(tmpdir(), 'agent-tui-effects-'))
mkdirSync(join(dir, 'src'))
writeFileSync(join(dir, 'shot.png'), 'png')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Recording dependencies; `waitIdle` resolves once the effect's promises have settled. */
function harness(opts: { editor?: EditorResult; failImages?: boolean; queued?: SubmitInput[] } = {}) {
  const commands = fakeCommands(opts.queued ? { queued: opts.queued } : {})
  if (opts.failImages)
    commands.loadImage = async (path) => {
      throw new Error(`${path}: not an image`)
    }
  commands.runShell = async () => {
    throw new Error('bash is not available')
  }
  const flashes: Array<{ text: string; level: FlashLevel | undefined }> = []
  const events: PromptEvent[] = []
  const lines: string[] = []
  const deps: PromptEffectDeps = {
    commands,
    cwd: () => dir,
    model: () => 'test-model',
    flash: (text, level) => flashes.push({ text, level }),
    hint: (text) => flashes.push({ text, level: 'info' }),
    clearFlash: () => flashes.push({ text: '', level: undefined }),
    runCommand: async (line) => {
      lines.push(line)
    },
    editExternally: async () => opts.editor ?? { ok: true, text: 'edited' },
    send: (event) => events.push(event),
    openRewind: () => lines.push('(rewind)'),
  }
  const run = async (effect: PromptEffect) => {
    runPromptEffect(effect, deps)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return { commands, flashes, events, lines, run }
}

const send = (text: string, extra: Partial<Extract<PromptEffect, { type: 'send' }>> = {}): PromptEffect => ({
  type: 'send',
  text,
  pastes: new Map(),
  images: new Map(),
  imageCount: 0,
  ...extra,
})

describe('prompt effects', () => {
  it('a message is submitted without a message line (the queue above the prompt shows a queued one)', async () => {
    const h = harness()
    await h.run(send('hello'))
    expect(h.commands.named('submit')).toEqual([[{ text: 'hello' }]])
    expect(h.flashes).toEqual([])
  })

  it('takes the newest queued message back, or all of them (oldest first) on an interrupt', async () => {
    const one = harness({ queued: [{ text: 'first' }, { text: 'second' }] })
    await one.run({ type: 'unqueue', all: false })
    expect(one.events).toEqual([{ type: 'unqueued', inputs: [{ text: 'second' }] }])
    expect(one.flashes).toEqual([])
    const all = harness({ queued: [{ text: 'first' }, { text: 'second' }] })
    await all.run({ type: 'unqueue', all: true })
    expect(all.events).toEqual([{ type: 'unqueued', inputs: [{ text: 'first' }, { text: 'second' }] }])
    expect(all.flashes[0]?.text).toMatch(/^2 queued messages are back in the prompt/)
    const none = harness()
    await none.run({ type: 'unqueue', all: true })
    expect(none.events).toEqual([])
  })

  it('expands paste chips and turns typed image paths into attachments, after the chips already there', async () => {
    const h = harness()
    const earlier = { path: '/x/first.png', url: 'data:image/png;base64,BBBB' }
    await h.run(
      send('[Image #1] and shot.png then [Pasted text #1 +6 lines]', {
        pastes: new Map([[1, '1\n2\n3\n4\n5\n6']]),
        images: new Map([[1, earlier]]),
        imageCount: 1,
      }),
    )
    expect(h.commands.named('loadImage')).toEqual([[join(dir, 'shot.png')]])
    expect(h.commands.named('submit')).toEqual([
      [
        {
          text: '[Image #1] and [Image #2] then 1\n2\n3\n4\n5\n6',
          images: [earlier, { path: join(dir, 'shot.png'), url: 'data:image/png;base64,AAAA' }],
        },
      ],
    ])
  })

  it('a typed image path that fails to load stays as text, and says why', async () => {
    const h = harness({ failImages: true })
    await h.run(send('look at shot.png'))
    expect(h.commands.named('submit')).toEqual([[{ text: 'look at shot.png' }]])
    expect(h.flashes[0]?.text).toBe(`Image not attached: ${join(dir, 'shot.png')}: not an image`)
  })

  it('a paste is checked for an image path before it goes back to the model', async () => {
    const h = harness()
    await h.run({ type: 'paste', text: `'${join(dir, 'shot.png')}'` })
    await h.run({ type: 'paste', text: 'plain words' })
    expect(h.events).toEqual([
      { type: 'paste', text: `'${join(dir, 'shot.png')}'`, imagePath: join(dir, 'shot.png') },
      { type: 'paste', text: 'plain words', imagePath: null },
    ])
  })

  it('a pasted image that fails to load is inserted as the text that was pasted', async () => {
    const h = harness({ failImages: true })
    await h.run({ type: 'load-image', path: '/x/a.png', text: '/x/a.png' })
    expect(h.events).toEqual([{ type: 'insert', text: '/x/a.png' }])
    expect(h.flashes).toEqual([{ text: 'Image not attached: /x/a.png: not an image', level: 'error' }])
  })

  it('lists the directory of an @path and sends the answer with its query', async () => {
    const h = harness()
    await h.run({ type: 'list-paths', query: 's' })
    expect(h.events).toEqual([
      {
        type: 'paths-listed',
        query: 's',
        items: [
          { value: 'src/', isDir: true },
          { value: 'shot.png', isDir: false },
        ],
      },
    ])
  })

  it('$EDITOR: the edited text goes back; a failure is said', async () => {
    const ok = harness()
    await ok.run({ type: 'open-editor', text: 'draft' })
    expect(ok.events).toEqual([{ type: 'editor-closed', text: 'edited' }])
    const failed = harness({ editor: { ok: false, error: 'vi exited with status 1' } })
    await failed.run({ type: 'open-editor', text: 'draft' })
    expect(failed.events).toEqual([])
    expect(failed.flashes).toEqual([{ text: 'External editor: vi exited with status 1', level: 'error' }])
  })

  it('commands go to the table; a failing !cmd says why', async () => {
    const h = harness()
    await h.run({ type: 'command', line: '/cost' })
    await h.run({ type: 'shell', command: 'ls' })
    expect(h.lines).toEqual(['/cost'])
    expect(h.flashes).toEqual([{ text: 'Shell command failed: bash is not available', level: 'error' }])
  })
})
