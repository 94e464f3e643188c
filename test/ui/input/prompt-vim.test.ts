import { describe, expect, it } from 'vitest'
import { BUILTIN_COMMANDS } from '../../../source/ui/commands/builtin-commands.js'
import { createCommandTable } from '../../../source/ui/commands/command-table.js'
import type { CommandName } from '../../../source/ui/keys/bindings.js'
import { slashCompleter } from '../../../source/ui/panes/input/completion.js'
import { pushHistory } from '../../../source/ui/panes/input/history.js'
import {
  initialPrompt,
  type PromptEffect,
  type PromptEnv,
  type PromptEvent,
  type PromptKey,
  type PromptState,
  promptItems,
  reducePrompt,
} from '../../../source/ui/panes/input/prompt-model.js'
import { separator, vimTag } from '../../../source/ui/panes/input/prompt-row.js'
import { VIM_ENGINE } from '../../../source/ui/panes/input/vim/vim-engine.js'
import { makeStore } from '../shell/fake-commands.js'

interface KeyOpts {
  input?: string
  ctrl?: boolean
  meta?: boolean
  escape?: boolean
  return?: boolean
  armed?: CommandName[]
}

/** A key as the dispatcher reports it with the default bindings. */
function key(commands: CommandName[], o: KeyOpts = {}): PromptEvent {
  const k: PromptKey = {
    input: o.input ?? '',
    key: {
      ctrl: o.ctrl ?? false,
      meta: o.meta ?? false,
      escape: o.escape ?? false,
      tab: false,
      return: o.return ?? false,
    },
    has: (c) => commands.includes(c),
    armed: { has: (c) => (o.armed ?? []).includes(c) },
  }
  return { type: 'key', key: k }
}

const K = {
  enter: key(['input.submit'], { return: true, input: '\r' }),
  /** A first Esc: it arms Esc Esc. */
  esc: key(['app.interrupt'], { escape: true, armed: ['input.clear'] }),
  /** An Esc within the double-press window of the one before. */
  escAgain: key(['app.interrupt', 'input.clear'], { escape: true }),
  up: key(['input.history.prev']),
  backspace: key(['input.backspace']),
  ctrlC: key(['app.ctrlC'], { ctrl: true, input: 'c' }),
  ctrlR: key(['input.history.search'], { ctrl: true, input: 'r' }),
  question: key(['help.show'], { input: '?' }),
}
const type = (text: string) => key([], { input: text })
const typed = (text: string) => [...text].map(type)

const env = (opts: { busy?: boolean; vim?: boolean } = {}): PromptEnv => ({
  busy: opts.busy ?? false,
  slash: slashCompleter(createCommandTable(BUILTIN_COMMANDS), makeStore().getState),
  ...(opts.vim === false ? {} : { vim: VIM_ENGINE }),
})

const VIM_ON: PromptEvent = { type: 'editor-mode', vim: true }

function run(events: PromptEvent[], opts: { busy?: boolean; from?: PromptState } = {}) {
  let state = opts.from ?? initialPrompt()
  const effects: PromptEffect[] = []
  let handled = true
  for (const event of [VIM_ON, ...events]) {
    const result = reducePrompt(state, event, env(opts))
    state = result.state
    effects.push(...result.effects)
    handled = result.handled
  }
  const { text, cursor } = state.editor
  return {
    state,
    effects,
    handled,
    shown: `${text.slice(0, cursor)}|${text.slice(cursor)}`,
    mode: state.vim?.mode,
  }
}

const sent = (text: string) => ({ type: 'send', text, pastes: new Map(), images: new Map(), imageCount: 0 })

describe('vim mode in the prompt', () => {
  it.each<[string, PromptEvent[], { shown?: string; mode?: string; handled?: boolean; effects?: unknown[] }]>(
    [
      ['starts in insert mode: typing is text', typed('hello'), { shown: 'hello|', mode: 'insert' }],
      [
        'Esc goes to normal mode and is taken',
        [...typed('hello'), K.esc],
        { shown: 'hell|o', mode: 'normal', handled: true },
      ],
      [
        'cw changes a word',
        [...typed('one two'), K.esc, ...typed('0cwxyz'), K.esc],
        { shown: 'xy|z two', mode: 'normal' },
      ],
      [
        'a chunk typed at once: the command, then text',
        [...typed('one'), K.esc, type('Atwo')],
        { shown: 'onetwo|', mode: 'insert' },
      ],
      [
        'counts and dd',
        [type('a'), key(['input.newline']), type('b'), K.esc, ...typed('ggdd')],
        { shown: '|b' },
      ],
      [
        'o opens a line in the multi-line prompt',
        [...typed('one'), K.esc, ...typed('otwo'), K.esc],
        { shown: 'one\ntw|o' },
      ],
      [
        'Enter in normal mode sends, back to insert mode',
        [...typed('hi'), K.esc, K.enter],
        { shown: '|', mode: 'insert', effects: [{ type: 'clear-flash' }, sent('hi')] },
      ],
      [
        'Enter in insert mode sends as without vim',
        [...typed('hi'), K.enter],
        { shown: '|', mode: 'insert', effects: [{ type: 'clear-flash' }, sent('hi')] },
      ],
      [
        'a slash command is sent from normal mode too',
        [...typed('/help'), K.esc, K.enter],
        { effects: [{ type: 'clear-flash' }, { type: 'command', line: '/help' }] },
      ],
      [
        'unknown keys in normal mode are not typed',
        [...typed('ab'), K.esc, ...typed('qQ')],
        { shown: 'a|b' },
      ],
      ['? on an empty prompt in normal mode opens the keys overlay', [K.esc, K.question], { handled: false }],
      [
        '? after text in normal mode is not typed',
        [...typed('ab'), K.esc, K.question],
        { shown: 'a|b', handled: true },
      ],
      ['Ctrl+R in normal mode is redo', [...typed('abc'), K.esc, ...typed('xu'), K.ctrlR], { shown: 'a|b' }],
      [
        'Backspace in normal mode is one step for u',
        [...typed('abc'), K.esc, K.backspace, type('u')],
        { shown: 'ab|c' },
      ],
      [
        'Esc in normal mode with a half-typed command drops it',
        [...typed('ab'), K.esc, type('d'), K.esc, type('x')],
        { shown: '|a' },
      ],
    ],
  )('%s', (_name, events, expected) => {
    const r = run(events)
    if (expected.shown !== undefined) expect(r.shown).toBe(expected.shown)
    if (expected.mode !== undefined) expect(r.mode).toBe(expected.mode)
    if (expected.handled !== undefined) expect(r.handled).toBe(expected.handled)
    if (expected.effects !== undefined) expect(r.effects).toEqual(expected.effects)
  })

  it('Esc in insert mode never reaches the global handler, even while a turn runs', () => {
    const r = run([...typed('draft'), K.esc], { busy: true })
    expect(r.handled).toBe(true)
    expect(r.mode).toBe('normal')
    expect(r.shown).toBe('draf|t')
  })

  it('Esc in normal mode keeps its meaning: it interrupts a running turn', () => {
    const r = run([...typed('draft'), K.esc, type('0'), K.esc], { busy: true })
    expect(r.handled).toBe(false)
    expect(r.shown).toBe('|draft')
  })

  it('the Esc right after leaving insert mode is a first press, not Esc Esc (the draft stays)', () => {
    const r = run([...typed('draft'), K.esc, K.escAgain])
    expect(r.shown).toBe('draf|t')
    // The next Esc Esc clears it, as without vim mode.
    const cleared = run([...typed('draft'), K.esc, K.escAgain, K.esc, K.escAgain])
    expect(cleared.shown).toBe('|')
    expect(cleared.mode).toBe('normal')
  })

  it('Esc typed fast before a key (Alt+key to the terminal) leaves insert mode, then the key is a command', () => {
    const r = run([...typed('one two'), key(['input.wordLeft'], { meta: true, input: 'b' })])
    // Alt+B is the prompt's word left, kept in insert mode.
    expect(r.mode).toBe('insert')
    expect(r.shown).toBe('one |two')
    const fast = run([...typed('one two'), key([], { meta: true, input: 'x' })])
    expect(fast.shown).toBe('one t|w')
    expect(fast.mode).toBe('normal')
  })

  it('pasted text goes in literally in normal mode, and u takes it back', () => {
    const pasted = run([...typed('ab'), K.esc, { type: 'paste', text: 'dd x', imagePath: null }])
    expect(pasted.state.editor.text).toBe('add xb')
    expect(pasted.mode).toBe('normal')
    const undone = run([...typed('ab'), K.esc, { type: 'paste', text: 'dd x', imagePath: null }, type('u')])
    expect(undone.state.editor.text).toBe('ab')
  })

  it('k on the first line recalls the history, like ↑', () => {
    const from = initialPrompt(pushHistory(initialPrompt().history, 'earlier'))
    const r = run([...typed('now'), K.esc, type('k')], { from })
    expect(r.state.editor.text).toBe('earlier')
    expect(r.shown).toBe('earlie|r')
  })

  it('the completion popup is for insert mode only', () => {
    const insert = run(typed('/he'))
    expect(promptItems(insert.state, env()).length).toBeGreaterThan(0)
    const normal = run([...typed('/he'), K.esc])
    expect(promptItems(normal.state, env())).toEqual([])
  })

  it('keys typed while a pane had the focus are text in normal mode too (nothing typed is read as a command)', () => {
    const ahead = (text: string): PromptEvent => {
      const event = type(text)
      return event.type === 'key' ? { ...event, typedAhead: true } : event
    }
    const r = run([...typed('draft'), K.esc, type('0'), ahead('d'), ahead('d')])
    expect(r.shown).toBe('draftdd|')
    expect(r.mode).toBe('insert')
  })

  it('Ctrl+C clears the prompt and keeps the mode', () => {
    const r = run([...typed('draft'), K.esc, K.ctrlC])
    expect(r.shown).toBe('|')
    expect(r.mode).toBe('normal')
  })

  it('turning vim mode off leaves the text and the plain prompt', () => {
    const r = run([...typed('ab'), K.esc, { type: 'editor-mode', vim: false }, K.esc])
    expect(r.state.vim).toBeNull()
    expect(r.state.editor.text).toBe('ab')
    expect(r.effects).toEqual([{ type: 'hint', text: 'Press Esc again to clear the input' }])
  })

  it('without the engine loaded, turning vim on waits (the prompt stays as it is)', () => {
    const r = reducePrompt(initialPrompt(), VIM_ON, env({ vim: false }))
    expect(r.state.vim).toBeNull()
  })
})

describe('the mode on the rule above the prompt', () => {
  it.each<[string, number, boolean, number, string | undefined, string]>([
    ['vim mode off: the rule as before', 30, false, 0, undefined, '─'.repeat(30)],
    ['insert mode at the right end', 30, false, 0, vimTag('insert'), `${'─'.repeat(14)} -- INSERT -- ──`],
    [
      'a command being typed',
      34,
      false,
      0,
      vimTag('normal', ['2', 'd']),
      `${'─'.repeat(15)} -- NORMAL -- 2d ──`,
    ],
    [
      'beside the busy label at 80 columns',
      80,
      true,
      0,
      vimTag('normal'),
      ` Enter queues your message · Esc interrupts ${'─'.repeat(20)} -- NORMAL -- ──`,
    ],
  ])('%s', (_name, width, busy, queued, tag, expected) => {
    const rule = separator(width, busy, queued, tag)
    expect(rule).toBe(expected)
    expect(rule.length).toBe(width)
  })

  it('a long label gives way to the mode, never the other way', () => {
    const rule = separator(60, true, 3, vimTag('insert'))
    expect(rule.length).toBe(60)
    expect(rule.endsWith(' -- INSERT -- ──')).toBe(true)
    expect(rule.startsWith(' 3 queued for the next step')).toBe(true)
  })
})
