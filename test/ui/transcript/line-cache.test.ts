import { describe, expect, it } from 'vitest'
import type { TranscriptItem } from '../../../source/store/state.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { renderItemLines } from '../../../source/ui/panes/transcript/item-lines.js'
import { type ItemRenderer, LineCache } from '../../../source/ui/panes/transcript/line-cache.js'
import { apply, assistantSettled, baseState, userSubmitted } from './fixtures.js'

const theme = createTheme({ level: 0 })

/** The real renderer, counting calls and remembering what it was asked to render. */
function counting() {
  const calls: { id: string; text: string; width: number }[] = []
  const render: ItemRenderer = (item, width, expanded) => {
    calls.push({ id: item.id, text: item.kind === 'assistant' ? item.text : '', width })
    return renderItemLines(item, width, { expanded, theme })
  }
  return { calls, render }
}

function item(state: ReturnType<typeof baseState>, id: string): TranscriptItem {
  const found = state.transcript.items[id]
  if (!found) throw new Error(`no item ${id}`)
  return found
}

describe('LineCache', () => {
  it('renders a settled item once per width and reuses the lines', () => {
    const { calls, render } = counting()
    const cache = new LineCache({ render })
    const state = apply(baseState(), userSubmitted('u1', 'hello'))
    const first = cache.lines(item(state, 'u1'), 40, false)
    const second = cache.lines(item(state, 'u1'), 40, false)
    expect(second).toBe(first)
    expect(calls).toHaveLength(1)
  })

  it('re-renders when the item object, the expanded flag or the width changes', () => {
    const { calls, render } = counting()
    const cache = new LineCache({ render })
    let state = apply(baseState(), userSubmitted('u1', 'hello'))
    cache.lines(item(state, 'u1'), 40, false)
    cache.lines(item(state, 'u1'), 40, true)
    expect(calls).toHaveLength(2)
    state = apply(state, userSubmitted('u1', 'hello again'))
    cache.lines(item(state, 'u1'), 40, true)
    expect(calls).toHaveLength(3)
    cache.lines(item(state, 'u1'), 30, true)
    expect(calls).toHaveLength(4)
    expect(calls.at(-1)?.width).toBe(30)
  })

  it('renders a reply as its reasoning and its text; Ctrl+O re-renders only the reasoning', () => {
    const { calls, render } = counting()
    const cache = new LineCache({ render })
    let state = apply(baseState(), assistantSettled('a1', 'text', 'why'))
    const collapsed = cache.lines(item(state, 'a1'), 40, false)
    expect(calls.map((c) => c.text)).toEqual(['', 'text'])
    const settled = item(state, 'a1')
    expect(collapsed).toEqual(renderItemLines(settled, 40, { expanded: false, theme }))
    const expanded = cache.lines(item(state, 'a1'), 40, true)
    expect(calls.map((c) => c.text)).toEqual(['', 'text', ''])
    expect(expanded).toEqual(renderItemLines(settled, 40, { expanded: true, theme }))
    state = apply(state, assistantSettled('a1', 'new text', 'why'))
    cache.lines(item(state, 'a1'), 40, true)
    expect(calls.map((c) => c.text)).toEqual(['', 'text', '', 'new text'])
  })

  it('invalidates lazily on a width change: only items asked for are rendered again', () => {
    const { calls, render } = counting()
    const cache = new LineCache({ render })
    let state = baseState()
    for (let i = 0; i < 50; i++) state = apply(state, userSubmitted(`u${i}`, `message ${i}`))
    for (const id of state.transcript.order) cache.lines(item(state, id), 80, false)
    expect(calls).toHaveLength(50)
    cache.lines(item(state, 'u49'), 60, false)
    expect(calls).toHaveLength(51)
    expect(cache.size).toBe(1)
  })

  it('bounds memory by evicting the least recently used lines', () => {
    const { calls, render } = counting()
    const cache = new LineCache({ render, maxLines: 10 })
    let state = baseState()
    for (let i = 0; i < 30; i++) state = apply(state, userSubmitted(`u${i}`, `message ${i}`))
    for (const id of state.transcript.order) cache.lines(item(state, id), 80, false)
    expect(cache.size).toBe(10)
    cache.lines(item(state, 'u29'), 80, false)
    expect(calls).toHaveLength(30)
    cache.lines(item(state, 'u0'), 80, false)
    expect(calls).toHaveLength(31)
  })

  it('renders a streaming reply as a cached head plus a live tail', () => {
    const { calls, render } = counting()
    const cache = new LineCache({ render })
    const paragraphs = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} of the reply.`)
    let state = baseState()
    let rendered: readonly string[] = []
    for (const paragraph of paragraphs) {
      state = apply(state, { type: 'assistant/delta', id: 'a1', text: `${paragraph}\n\n` })
      rendered = cache.lines(item(state, 'a1'), 60, false)
    }
    // Each paragraph is rendered once: as the live tail, whose lines it keeps when it becomes a piece.
    expect(calls).toHaveLength(40)
    expect(Math.max(...calls.map((c) => c.text.length))).toBeLessThan(40)
    state = apply(state, { type: 'assistant/delta', id: 'a1', text: 'tail being typed' })
    rendered = cache.lines(item(state, 'a1'), 60, false)
    expect(calls.at(-1)?.text).toBe('tail being typed')
    // The joined pieces equal the whole text rendered at once.
    const live = item(state, 'a1')
    if (live.kind !== 'assistant') throw new Error('not an assistant item')
    const whole = renderItemLines({ ...live, streaming: false }, 60, { expanded: false, theme })
    expect(rendered).toEqual(whole)
    // A frame with nothing new renders nothing.
    const before = calls.length
    cache.lines(item(state, 'a1'), 60, false)
    expect(calls).toHaveLength(before)
  })

  it('settles a streamed reply without rendering it again', () => {
    const { calls, render } = counting()
    const cache = new LineCache({ render })
    const text = 'One.\n\nTwo.\n\nThree.'
    let state = apply(baseState(), { type: 'assistant/delta', id: 'a1', text })
    const streamed = cache.lines(item(state, 'a1'), 60, false)
    expect(calls.map((c) => c.text)).toEqual(['One.\n\n', 'Two.\n\n', 'Three.'])
    state = apply(state, assistantSettled('a1', text))
    const settled = cache.lines(item(state, 'a1'), 60, false)
    expect(calls).toHaveLength(3)
    expect(settled).toEqual(streamed)
    // A width change renders it again, piece by piece.
    cache.lines(item(state, 'a1'), 50, false)
    expect(calls.slice(3).map((c) => c.text)).toEqual(['One.\n\n', 'Two.\n\n', 'Three.'])
    expect(calls.at(-1)?.width).toBe(50)
  })

  it('renders only the pieces asked for: the end of a long reply without the rest', () => {
    const { calls, render } = counting()
    const cache = new LineCache({ render })
    const text = Array.from({ length: 500 }, (_, i) => `Paragraph ${i}.`).join('\n\n')
    const state = apply(baseState(), assistantSettled('a1', text))
    const pieces = cache.pieces(item(state, 'a1'), 60, false)
    expect(pieces.count).toBe(500)
    expect(calls).toHaveLength(0)
    expect(pieces.lines(499)).toEqual(['  Paragraph 499.'])
    expect(pieces.gapAbove(499)).toBe(1)
    expect(calls.map((c) => c.text)).toEqual(['Paragraph 499.'])
    // Whole, it is the reply rendered at once.
    expect(cache.lines(item(state, 'a1'), 60, false)).toEqual(
      renderItemLines(item(state, 'a1'), 60, { expanded: false, theme }),
    )
  })

  it('keeps a streaming code block whole in the live tail until its fence closes', () => {
    const { calls, render } = counting()
    const cache = new LineCache({ render })
    let state = apply(baseState(), { type: 'assistant/delta', id: 'a1', text: 'Intro\n\n```py\nx = 1\n\n' })
    cache.lines(item(state, 'a1'), 60, false)
    state = apply(state, { type: 'assistant/delta', id: 'a1', text: 'y = 2\n```\n\nOutro' })
    const lines = cache.lines(item(state, 'a1'), 60, false)
    expect(calls.map((c) => c.text)).toEqual([
      'Intro\n\n',
      '```py\nx = 1\n\n',
      '```py\nx = 1\n\ny = 2\n```\n\n',
      'Outro',
    ])
    expect(lines).toEqual(['  Intro', '', '  │ x = 1', '  │ ', '  │ y = 2', '', '  Outro'])
  })
})
