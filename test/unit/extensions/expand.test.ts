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
    ['$1 and $2 are words; quotes keep one', 'PR $1 to "$2"', '456 "Ann Lee"', 'PR 456 to "Ann Lee"'],
    ['a missing word is empty', 'a=$1 b=$2', 'x', 'a=x b='],
    [
      'no placeholder: the arguments are appended',
      'Review the code',
      'src/',
      'Review the code\n\nARGUMENTS: src/',
    ],
    ['no placeholder and no arguments: unchanged', 'Review the code', '', 'Review the code'],
    ['every occurrence', '$1/$1 $ARGUMENTS', 'a b', 'a/a a b'],
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
    expect(expandCommand(command, 'Review $1: !`git diff --stat $1`', 'src')).toEqual({
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
})
