import { describe, expect, it } from 'vitest'
import type { Action } from '../../../source/store/actions.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { TuiRoot } from '../../../source/ui/tui-root.js'
import { type FakeCommands, fakeCommands, KEYS, makeStore, renderSized, waitFor } from '../shell/helpers.js'

const theme = createTheme({ level: 0 })
const BUSY: Action[] = [{ type: 'turn/started', turnId: 't1', at: Date.now() }]
const submitted = (commands: FakeCommands) => commands.named('submit').map((args) => args[0])

/** The whole app, keys split as a terminal sends them (a lone Esc is Esc once the terminal stand-in says so). */
function start(opts: { actions?: Action[]; vim?: boolean; saveError?: string } = {}) {
  const store = makeStore(opts.actions ?? [])
  if (opts.vim) store.dispatch({ type: 'ui/editor-mode', mode: 'vim' })
  const commands = fakeCommands({ store, ...(opts.saveError ? { saveError: opts.saveError } : {}) })
  const r = renderSized(
    <TuiRoot
      store={store}
      commands={commands}
      contextLimit={100_000}
      theme={theme}
      branch="main"
      doublePressMs={60_000}
      onExit={() => {}}
    />,
    100,
    30,
    { terminalInput: true },
  )
  const waitFrame = (text: string) => waitFor(() => r.frame().includes(text), r.frame)
  /** Writes keys and waits until the prompt's rule shows `tag` (the mode, and any command being typed). */
  const press = async (keys: string, tag: string) => {
    r.stdin.write(keys)
    await waitFrame(tag)
  }
  return { ...r, store, commands, waitFrame, press }
}

const NORMAL = '-- NORMAL -- ──'
const INSERT = '-- INSERT -- ──'

describe('the prompt in vim mode', () => {
  it('/vim turns it on and saves it; cw changes a word; Enter in normal mode sends', async () => {
    const r = start()
    await r.waitFrame('Message')
    expect(r.frame()).not.toContain('-- INSERT --')
    r.stdin.write('/vim')
    await r.waitFrame('❯ /vim')
    r.stdin.write(KEYS.enter)
    await r.waitFrame(INSERT)
    await r.waitFrame('Vim mode on')
    expect(r.store.getState().ui.editorMode).toBe('vim')
    expect(r.commands.named('saveEditorMode')).toEqual([['vim']])
    r.stdin.write('fix the old bug')
    await r.waitFrame('❯ fix the old bug')
    await r.press(KEYS.esc, NORMAL)
    await r.press('0w', NORMAL)
    await r.press('w', NORMAL)
    await r.press('c', '-- NORMAL -- c ──')
    await r.press('w', INSERT)
    await r.waitFrame('❯ fix the  bug')
    r.stdin.write('new')
    await r.waitFrame('❯ fix the new bug')
    await r.press(KEYS.esc, NORMAL)
    r.stdin.write(KEYS.enter)
    await waitFor(() => submitted(r.commands).length === 1, r.frame)
    expect(submitted(r.commands)).toEqual([{ text: 'fix the new bug' }])
    await r.waitFrame(INSERT)
    r.instance.unmount()
  })

  it('Esc in insert mode does not interrupt the running turn; in normal mode it does, and the draft stays', async () => {
    const r = start({ actions: BUSY, vim: true })
    await r.waitFrame(INSERT)
    r.stdin.write('draft')
    await r.waitFrame('❯ draft')
    await r.press(KEYS.esc, NORMAL)
    expect(r.commands.named('interrupt')).toEqual([])
    r.stdin.write(KEYS.esc)
    await waitFor(() => r.commands.named('interrupt').length === 1, r.frame)
    expect(r.frame()).toContain('❯ draft')
    r.instance.unmount()
  })

  it('dd, counts, u and . on a multi-line prompt; o opens a line', async () => {
    const r = start({ vim: true })
    await r.waitFrame(INSERT)
    r.stdin.write('one')
    await r.waitFrame('❯ one')
    await r.press(KEYS.esc, NORMAL)
    await r.press('o', INSERT)
    r.stdin.write('two')
    await r.waitFrame('  two')
    await r.press(KEYS.esc, NORMAL)
    await r.press('.', NORMAL)
    await r.waitFrame('  two\n  two')
    await r.press('gg', NORMAL)
    await r.press('2dd', NORMAL)
    await waitFor(() => r.frame().includes('❯ two') && !r.frame().includes('one'), r.frame)
    await r.press('u', NORMAL)
    await r.waitFrame('❯ one')
    r.instance.unmount()
  })

  it('pasted text goes in literally in normal mode', async () => {
    const r = start({ vim: true })
    await r.waitFrame(INSERT)
    r.stdin.write('ab')
    await r.waitFrame('❯ ab')
    await r.press(KEYS.esc, NORMAL)
    r.stdin.write(KEYS.paste('dd x'))
    await r.waitFrame('❯ add xb')
    expect(r.frame()).toContain(NORMAL)
    r.instance.unmount()
  })

  it('a paste chip is one unit: w steps over it, x deletes it whole, u brings it back and it is sent expanded', async () => {
    const r = start({ vim: true })
    await r.waitFrame(INSERT)
    const big = Array.from({ length: 12 }, (_, i) => `log line ${i}`).join('\n')
    r.stdin.write('see ')
    await r.waitFrame('❯ see')
    r.stdin.write(KEYS.paste(big))
    await r.waitFrame('❯ see [Pasted text #1 +12 lines]')
    r.stdin.write(' now')
    await r.waitFrame('+12 lines] now')
    await r.press(KEYS.esc, NORMAL)
    await r.press('0w', NORMAL)
    await r.press('x', NORMAL)
    await waitFor(() => r.frame().includes('❯ see  now') && !r.frame().includes('Pasted'), r.frame)
    await r.press('u', NORMAL)
    await r.waitFrame('❯ see [Pasted text #1 +12 lines] now')
    // `w` from the chip goes to the next word, not into the chip's text.
    await r.press('w', NORMAL)
    await r.press('cw', INSERT)
    r.stdin.write('then')
    await r.waitFrame('+12 lines] then')
    await r.press(KEYS.esc, NORMAL)
    r.stdin.write(KEYS.enter)
    await waitFor(() => submitted(r.commands).length === 1, r.frame)
    expect(submitted(r.commands)).toEqual([{ text: `see ${big} then` }])
    r.instance.unmount()
  })

  it('a save that fails says why, and vim mode holds for the session', async () => {
    const r = start({ saveError: 'cannot write ~/.config/agent-tui/settings.json: EACCES' })
    await r.waitFrame('Message')
    r.stdin.write('/vim on')
    await r.waitFrame('❯ /vim on')
    r.stdin.write(KEYS.enter)
    await r.waitFrame('not saved: cannot write')
    await r.waitFrame(INSERT)
    r.instance.unmount()
  })

  it('/vim off is the plain prompt again: Esc interrupts while busy', async () => {
    const r = start({ actions: BUSY, vim: true })
    await r.waitFrame(INSERT)
    r.stdin.write('/vim off')
    await r.waitFrame('❯ /vim off')
    r.stdin.write(KEYS.enter)
    await r.waitFrame('Vim mode off')
    expect(r.frame()).not.toContain('-- INSERT --')
    r.stdin.write(KEYS.esc)
    await waitFor(() => r.commands.named('interrupt').length === 1, r.frame)
    r.instance.unmount()
  })
})
