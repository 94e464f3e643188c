import { describe, expect, it } from 'vitest'
import { attachMentions, findMentions } from '../../../../source/agent/turn/mcp-mentions.js'
import type { OutputSpiller } from '../../../../source/tools/types.js'

const spill: OutputSpiller = {
  dir: '/tmp/x',
  spill: async () => '/tmp/x/spilled.txt',
  open: () => {
    throw new Error('not used')
  },
  isSpillPath: () => false,
}

describe('findMentions', () => {
  it.each([
    ['one', 'read @docs:file:///a.md now', [{ server: 'docs', uri: 'file:///a.md' }]],
    ['at the start, trailing punctuation dropped', '@docs:res://x.', [{ server: 'docs', uri: 'res://x' }]],
    ['unknown server', 'mail me@host:25 or @other:x', []],
    ['a path mention with a line', 'see @src/a.ts:12', []],
    [
      'repeats once',
      '@docs:a @docs:a @docs:b',
      [
        { server: 'docs', uri: 'a' },
        { server: 'docs', uri: 'b' },
      ],
    ],
  ])('%s', (_name, text, found) => {
    expect(findMentions(text, ['docs'])).toEqual(found)
  })
})

describe('attachMentions', () => {
  it('appends each resource after the text; one that fails is reported and left out', async () => {
    const errors: string[] = []
    const content = await attachMentions(
      'look at @docs:a and @docs:b',
      [
        { server: 'docs', uri: 'a' },
        { server: 'docs', uri: 'b' },
      ],
      async (m) => {
        if (m.uri === 'b') throw new Error('no such resource')
        return 'A text'
      },
      spill,
      (m, message) => errors.push(`${m.uri}: ${message}`),
    )
    expect(content).toBe(
      'look at @docs:a and @docs:b\n\n<mcp-resource server="docs" uri="a">\nA text\n</mcp-resource>',
    )
    expect(errors).toEqual(['b: no such resource'])
  })

  it('keeps image parts and adds the resource as a text part', async () => {
    const parts = [
      { type: 'text' as const, text: 'see' },
      { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,AA' } },
    ]
    const content = await attachMentions(
      parts,
      [{ server: 's', uri: 'u' }],
      async () => 'R',
      spill,
      () => undefined,
    )
    expect(content).toEqual([
      ...parts,
      { type: 'text', text: '<mcp-resource server="s" uri="u">\nR\n</mcp-resource>' },
    ])
  })
})
