import { describe, expect, it } from 'vitest'
import type { State } from '../../../source/store/state.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { renderItemLines } from '../../../source/ui/panes/transcript/item-lines.js'
import { type ItemRenderer, LineCache } from '../../../source/ui/panes/transcript/line-cache.js'
import {
  type TranscriptSnapshot,
  TranscriptView,
} from '../../../source/ui/panes/transcript/transcript-view.js'
import { apply, assistantSettled, longConversation, plain, userSubmitted } from './fixtures.js'

const theme = createTheme({ level: 0 })

function setup(maxLines?: number) {
  let renders = 0
  const render: ItemRenderer = (item, width, expanded) => {
    renders++
    return renderItemLines(item, width, { expanded, theme })
  }
  const view = new TranscriptView(new LineCache({ render, ...(maxLines ? { maxLines } : {}) }))
  return {
    view,
    renders: () => renders,
    frame: (state: State, width = 40, height = 10) => view.layout(snapshot(state), width, height),
  }
}

function snapshot(state: State): TranscriptSnapshot {
  return { order: state.transcript.order, items: state.transcript.items, expanded: state.ui.expanded }
}

// Built once: 5,000 items through the real reducer.
const big = longConversation(5000)

describe('TranscriptView', () => {
  it('shows exactly `height` rows, padding a short transcript at the bottom', () => {
    const { frame } = setup()
    const state = apply(longConversation(0), userSubmitted('u', 'hi'))
    const rows = plain(frame(state, 40, 5).rows)
    expect(rows).toEqual(['› hi', '', '', '', ''])
    expect(frame(state, 40, 0).rows).toEqual([])
  })

  it('follows the bottom of a long transcript, one blank row between items', () => {
    const { frame } = setup()
    const result = frame(longConversation(10), 40, 6)
    expect(result.following).toBe(true)
    expect(plain(result.rows)).toEqual(['', '› question 8', '', '  answer 9', '', '  second paragraph of 9'])
  })

  it('renders only the items on screen of a 5,000-item transcript, and nothing again next frame', () => {
    const { frame, renders } = setup()
    const first = frame(big, 80, 20)
    expect(plain(first.rows).at(-1)).toBe('  second paragraph of 4999')
    // 20 rows hold at most 10 items (each item is at least one line plus its gap).
    expect(renders()).toBeLessThanOrEqual(10)
    const afterFirst = renders()
    frame(big, 80, 20)
    expect(renders()).toBe(afterFirst)
    // Appending one item renders just that item.
    const next = apply(big, userSubmitted('u-new', 'one more'))
    expect(plain(frame(next, 80, 20).rows).at(-1)).toBe('› one more')
    expect(renders()).toBe(afterFirst + 1)
    // A width change re-renders only what comes into view.
    const beforeResize = renders()
    expect(plain(frame(next, 50, 20).rows).at(-1)).toBe('› one more')
    expect(renders() - beforeResize).toBeLessThanOrEqual(10)
  })

  it('shows the end of a very long reply without rendering the rest, and scrolls through it piece by piece', () => {
    const { frame, renders, view } = setup()
    const text = Array.from({ length: 2000 }, (_, i) => `Paragraph ${i}.`).join('\n\n')
    const state = apply(
      apply(longConversation(0), userSubmitted('u', 'write a lot')),
      assistantSettled('a', text),
    )
    /** Paragraphs `from`..`to` as rows, each with the blank row above it. */
    const paragraphs = (from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, i) => ['', `  Paragraph ${from + i}.`]).flat()
    expect(plain(frame(state, 40, 6).rows)).toEqual(paragraphs(1997, 1999))
    expect(renders()).toBeLessThanOrEqual(4)
    // Page up moves by height - 1 rows.
    view.pageUp()
    expect(plain(frame(state, 40, 6).rows)).toEqual([...paragraphs(1994, 1996).slice(1), ''])
    expect(renders()).toBeLessThanOrEqual(7)
    view.home()
    expect(plain(frame(state, 40, 6).rows)).toEqual(['› write a lot', ...paragraphs(0, 1), ''])
    view.end()
    expect(plain(frame(state, 40, 6).rows).at(-1)).toBe('  Paragraph 1999.')
  })

  it('keeps per-frame work flat while scrolling through 5,000 items', () => {
    const { view, frame, renders } = setup(2000)
    frame(big, 80, 20)
    view.home()
    const top = frame(big, 80, 20)
    expect(plain(top.rows)[0]).toBe('› question 0')
    expect(top.following).toBe(false)
    for (let page = 0; page < 50; page++) {
      const before = renders()
      view.pageDown()
      frame(big, 80, 20)
      expect(renders() - before).toBeLessThanOrEqual(12)
    }
  })

  it('stays put when scrolled up and shows the new-output hint when content arrives', () => {
    const { view, frame } = setup()
    let state = longConversation(20)
    const bottom = plain(frame(state, 40, 6).rows)
    view.scrollBy(-3)
    const scrolled = frame(state, 40, 6)
    expect(scrolled.following).toBe(false)
    expect(scrolled.newOutput).toBe(false)
    expect(plain(scrolled.rows).slice(3)).toEqual(bottom.slice(0, 3))
    state = apply(state, userSubmitted('u-late', 'late message'))
    const after = frame(state, 40, 6)
    expect(plain(after.rows)).toEqual(plain(scrolled.rows))
    expect(after.newOutput).toBe(true)
    view.end()
    const followed = frame(state, 40, 6)
    expect(followed.following).toBe(true)
    expect(followed.newOutput).toBe(false)
    expect(plain(followed.rows).at(-1)).toBe('› late message')
  })

  it('resumes following when scrolled back down to the bottom', () => {
    const { view, frame } = setup()
    const state = longConversation(20)
    frame(state, 40, 6)
    view.pageUp()
    frame(state, 40, 6)
    expect(view.isFollowing()).toBe(false)
    view.scrollBy(2)
    expect(view.isFollowing()).toBe(false)
    view.pageDown()
    expect(view.isFollowing()).toBe(true)
  })

  it('notifies subscribers on scroll changes only', () => {
    const { view, frame } = setup()
    const state = longConversation(20)
    frame(state, 40, 6)
    let notified = 0
    const unsubscribe = view.subscribe(() => notified++)
    view.end()
    expect(notified).toBe(0)
    view.scrollBy(-1)
    expect(notified).toBe(1)
    expect(view.getVersion()).toBeGreaterThan(0)
    view.end()
    expect(notified).toBe(2)
    unsubscribe()
  })

  it('does not scroll when everything fits', () => {
    const { view, frame } = setup()
    const state = longConversation(2)
    frame(state, 40, 20)
    view.pageUp()
    view.home()
    expect(view.isFollowing()).toBe(true)
  })

  it('points Ctrl+O at the lowest expandable item on screen', () => {
    const { view, frame } = setup()
    const state = apply(
      longConversation(2),
      { type: 'tool/started', callId: 't1', name: 'Read', summary: 'a.ts', at: 0 },
      userSubmitted('u-last', 'thanks'),
    )
    frame(state, 40, 10)
    expect(view.expandTarget()).toBe('t1')
  })

  it('points Ctrl+O at a hook card below the last tool card', () => {
    const { view, frame } = setup()
    const state = apply(
      longConversation(2),
      { type: 'tool/started', callId: 't1', name: 'Read', summary: 'a.ts', at: 0 },
      {
        type: 'hook/ran',
        id: 'h1',
        event: 'PostToolUse',
        level: 'info',
        text: 'PostToolUse hook: ok',
        detail: '$ x',
      },
    )
    frame(state, 40, 10)
    expect(view.expandTarget()).toBe('h1')
  })
})
