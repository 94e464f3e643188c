import { render } from 'ink-testing-library'
import { describe, expect, it } from 'vitest'
import { createStore } from '../../../source/store/create-store.js'
import type { State } from '../../../source/store/state.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { StoreContext } from '../../../source/ui/hooks/use-store.js'
import { TranscriptPane } from '../../../source/ui/panes/transcript/transcript-pane.js'
import { createTranscriptView } from '../../../source/ui/panes/transcript/transcript-view.js'
import { apply, longConversation, userSubmitted } from './fixtures.js'
import stripAnsi from 'strip-ansi'

function mount(state: State, height: number, width = 60) {
  const store = createStore(state)
  const theme = createTheme({ level: 0 })
  const view = createTranscriptView(theme)
  const app = render(
    <StoreContext.Provider value={store}>
      <TranscriptPane view={view} theme={theme} width={width} height={height} />
    </StoreContext.Provider>,
  )
  const rows = () => stripAnsi(app.lastFrame() ?? '').split('\n')
  return { store, view, app, rows }
}

/** Waits for a rendered frame to satisfy `condition` (Ink renders store updates asynchronously). */
async function until(rows: () => string[], condition: (rows: string[]) => boolean): Promise<string[]> {
  for (let i = 0; i < 200; i++) {
    const current = rows()
    if (condition(current)) return current
    await new Promise((resolve) => setImmediate(resolve))
  }
  throw new Error(`condition never met; last frame:\n${rows().join('\n')}`)
}

describe('<TranscriptPane>', () => {
  it('renders exactly `height` rows, short or long transcript', () => {
    const short = mount(apply(longConversation(0), userSubmitted('u', 'hello')), 8)
    expect(short.rows()).toHaveLength(8)
    expect(short.rows()[0]).toBe('› hello')
    const long = mount(longConversation(5000), 12)
    expect(long.rows()).toHaveLength(12)
    expect(long.rows().at(-1)).toBe('  second paragraph of 4999')
    short.app.unmount()
    long.app.unmount()
  })

  it('auto-follows new output from the store', async () => {
    const { store, rows, app } = mount(longConversation(10), 6)
    store.dispatch(userSubmitted('u-new', 'brand new question'))
    const after = await until(rows, (r) => r.at(-1) === '› brand new question')
    expect(after).toHaveLength(6)
    app.unmount()
  })

  it('stays scrolled up and shows the new-output hint on the last row', async () => {
    const { store, view, rows, app } = mount(longConversation(20), 6)
    view.scrollBy(-4)
    const scrolled = await until(rows, (r) => !r.includes('  second paragraph of 19'))
    store.dispatch(userSubmitted('u-new', 'arrives while scrolled up'))
    const hinted = await until(rows, (r) => (r.at(-1) ?? '').includes('↓ new output'))
    expect(hinted).toHaveLength(6)
    expect(hinted.slice(0, 5)).toEqual(scrolled.slice(0, 5))
    expect(hinted.join('\n')).not.toContain('arrives while scrolled up')
    view.end()
    const followed = await until(rows, (r) => r.at(-1) === '› arrives while scrolled up')
    expect(followed.join('\n')).not.toContain('new output')
    app.unmount()
  })

  it('expands a tool card when its expanded flag is toggled in the store', async () => {
    const output = Array.from({ length: 10 }, (_, i) => `out ${i}`).join('\n')
    const state = apply(
      longConversation(2),
      { type: 'tool/started', callId: 't1', name: 'Bash', summary: 'ls', at: 0 },
      {
        type: 'tool/finished',
        callId: 't1',
        name: 'Bash',
        summary: 'ls',
        status: 'done',
        content: output,
        preview: output,
        display: null,
        durationMs: 20,
      },
    )
    const { store, view, rows, app } = mount(state, 20)
    expect(rows().join('\n')).toContain('… +6 more lines')
    const target = view.expandTarget()
    expect(target).toBe('t1')
    store.dispatch({ type: 'ui/expand-toggled', id: target ?? '' })
    const expanded = await until(rows, (r) => r.includes('    out 9'))
    expect(expanded).toHaveLength(20)
    app.unmount()
  })
})
