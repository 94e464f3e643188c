import { describe, expect, it } from 'vitest'
import type { CommandDefinition } from '../../../source/extensions/types.js'
import { BUILTIN_COMMANDS, INIT_PROMPT } from '../../../source/ui/commands/builtin-commands.js'
import type { CommandContext } from '../../../source/ui/commands/command-context.js'
import {
  createCommandTable,
  promptOfLine,
  runCommandLine,
} from '../../../source/ui/commands/command-table.js'
import { userCommandEntries } from '../../../source/ui/commands/user-commands.js'
import { fakeCommands, makeStore } from '../shell/fake-commands.js'

const review: CommandDefinition = {
  name: 'review',
  scope: 'project',
  namespace: ['git'],
  description: 'Review the changes',
  argumentHint: '[path]',
  allowedTools: ['Bash(git diff *)'],
  readBody: async () => 'Review $ARGUMENTS: !`git diff --stat`',
  file: '.agent-tui/commands/git/review.md',
}

function table() {
  const t = createCommandTable(BUILTIN_COMMANDS)
  t.add(userCommandEntries([review]))
  return t
}

describe('user commands in the table', () => {
  it('are listed with where they come from, and complete like built-in ones', () => {
    const entry = table().find('review')
    expect(entry).toMatchObject({
      name: 'review',
      argumentHint: '[path]',
      description: 'Review the changes (project:git)',
      source: 'project:git',
    })
    expect(
      table()
        .complete('/rev')
        .map((c) => c.name),
    ).toEqual(['review'])
  })

  it('the TUI sends what was typed with the expanded command', async () => {
    const store = makeStore()
    const commands = fakeCommands({ store })
    const flashes: string[] = []
    const ctx = {
      commands,
      getState: store.getState,
      flash: (t: string) => flashes.push(t),
    } as unknown as CommandContext
    await runCommandLine(table(), '/review src', ctx)
    expect(commands.named('submit')).toEqual([
      [
        {
          text: '/review src',
          command: {
            name: 'review',
            file: '.agent-tui/commands/git/review.md',
            parts: [
              { kind: 'text', text: 'Review src: ' },
              { kind: 'shell', command: 'git diff --stat' },
            ],
            allowedTools: ['Bash(git diff *)'],
          },
        },
      ],
    ])
    expect(flashes).toEqual([])
  })
})

describe('promptOfLine (headless, and a prompt given on the command line)', () => {
  const state = makeStore().getState()

  it.each([
    ['plain text is no command', 'explain this', null],
    ['a path is text', '/usr/bin/env is broken', null],
    ['/init sends its prompt', '/init', { ok: true, input: { text: INIT_PROMPT } }],
    [
      'an unknown command says which ones run here',
      '/reveiw src',
      { ok: false, message: 'unknown command /reveiw; commands that run here: /init, /review' },
    ],
    [
      'a command of the full-screen session says so',
      '/clear',
      {
        ok: false,
        message: '/clear works in the full-screen session only; here give a prompt or a prompt command',
      },
    ],
  ])('%s', async (_name, line, expected) => {
    expect(await promptOfLine(table(), line, state)).toEqual(expected)
  })

  it('an unknown command among hundreds names the first 30 and counts the rest', async () => {
    const many = createCommandTable(
      Array.from({ length: 300 }, (_, i) => ({
        name: `c${i}`,
        description: 'd',
        prompt: () => ({ text: 'x' }),
      })),
    )
    const resolved = await promptOfLine(many, '/nope', state)
    expect(resolved).toEqual({
      ok: false,
      message: expect.stringMatching(/commands that run here: \/c0, \/c1, .*\/c29, and 270 more$/),
    })
  })

  it('a command that cannot run now says why', async () => {
    const later = createCommandTable([
      { name: 'later', description: 'd', unavailable: () => 'not yet', prompt: () => ({ text: 'x' }) },
    ])
    expect(await promptOfLine(later, '/later', state)).toEqual({
      ok: false,
      message: '/later is not available: not yet',
    })
  })

  it('a user command gives its expanded invocation', async () => {
    const resolved = await promptOfLine(table(), '/review src', state)
    expect(resolved).toMatchObject({ ok: true, input: { text: '/review src', command: { name: 'review' } } })
  })
})
