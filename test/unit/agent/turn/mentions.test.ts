import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { attachMentions, findMentions, withAttachments } from '../../../../source/agent/turn/mentions.js'
import { createConsentBroker } from '../../../../source/permissions/broker.js'
import { createStore } from '../../../../source/store/create-store.js'
import { initialState } from '../../../../source/store/state.js'
import { createFileStateTracker } from '../../../../source/tools/file-state.js'
import { readTool } from '../../../../source/tools/read.js'
import { createOutputSpiller } from '../../../../source/tools/spill.js'
import type { AnyTool, ToolContext } from '../../../../source/tools/types.js'
import { rowSegments } from '../../../../source/ui/panes/input/editor-layout.js'
import { createPermissionGate } from '../../../../source/permissions/gate.js'
import { waitFor } from '../../tasks/helpers.ts'

describe('findMentions', () => {
  it.each<[string, string[]]>([
    ['explain @source/cli.ts please', ['source/cli.ts']],
    ['@a.ts and @b/ and @a.ts again', ['a.ts', 'b/', 'a.ts'].slice(0, 2)],
    ['mail me@example.com, not a mention', []],
    ['a spaced @my\\ notes.txt file', ['my notes.txt']],
    ['see @notes.txt.', ['notes.txt.']],
    ['line one\n@x.md', ['x.md']],
  ])('%j', (text, expected) => {
    expect(findMentions(text)).toEqual(expected)
  })
})

describe('rowSegments: @path mentions are chips in the prompt', () => {
  it('splits mentions and the caret out of a row', () => {
    expect(rowSegments('read @a.ts now', null)).toEqual([
      { text: 'read ', mention: false, caret: false },
      { text: '@a.ts', mention: true, caret: false },
      { text: ' now', mention: false, caret: false },
    ])
    const withCaret = rowSegments('@a.ts', 2)
    expect(withCaret.map((s) => [s.text, s.mention, s.caret])).toEqual([
      ['@a', true, false],
      ['.', true, true],
      ['ts', true, false],
    ])
    expect(rowSegments('x', 1).at(-1)).toEqual({ text: ' ', mention: false, caret: true })
    expect(rowSegments('me@host', null)).toEqual([{ text: 'me@host', mention: false, caret: false }])
  })
})

describe('attachMentions', () => {
  let root: string
  let workspace: string
  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-mentions-')))
    workspace = join(root, 'work')
    await mkdir(join(workspace, 'src', 'lib'), { recursive: true })
    await writeFile(join(workspace, 'notes.txt'), 'first\nsecond\n')
    await writeFile(join(workspace, 'src', 'a.ts'), 'export const a = 1\n')
    await writeFile(join(workspace, '.env'), 'TOKEN=secret\n')
    await writeFile(join(root, 'outside.txt'), 'outside text\n')
    await symlink(join(root, 'outside.txt'), join(workspace, 'innocent.txt'))
  })
  afterEach(() => rm(root, { recursive: true, force: true }))

  function setup(interactive: boolean) {
    const store = createStore(
      initialState({ id: 's', cwd: workspace, model: 'm', baseUrl: 'x', title: '', startedAt: 0 }, 'safe'),
    )
    const broker = createConsentBroker({
      dispatch: store.dispatch,
      policy: interactive ? 'interactive' : 'deny-all',
      workspace,
      home: root,
    })
    const gate = createPermissionGate({
      store,
      rules: { allow: [], ask: [], deny: [] },
      broker,
      workspace,
      home: root,
      additionalDirs: [],
      trustedReadDirs: [],
      interactive,
      savedTo: '.agent-tui/settings.local.json',
    })
    const files = createFileStateTracker()
    const spill = createOutputSpiller(join(root, 'outputs'))
    const signal = new AbortController().signal
    const context = (callId: string): ToolContext => ({
      workspace,
      cwd: () => workspace,
      setCwd: () => undefined,
      signal,
      sessionId: 's',
      files,
      spill,
      onProgress: () => undefined,
      supportsVision: false,
      callId,
      mode: () => 'safe',
    })
    const attach = (text: string, read: AnyTool = readTool) =>
      attachMentions(text, { workspace, gate, read, context, spill, signal })
    return { store, broker, files, attach }
  }

  it('attaches a file as Read shows it, and a folder as a listing; the model may then edit the file', async () => {
    const { attach, files } = setup(true)
    const [file, folder] = await attach('compare @notes.txt with @src/ please')
    expect(file).toMatchObject({ mention: 'notes.txt', attached: true, detail: '2 lines' })
    expect(file?.content).toContain(
      `[@notes.txt — the file ${workspace}/notes.txt, as the Read tool shows it:]`,
    )
    expect(file?.content).toMatch(/1\tfirst\n\s+2\tsecond/)
    expect(folder).toMatchObject({ mention: 'src/', attached: true, detail: 'directory, 2 entries' })
    expect(folder?.content).toContain('lib/\na.ts')
    expect(files.get(join(workspace, 'notes.txt'))).toBeDefined()
  })

  it('leaves mentions of paths that do not exist as text, and drops trailing punctuation', async () => {
    const { attach } = setup(true)
    const found = await attach('ping @nobody about @notes.txt.')
    expect(found.map((a) => a.mention)).toEqual(['notes.txt'])
  })

  it('refuses a secrets file and a symlink out of the workspace where nobody can allow them', async () => {
    const { attach } = setup(false)
    const [env, link] = await attach('@.env and @innocent.txt')
    expect(env).toMatchObject({ mention: '.env', attached: false })
    expect(env?.detail).toMatch(/^not attached: .*secret.*nobody can allow it here/)
    expect(env?.content).not.toContain('TOKEN=secret')
    expect(link).toMatchObject({ mention: 'innocent.txt', attached: false })
    expect(link?.detail).toMatch(/outside/)
    expect(link?.content).not.toContain('outside text')
  })

  it('attaches only the file the gate judged: a link swapped after the check is refused', async () => {
    const { attach } = setup(false)
    await symlink(join(workspace, 'notes.txt'), join(workspace, 'swap.txt'))
    // Read starts after the gate has judged swap.txt (a link to notes.txt, inside): the swap lands in between.
    const swapping: AnyTool = {
      ...readTool,
      execute: async (args, ctx) => {
        await rm(join(workspace, 'swap.txt'))
        await symlink(join(root, 'outside.txt'), join(workspace, 'swap.txt'))
        return readTool.execute(args, ctx)
      },
    }
    const [swapped] = await attach('@swap.txt', swapping)
    expect(swapped).toMatchObject({ mention: 'swap.txt', attached: false })
    expect(swapped?.detail).toMatch(/changed between the permission check and the read/)
    expect(swapped?.content).not.toContain('outside text')
  })

  it('asks before attaching a file outside the workspace, and attaches it only when allowed', async () => {
    const { attach, store, broker } = setup(true)
    const pending = attach(`@${join(root, 'outside.txt')} and @../outside.txt`)
    await waitFor(() => store.getState().consent.queue.length === 1, 'the consent request')
    const request = Object.values(store.getState().consent.byId)[0]
    expect(request).toMatchObject({
      tool: 'Read',
      summary: `attach @${join(root, 'outside.txt')} to your message`,
    })
    broker.resolve(request?.id as string, { kind: 'once' })
    const [allowed] = await pending
    expect(allowed).toMatchObject({ attached: true })
    expect(allowed?.content).toContain('outside text')

    const again = attach('@../outside.txt')
    await waitFor(() => store.getState().consent.queue.length === 1, 'the second consent request')
    broker.resolve(store.getState().consent.queue[0] as string, { kind: 'deny' })
    expect(await again).toEqual([
      expect.objectContaining({
        mention: '../outside.txt',
        attached: false,
        detail: 'not attached: you declined',
      }),
    ])
  })

  it('puts the attachments after the text the user typed, and notes them for the transcript', () => {
    const attachment = { mention: 'a', attached: true, detail: '1 line', content: '[@a …]\n1\tx', images: [] }
    const user = withAttachments({ content: 'look', text: 'look' }, [attachment])
    expect(user).toEqual({
      content: 'look\n\n[@a …]\n1\tx',
      text: 'look',
      attachments: [{ mention: 'a', attached: true, detail: '1 line' }],
    })
    const image = { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,AA' } }
    const withImage = withAttachments({ content: [{ type: 'text', text: 'look' }, image], text: 'look' }, [
      attachment,
    ])
    expect(withImage.content).toEqual([
      { type: 'text', text: 'look' },
      image,
      { type: 'text', text: '[@a …]\n1\tx' },
    ])
  })
})
