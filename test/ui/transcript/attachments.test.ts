import { describe, expect, it } from 'vitest'
import { createTheme } from '../../../source/ui/components/theme.js'
import { renderItemLines } from '../../../source/ui/panes/transcript/item-lines.js'
import { apply, baseState, plain } from './fixtures.js'

const theme = createTheme({ level: 1 })

describe('a user message with @path attachments', () => {
  it('lists what was attached under the message, refusals included, and keeps them on resume', () => {
    const state = apply(baseState(), {
      type: 'user/submitted',
      id: 'u1',
      content: 'compare @notes.txt and @.env\n\n[@notes.txt …]',
      text: 'compare @notes.txt and @.env',
      attachments: [
        { mention: 'notes.txt', attached: true, detail: '2 lines' },
        { mention: '.env', attached: false, detail: 'not attached: reading secrets files needs consent' },
      ],
    })
    const item = state.transcript.items.u1
    if (!item) throw new Error('no item')
    expect(plain(renderItemLines(item, 80, { expanded: false, theme }))).toEqual([
      '› compare @notes.txt and @.env',
      '  ⎿ @notes.txt · 2 lines',
      '    @.env · not attached: reading secrets files needs consent',
    ])
    // The model gets the content; the transcript shows what was typed.
    expect(state.messages.at(-1)?.content).toContain('[@notes.txt …]')
  })
})
