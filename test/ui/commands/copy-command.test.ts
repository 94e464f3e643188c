import { describe, expect, it } from 'vitest'
import type { Action } from '../../../source/store/actions.js'
import type { CopyOutcome } from '../../../source/ui/clipboard/clipboard.js'
import { BUILTIN_COMMANDS } from '../../../source/ui/commands/builtin-commands.js'
import type { CommandContext, FlashLevel } from '../../../source/ui/commands/command-context.js'
import { createCommandTable, runCommandLine } from '../../../source/ui/commands/command-table.js'
import { copyNotice } from '../../../source/ui/commands/copy-command.js'
import { assistantSettled, userSubmitted } from '../transcript/fixtures.js'
import { fakeCommands, makeStore } from '../shell/fake-commands.js'

const ANSWER = 'Two ways:\n\n```ts\nconst a = 1\n```\n\nor\n\n```sh\necho hi\nls\n```'

function fixture(
  actions: Action[],
  outcome: CopyOutcome = { via: ['OSC 52'], failed: [] },
  clipboard = true,
) {
  const store = makeStore(actions)
  const flashes: Array<{ text: string; level: FlashLevel }> = []
  const copied: string[] = []
  const info: Array<{ title: string; lines: string[] }> = []
  const ignore = () => {}
  const ctx: CommandContext = {
    commands: fakeCommands({ store }),
    getState: store.getState,
    contextLimit: 100_000,
    flash: (text, level = 'info') => flashes.push({ text, level }),
    showHelp: ignore,
    showInfo: (title, lines) => info.push({ title, lines }),
    showConfirm: ignore,
    showMcp: ignore,
    showSessions: ignore,
    showModels: ignore,
    resumeSession: ignore,
    openSetup: ignore,
    toggleTodos: ignore,
    setEditorMode: ignore,
    focusTasks: ignore,
    openRewind: ignore,
    attachImage: ignore,
    exit: ignore,
    ...(clipboard
      ? {
          copyText: async (text: string) => {
            copied.push(text)
            return outcome
          },
        }
      : {}),
  }
  const run = (line: string) => runCommandLine(createCommandTable(BUILTIN_COMMANDS), line, ctx)
  return { run, flashes, copied, info }
}

const answered = [userSubmitted('u1', 'how?'), assistantSettled('a1', ANSWER)]

describe('/copy', () => {
  it('copies the last answer and says how, naming its code blocks', async () => {
    const f = fixture(answered)
    await f.run('/copy')
    expect(f.copied).toEqual([ANSWER])
    expect(f.flashes).toEqual([
      {
        text: `Copied the last answer (${ANSWER.length} characters) via OSC 52 · 2 code blocks: /copy N, /copy list`,
        level: 'info',
      },
    ])
  })

  it('/copy N copies that code block only', async () => {
    const f = fixture(answered, { via: ['OSC 52 (and tmux passthrough)', 'xclip'], failed: [] })
    await f.run('/copy 2')
    expect(f.copied).toEqual(['echo hi\nls'])
    expect(f.flashes.at(-1)?.text).toBe(
      'Copied code block 2 (sh, 2 lines) via OSC 52 (and tmux passthrough) and xclip',
    )
  })

  it('/copy list shows the blocks', async () => {
    const f = fixture(answered)
    await f.run('/copy list')
    expect(f.copied).toEqual([])
    expect(f.info).toEqual([
      {
        title: 'Code blocks of the last answer — /copy N',
        lines: [' 1  ts, 1 line          const a = 1', ' 2  sh, 2 lines         echo hi'],
      },
    ])
  })

  const refusals: [string, Action[], string, string][] = [
    [
      'a block that does not exist',
      answered,
      '/copy 3',
      'no code block "3" in the last answer (it has 2: /copy 1…2)',
    ],
    ['not a number', answered, '/copy two', 'no code block "two"'],
    [
      'N of an answer without blocks',
      [userSubmitted('u', 'q'), assistantSettled('a', 'plain')],
      '/copy 1',
      'it has none',
    ],
  ]
  it.each(refusals)('refuses %s, copying nothing', async (_name, actions, line, message) => {
    const f = fixture(actions)
    await f.run(line)
    expect(f.copied).toEqual([])
    expect(f.flashes.at(-1)?.level).toBe('warn')
    expect(f.flashes.at(-1)?.text).toContain(message)
  })

  it('before any answer it is unavailable', async () => {
    const f = fixture([userSubmitted('u1', 'hi')])
    await f.run('/copy')
    expect(f.copied).toEqual([])
    expect(f.flashes.at(-1)?.text).toContain('no answer to copy yet')
  })

  it('nothing copied is an error that says why', async () => {
    const f = fixture(answered, { via: [], failed: ["xclip: Error: Can't open display: :0"] })
    await f.run('/copy 1')
    expect(f.flashes.at(-1)?.level).toBe('error')
    expect(f.flashes.at(-1)?.text).toContain("Nothing copied: xclip: Error: Can't open display: :0")
  })
})

describe('copyNotice', () => {
  const table: [string, CopyOutcome, number, string, FlashLevel][] = [
    ['OSC 52 only', { via: ['OSC 52'], failed: [] }, 0, 'Copied X via OSC 52', 'info'],
    ['both', { via: ['OSC 52', 'wl-copy'], failed: [] }, 0, 'Copied X via OSC 52 and wl-copy', 'info'],
    [
      'OSC 52, program failed',
      { via: ['OSC 52'], failed: ['wl-copy: no Wayland'] },
      0,
      'Copied X via OSC 52 (wl-copy: no Wayland)',
      'warn',
    ],
    [
      'neither way',
      { via: [], failed: [] },
      0,
      'Nothing copied: the terminal takes no OSC 52 and no clipboard program was found — install wl-copy, xclip, xsel (Linux) or use a terminal with OSC 52',
      'error',
    ],
    [
      'with blocks',
      { via: ['pbcopy'], failed: [] },
      1,
      'Copied X via pbcopy · 1 code block: /copy N, /copy list',
      'info',
    ],
  ]
  it.each(table)('%s', (_name, outcome, blocks, text, level) => {
    expect(copyNotice('X', outcome, blocks)).toEqual({ text, level })
  })
})
