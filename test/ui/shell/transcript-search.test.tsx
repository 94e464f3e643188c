import { afterEach, describe, expect, it } from 'vitest'
import type { Action } from '../../../source/store/actions.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { TuiRoot } from '../../../source/ui/tui-root.js'
import { fakeCommands, KEYS, makeStore, renderSized, waitFor } from './helpers.js'

const theme = createTheme({ level: 0 })
const INVERSE = '\x1b[7m'

/** Ten exchanges: "question i" / "answer i about apples" (i = 0 … 9), then a last reply with two matches. */
function conversation(): Action[] {
  const actions: Action[] = []
  for (let i = 0; i < 10; i++) {
    actions.push({ type: 'user/submitted', id: `u${i}`, content: `question ${i}`, text: `question ${i}` })
    actions.push({
      type: 'assistant/settled',
      id: `a${i}`,
      message: { role: 'assistant', content: `answer ${i} about apples` },
    })
  }
  actions.push({
    type: 'assistant/settled',
    id: 'last',
    message: { role: 'assistant', content: 'APPLES and Apples' },
  })
  return actions
}

let unmount: (() => void) | undefined
afterEach(() => {
  unmount?.()
  unmount = undefined
})

function start(columns = 80, rows = 24) {
  const store = makeStore(conversation())
  const commands = fakeCommands({ store })
  const r = renderSized(
    <TuiRoot
      store={store}
      commands={commands}
      contextLimit={100_000}
      theme={theme}
      doublePressMs={60_000}
      onExit={() => {}}
    />,
    columns,
    rows,
    { terminalInput: true },
  )
  unmount = () => r.instance.unmount()
  const lines = () => r.frame().split('\n')
  const until = (test: (frame: string) => boolean) => waitFor(() => test(r.frame()), r.frame)
  /** The row that holds the current match (drawn inverse), as text. */
  const currentRow = () => {
    const raw = r.stdout.lastFrame().split('\n')
    const i = raw.findIndex((row, k) => k > 0 && row.includes(INVERSE) && !row.includes(' / '))
    return i < 0 ? undefined : lines()[i]
  }
  return { ...r, store, commands, lines, until, currentRow }
}

describe('transcript search in the app', () => {
  it('Ctrl+F from the prompt: highlights, "match N of M", Enter/↑ and n/N move, Esc back to the draft', async () => {
    const app = start()
    await app.until((f) => f.includes('APPLES and Apples'))
    app.stdin.write('my draft')
    await app.until((f) => f.includes('❯ my draft'))

    app.stdin.write(KEYS.ctrl('f'))
    await app.until((f) => f.includes('type to search'))
    app.stdin.write('apples')
    // Lower case matches every case: ten answers and both words of the last reply. The first match on
    // screen (answer 5, at the top of the view) is the current one.
    await app.until((f) => /match \d+ of 12/.test(f))
    expect(app.frame()).toContain('match 6 of 12')
    expect(app.currentRow()).toContain('answer 5 about apples')

    app.stdin.write(KEYS.enter)
    await app.until((f) => f.includes('match 7 of 12'))
    for (let i = 0; i < 6; i++) app.stdin.write(KEYS.up)
    await app.until((f) => f.includes('match 1 of 12'))
    // The first match is above the view: it scrolled there.
    expect(app.currentRow()).toContain('answer 0 about apples')
    // Wrap-around at both ends.
    app.stdin.write(KEYS.up)
    await app.until((f) => f.includes('match 12 of 12'))
    expect(app.currentRow()).toContain('APPLES and Apples')
    app.stdin.write(KEYS.down)
    await app.until((f) => f.includes('match 1 of 12'))

    // Tab: the keys go to the transcript, where n and N move.
    app.stdin.write(KEYS.tab)
    await app.until((f) => f.includes('n/N next/previous'))
    app.stdin.write('N')
    await app.until((f) => f.includes('match 12 of 12'))
    app.stdin.write('n')
    await app.until((f) => f.includes('match 1 of 12'))
    // `/` goes back to the field, where typing edits the query (a capital: exact case).
    app.stdin.write('/')
    await app.until((f) => f.includes('Enter/↓ next'))
    for (let i = 0; i < 6; i++) app.stdin.write(KEYS.backspace)
    app.stdin.write('Apples')
    await app.until((f) => f.includes(' / Apples') && f.includes('match 1 of 1 ·'))

    app.stdin.write(KEYS.esc)
    await app.until((f) => !f.includes(' / Apples'))
    await waitFor(() => app.store.getState().ui.focus === 'input')
    app.stdin.write(' kept')
    await app.until((f) => f.includes('❯ my draft kept'))
    expect(app.stdout.lastFrame()).not.toContain(INVERSE + 'Apples')
  })

  it('with the transcript focused, a letter that is not n/N goes to the prompt and closes the search', async () => {
    const app = start(100, 30)
    await app.until((f) => f.includes('APPLES and Apples'))
    app.stdin.write(KEYS.ctrl('f'))
    await app.until((f) => f.includes('type to search'))
    // The empty prompt says who has the keys.
    expect(app.frame()).toContain('the search has the keys')
    app.stdin.write('zebra')
    await app.until((f) => f.includes('no matches'))
    app.stdin.write(KEYS.tab)
    await app.until((f) => f.includes('/ edit'))
    app.stdin.write('hello')
    await app.until((f) => f.includes('❯ hello'))
    expect(app.frame()).not.toContain('no matches')
    expect(app.store.getState().ui.focus).toBe('input')
  })

  it('at the prompt `/` still starts a slash command', async () => {
    const app = start()
    await app.until((f) => f.includes('APPLES and Apples'))
    app.stdin.write('/hel')
    await app.until((f) => f.includes('❯ /hel'))
    expect(app.frame()).not.toContain('type to search')
  })
})
