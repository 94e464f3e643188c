import { describe, expect, it } from 'vitest'
import { codeBlocks, lastAnswerText } from '../../../source/ui/clipboard/answer-text.js'
import { apply, assistantSettled, baseState, userSubmitted } from '../transcript/fixtures.js'

describe('lastAnswerText', () => {
  it('is undefined before any answer', () => {
    expect(lastAnswerText(baseState())).toBeUndefined()
    expect(lastAnswerText(apply(baseState(), userSubmitted('u1', 'hi')))).toBeUndefined()
  })

  it("joins the last turn's assistant texts, without reasoning", () => {
    const state = apply(
      baseState(),
      userSubmitted('u1', 'first'),
      assistantSettled('a1', 'old answer'),
      userSubmitted('u2', 'second'),
      assistantSettled('a2', 'Let me look.', 'thinking hard'),
      assistantSettled('a3', 'Here it is.'),
    )
    expect(lastAnswerText(state)).toBe('Let me look.\n\nHere it is.')
  })

  it('takes the turn before when the newest one has no text yet', () => {
    const state = apply(
      baseState(),
      userSubmitted('u1', 'first'),
      assistantSettled('a1', 'the answer'),
      userSubmitted('u2', 'second'),
    )
    expect(lastAnswerText(state)).toBe('the answer')
  })
})

describe('codeBlocks', () => {
  const table: [string, string, { lang: string; code: string }[]][] = [
    ['none', 'just text', []],
    ['one with a language', 'a\n```ts\nconst x = 1\n```\nb', [{ lang: 'ts', code: 'const x = 1' }]],
    ['no language, two lines', '```\nx\ny\n```', [{ lang: '', code: 'x\ny' }]],
    ['tildes', '~~~py\nprint(1)\n~~~', [{ lang: 'py', code: 'print(1)' }]],
    [
      'a shorter fence inside a longer one',
      '````md\n```js\nx\n```\n````',
      [{ lang: 'md', code: '```js\nx\n```' }],
    ],
    ['a backtick fence does not close a tilde one', '~~~\n```\n~~~', [{ lang: '', code: '```' }]],
    ['unclosed runs to the end', '```sh\nls\nrm x', [{ lang: 'sh', code: 'ls\nrm x' }]],
    [
      'two blocks in order',
      '```a\n1\n```\ntext\n```b\n2\n```',
      [
        { lang: 'a', code: '1' },
        { lang: 'b', code: '2' },
      ],
    ],
    ['indented up to three spaces', '   ```go\n   x\n   ```', [{ lang: 'go', code: '   x' }]],
  ]
  it.each(table)('%s', (_name, markdown, expected) => {
    expect(codeBlocks(markdown)).toEqual(expected)
  })
})
