import { render } from 'ink-testing-library'
import stripAnsi from 'strip-ansi'
import { describe, expect, it } from 'vitest'
import { createStore } from '../../../source/store/create-store.js'
import { StoreContext } from '../../../source/ui/hooks/use-store.js'
import { TranscriptPane } from '../../../source/ui/panes/transcript/transcript-pane.js'
import { createSearchSlot } from '../../../source/ui/panes/transcript/use-transcript-search.js'
import type { State, TranscriptItem } from '../../../source/store/state.js'
import { PALETTES } from '../../../source/ui/components/palette.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { renderItemLines } from '../../../source/ui/panes/transcript/item-lines.js'
import { type ItemRenderer, LineCache } from '../../../source/ui/panes/transcript/line-cache.js'
import { searchStyles } from '../../../source/ui/panes/transcript/search-highlight.js'
import { TranscriptSearch } from '../../../source/ui/panes/transcript/transcript-search.js'
import {
  type TranscriptSnapshot,
  TranscriptView,
} from '../../../source/ui/panes/transcript/transcript-view.js'
import { apply, assistantSettled, baseState, longConversation, plain, userSubmitted } from './fixtures.js'

const theme = createTheme({ level: 1 })
const styles = searchStyles(theme)

function snapshot(state: State): TranscriptSnapshot {
  return { order: state.transcript.order, items: state.transcript.items, expanded: state.ui.expanded }
}

function setup() {
  let renders = 0
  let folds = 0
  const render: ItemRenderer = (item, width, expanded) => {
    renders++
    return renderItemLines(item, width, { expanded, theme })
  }
  const view = new TranscriptView(new LineCache({ render }))
  const search = new TranscriptSearch(
    view,
    (item, width, expanded) => {
      folds++
      return renderItemLines(item, width, { expanded, theme })
    },
    theme,
  )
  /** One frame as the pane draws it while the search is open: the rows above, the search's row last. */
  const frame = (state: State, width = 60, height = 10) => {
    const shown = search.frame(snapshot(state), width, height - 1)
    const rows = [...view.layout(shown.snapshot, width, height - 1, shown.decorate).rows, shown.bar]
    return { rows, text: plain(rows), snapshot: shown.snapshot }
  }
  const type = (text: string) => search.send({ type: 'input', text })
  return { view, search, frame, type, renders: () => renders, folds: () => folds }
}

/** Rows holding the current match (inverse) or another match (the match colour). */
const currentRows = (rows: readonly string[]) =>
  rows.flatMap((r, i) => (r.includes(`${styles.current}`) && i < rows.length - 1 ? [i] : []))

function tool(id: string, result: string, preview = ''): TranscriptItem {
  return {
    kind: 'tool',
    id,
    name: 'Bash',
    summary: 'make',
    status: 'done',
    startedAt: 0,
    durationMs: 10,
    preview,
    display: null,
    result,
    masked: false,
  }
}

function withItems(state: State, ...items: TranscriptItem[]): State {
  return {
    ...state,
    transcript: {
      ...state.transcript,
      order: [...state.transcript.order, ...items.map((i) => i.id)],
      items: { ...state.transcript.items, ...Object.fromEntries(items.map((i) => [i.id, i])) },
    },
  }
}

describe('TranscriptSearch', () => {
  it('counts every match in the transcript and starts at the first one on screen or below', () => {
    const { search, frame, type } = setup()
    const state = longConversation(40) // questions on even items, answers on odd ones
    frame(state)
    search.send({ type: 'open' })
    type('answer 3')
    const shown = frame(state)
    // answer 3, 31, 33, 35, 37, 39; the view shows the end from answer 37 on, so that one is picked.
    expect(shown.text.at(-1)).toContain('match 5 of 6')
    expect(shown.text[currentRows(shown.rows)[0] ?? -1]).toBe('  answer 37')
  })

  it('n/N move through the matches, wrapping around, and scroll each one into view', () => {
    const { search, frame, type } = setup()
    const state = longConversation(60)
    frame(state, 60, 24)
    search.send({ type: 'open' })
    type('answer 1')
    // answer 1, 11, 13, 15, 17, 19 (even items are questions): 6 matches, none on screen at the bottom.
    let shown = frame(state, 60, 24)
    expect(shown.text.at(-1)).toContain('match 6 of 6')
    expect(shown.text[currentRows(shown.rows)[0] ?? -1]).toBe('  answer 19')
    search.step(1)
    shown = frame(state, 60, 24)
    expect(shown.text.at(-1)).toContain('match 1 of 6')
    expect(shown.text[currentRows(shown.rows)[0] ?? -1]).toBe('  answer 1')
    search.step(-1)
    search.step(-1)
    shown = frame(state, 60, 24)
    expect(shown.text.at(-1)).toContain('match 5 of 6')
    expect(shown.text[currentRows(shown.rows)[0] ?? -1]).toBe('  answer 17')
    // The other matches on screen are marked too, in the match colour.
    expect(shown.rows.some((r) => r.includes(`${styles.match}answer 1`))).toBe(true)
  })

  it('smart case: a capital makes the query exact', () => {
    const { search, frame, type } = setup()
    const state = apply(baseState(), userSubmitted('u1', 'Apple and apple'), assistantSettled('a1', 'APPLE'))
    frame(state)
    search.send({ type: 'open' })
    type('apple')
    expect(frame(state).text.at(-1)).toContain('of 3')
    search.send({ type: 'clear' })
    type('Apple')
    expect(frame(state).text.at(-1)).toContain('match 1 of 1')
  })

  it('says so when nothing matches, and shows nothing highlighted for an empty query', () => {
    const { search, frame, type } = setup()
    const state = longConversation(6)
    frame(state)
    search.send({ type: 'open' })
    let shown = frame(state)
    expect(shown.text.at(-1)).toContain('type to search')
    expect(shown.rows.slice(0, -1).join('')).not.toContain(styles.match)
    type('zebra')
    shown = frame(state)
    expect(shown.text.at(-1)).toContain('no matches')
    search.step(1)
    expect(search.state.current).toBe(-1)
  })

  it('opens a folded tool card whose hidden output matches, and says how many it opened', () => {
    const { search, frame, type } = setup()
    const output = ['needle in the head', ...Array.from({ length: 20 }, (_, i) => `line ${i}`)].join('\n')
    const state = withItems(
      apply(baseState(), userSubmitted('u1', 'run it')),
      tool('t1', output, 'needle in the head'),
    )
    // Folded, the card shows its preview only: a match there needs nothing opened.
    frame(state, 80, 20)
    search.send({ type: 'open' })
    type('line 19')
    const shown = frame(state, 80, 20)
    expect(shown.snapshot.expanded).toEqual({ t1: true })
    expect(shown.text.at(-1)).toContain('1 folded block opened')
    expect(shown.text.some((r) => r.includes('line 19'))).toBe(true)
    expect(currentRows(shown.rows)).toHaveLength(1)
    // A match the folded card shows opens nothing.
    search.send({ type: 'clear' })
    type('needle')
    expect(frame(state, 80, 20).snapshot.expanded).toEqual({})
  })

  it('renders nothing again for a key in the field: rows are stripped once, searched per query', () => {
    const { search, frame, type, renders, folds } = setup()
    const state = longConversation(200)
    frame(state)
    search.send({ type: 'open' })
    type('a')
    frame(state)
    const rendered = renders()
    const folded = folds()
    for (const key of 'nswer 1') {
      type(key)
      frame(state)
    }
    expect(renders()).toBe(rendered)
    expect(folds()).toBe(folded)
    // answer 1, 11 … 19, 101 … 199 (odd ones are answers).
    expect(frame(state).text.at(-1)).toContain('of 56')
  })

  it('keeps the same frame result while nothing changed, and drops it when closed', () => {
    const { search, frame, type } = setup()
    const state = longConversation(10)
    frame(state)
    search.send({ type: 'open' })
    type('question')
    const first = search.frame(snapshot(state), 60, 9).snapshot
    expect(search.frame(snapshot(state), 60, 9).snapshot).toBe(first)
    search.send({ type: 'close' })
    expect(search.isOpen()).toBe(false)
    expect(search.state.query).toBe('')
  })
})

describe('<TranscriptPane> with a search slot', () => {
  async function frameOf(app: ReturnType<typeof render>, test: (f: string) => boolean) {
    for (let i = 0; i < 500 && !test(app.lastFrame() ?? ''); i++) await new Promise((r) => setImmediate(r))
    const frame = app.lastFrame() ?? ''
    if (!test(frame)) throw new Error(`condition never met; last frame:\n${frame}`)
    return frame
  }

  it('draws nothing of the search while it is closed (its frame never runs), all of it once open', async () => {
    const store = createStore(longConversation(10))
    const view = new TranscriptView(
      new LineCache({ render: (i, w, e) => renderItemLines(i, w, { expanded: e, theme }) }),
    )
    const search = new TranscriptSearch(
      view,
      (i, w, e) => renderItemLines(i, w, { expanded: e, theme }),
      theme,
    )
    let frames = 0
    const original = search.frame.bind(search)
    search.frame = (...args) => {
      frames++
      return original(...args)
    }
    const slot = createSearchSlot()
    slot.fill(search)
    const app = render(
      <StoreContext.Provider value={store}>
        <TranscriptPane view={view} theme={theme} width={60} height={8} search={slot} />
      </StoreContext.Provider>,
    )
    const closed = await frameOf(app, (f) => f.includes('second paragraph of 9'))
    expect(frames).toBe(0)
    expect(stripAnsi(closed).split('\n').at(-1)).toBe('  second paragraph of 9')
    // Typed before any frame of the search (as while its module loads): the first frame picks the match.
    search.send({ type: 'open' })
    search.send({ type: 'input', text: 'paragraph of 9' })
    const open = await frameOf(app, (f) => f.includes('match 1 of 1'))
    expect(frames).toBeGreaterThan(0)
    const rows = open.split('\n')
    expect(rows).toHaveLength(8)
    expect(rows.at(-2)).toContain(`${styles.current}paragraph of 9`)
    search.send({ type: 'close' })
    const again = await frameOf(app, (f) => !f.includes('match 1 of 1'))
    expect(stripAnsi(again)).toBe(stripAnsi(closed))
    app.unmount()
  })

  /**
   * Each theme's own colours (the truecolor codes of palette.ts): the current match on `matchCurrent`'s
   * background, the others on `match`'s, never the same; none inverse.
   */
  it.each([
    ['dark', '\x1b[30m\x1b[46m', '\x1b[30m\x1b[43m'],
    ['light', '\x1b[38;2;255;255;255m\x1b[48;2;0;95;175m', '\x1b[38;2;0;0;0m\x1b[48;2;255;215;95m'],
    ['high-contrast', '\x1b[38;2;255;255;255m\x1b[48;2;0;0;215m', '\x1b[38;2;0;0;0m\x1b[48;2;255;255;0m'],
  ] as const)(
    '%s theme: the current match in matchCurrent, the others in match',
    async (name, current, other) => {
      const themed = createTheme({ level: 3, palette: PALETTES[name] })
      const renderLines: ItemRenderer = (i, w, e) => renderItemLines(i, w, { expanded: e, theme: themed })
      const store = createStore(longConversation(10))
      const view = new TranscriptView(new LineCache({ render: renderLines }))
      const search = new TranscriptSearch(view, renderLines, themed)
      const slot = createSearchSlot()
      slot.fill(search)
      const app = render(
        <StoreContext.Provider value={store}>
          <TranscriptPane view={view} theme={themed} width={60} height={12} search={slot} />
        </StoreContext.Provider>,
      )
      await frameOf(app, (f) => f.includes('second paragraph of 9'))
      search.send({ type: 'open' })
      search.send({ type: 'input', text: 'paragraph' })
      // The first match on screen is the current one: paragraph of 7 (of 1, 3, 5, 7, 9).
      const open = await frameOf(app, (f) => f.includes('match 4 of 5'))
      const rows = open.split('\n')
      const at = (text: string) => rows.find((r) => stripAnsi(r).includes(text)) ?? ''
      expect(at('second paragraph of 7')).toContain(`${current}paragraph`)
      expect(at('second paragraph of 9')).toContain(`${other}paragraph`)
      expect(at('second paragraph of 9')).not.toContain(current)
      // Only the search field's caret is inverse.
      expect(rows.slice(0, -1).join('\n')).not.toContain('\x1b[7m')
      search.step(1)
      const next = await frameOf(app, (f) => f.includes('match 5 of 5'))
      const again = next.split('\n')
      const row = (text: string) => again.find((r) => stripAnsi(r).includes(text)) ?? ''
      expect(row('second paragraph of 9')).toContain(`${current}paragraph`)
      expect(row('second paragraph of 7')).toContain(`${other}paragraph`)
      app.unmount()
    },
  )
})
