import { describe, expect, it } from 'vitest'
import { BUILTIN_COMMANDS } from '../../../source/ui/commands/builtin-commands.js'
import { createCommandTable } from '../../../source/ui/commands/command-table.js'
import type { CommandName } from '../../../source/ui/keys/bindings.js'
import { slashCompleter } from '../../../source/ui/panes/input/completion.js'
import {
  initialPrompt,
  type PromptEffect,
  type PromptEnv,
  type PromptEvent,
  type PromptKey,
  type PromptState,
  promptItems,
  reducePrompt,
  searchMatchText,
} from '../../../source/ui/panes/input/prompt-model.js'
import { makeStore } from '../shell/fake-commands.js'

interface KeyOpts {
  input?: string
  ctrl?: boolean
  escape?: boolean
  tab?: boolean
  return?: boolean
  armed?: CommandName[]
}

/** A key as the dispatcher would report it with the default bindings (only what the prompt reads). */
function key(commands: CommandName[], o: KeyOpts = {}): PromptEvent {
  const k: PromptKey = {
    input: o.input ?? '',
    key: {
      ctrl: o.ctrl ?? false,
      meta: false,
      escape: o.escape ?? false,
      tab: o.tab ?? false,
      return: o.return ?? false,
    },
    has: (c) => commands.includes(c),
    armed: { has: (c) => (o.armed ?? []).includes(c) },
  }
  return { type: 'key', key: k }
}

const K = {
  enter: key(['input.submit'], { return: true, input: '\r' }),
  esc: key(['app.interrupt'], { escape: true, armed: ['input.clear'] }),
  escEsc: key(['app.interrupt', 'input.clear'], { escape: true }),
  tab: key(['focus.next', 'input.complete'], { tab: true }),
  up: key(['input.history.prev']),
  down: key(['input.history.next']),
  left: key(['input.left']),
  end: key(['transcript.end', 'input.lineEnd']),
  home: key(['transcript.home', 'input.lineStart']),
  backspace: key(['input.backspace']),
  ctrlC: key(['app.ctrlC'], { ctrl: true, input: 'c' }),
  ctrlJ: key(['input.newline'], { ctrl: true, input: 'j' }),
  ctrlR: key(['input.history.search'], { ctrl: true, input: 'r' }),
  ctrlG: key(['input.editor'], { ctrl: true, input: 'g' }),
  ctrlV: key(['input.pasteImage'], { ctrl: true, input: 'v' }),
  question: key(['help.show'], { input: '?' }),
}
const type = (text: string) => key([], { input: text })
const typed = (text: string) => [...text].map(type)

const env = (busy = false): PromptEnv => ({
  busy,
  slash: slashCompleter(createCommandTable(BUILTIN_COMMANDS), makeStore().getState),
})

/** Feeds events in order; returns the last state, every effect, and whether the last event was taken. */
function run(events: PromptEvent[], opts: { busy?: boolean; from?: PromptState } = {}) {
  let state = opts.from ?? initialPrompt()
  const effects: PromptEffect[] = []
  let handled = true
  for (const event of events) {
    const result = reducePrompt(state, event, env(opts.busy))
    state = result.state
    effects.push(...result.effects)
    handled = result.handled
  }
  return { state, effects, handled, text: state.editor.text, cursor: state.editor.cursor }
}

const sent = (text: string) => ({ type: 'send', text, pastes: new Map(), images: new Map(), imageCount: 0 })
const CLEAR: PromptEffect = { type: 'clear-flash' }

describe('editing and submitting', () => {
  it.each<[string, PromptEvent[], { text: string; cursor?: number; effects?: unknown[]; handled?: boolean }]>(
    [
      ['typing inserts at the cursor', [...typed('helo'), K.left, type('l')], { text: 'hello', cursor: 4 }],
      ['Ctrl+J adds a line', [...typed('a'), K.ctrlJ, type('b')], { text: 'a\nb' }],
      ['\\ then Enter continues the line', [...typed('a\\'), K.enter], { text: 'a\n', effects: [] }],
      ['Enter sends the text', [...typed('hi'), K.enter], { text: '', effects: [CLEAR, sent('hi')] }],
      ['Enter on an empty prompt does nothing', [K.enter], { text: '', effects: [], handled: true }],
      [
        'a slash line goes to the command table',
        [...typed('/help'), K.esc, K.enter],
        { text: '', effects: [CLEAR, { type: 'command', line: '/help' }] },
      ],
      [
        '!cmd runs a shell command',
        [...typed('!ls -la'), K.enter],
        { text: '', effects: [CLEAR, { type: 'shell', command: 'ls -la' }] },
      ],
      ['a lone ! is a message', [type('!'), K.enter], { text: '', effects: [CLEAR, sent('!')] }],
      [
        'a chunk with newlines is a paste',
        [type('one\ntwo')],
        { text: '', effects: [{ type: 'paste', text: 'one\ntwo' }] },
      ],
      ['? on an empty prompt belongs to the help overlay', [K.question], { text: '', handled: false }],
      ['? after text is a character', [type('why'), K.question], { text: 'why?', handled: true }],
      ['Home on an empty prompt scrolls the transcript', [K.home], { text: '', handled: false }],
      [
        'Home after text moves the cursor',
        [...typed('ab'), K.home],
        { text: 'ab', cursor: 0, handled: true },
      ],
      [
        'Ctrl+G opens $EDITOR on the text',
        [...typed('draft'), K.ctrlG],
        { text: 'draft', effects: [{ type: 'open-editor', text: 'draft' }] },
      ],
      [
        'Ctrl+V asks for the clipboard image and keeps the text as it is',
        [...typed('draft'), K.ctrlV],
        { text: 'draft', effects: [{ type: 'paste-image' }] },
      ],
      [
        'the clipboard image comes back as a chip at the cursor',
        [
          ...typed('see '),
          K.ctrlV,
          {
            type: 'image-loaded',
            image: { path: 'clipboard (image/png, 1 kB)', url: 'data:image/png;base64,AA==' },
          },
        ],
        { text: 'see [Image #1]' },
      ],
      [
        'the edited text comes back',
        [...typed('draft'), { type: 'editor-closed', text: 'edited\ntext' }],
        { text: 'edited\ntext', cursor: 11 },
      ],
    ],
  )('%s', (_name, events, expected) => {
    const r = run(events)
    expect(r.text).toBe(expected.text)
    if (expected.cursor !== undefined) expect(r.cursor).toBe(expected.cursor)
    if (expected.effects) expect(r.effects).toEqual(expected.effects)
    if (expected.handled !== undefined) expect(r.handled).toBe(expected.handled)
  })

  it('a sent message goes into history; the prompt starts afresh', () => {
    const r = run([...typed('first'), K.enter])
    expect(r.state.history.entries).toEqual(['first'])
    expect(r.state).toEqual({ ...initialPrompt(r.state.history), paths: r.state.paths })
  })

  it.each<[string, boolean, PromptEvent[], { text: string; handled: boolean; effects: unknown[] }]>([
    [
      'Ctrl+C clears typed text when idle',
      false,
      [...typed('draft'), K.ctrlC],
      { text: '', handled: true, effects: [] },
    ],
    [
      'Ctrl+C goes on to interrupt while busy',
      true,
      [...typed('draft'), K.ctrlC],
      { text: 'draft', handled: false, effects: [] },
    ],
    ['Ctrl+C on an empty prompt goes on (exit)', false, [K.ctrlC], { text: '', handled: false, effects: [] }],
    [
      'Esc with text arms clearing',
      false,
      [...typed('x'), K.esc],
      { text: 'x', handled: true, effects: [{ type: 'hint', text: 'Press Esc again to clear the input' }] },
    ],
    [
      'Esc while busy goes on to interrupt',
      true,
      [...typed('x'), K.esc],
      { text: 'x', handled: false, effects: [] },
    ],
    [
      'Esc Esc clears the text',
      false,
      [...typed('x'), K.esc, K.escEsc],
      {
        text: '',
        handled: true,
        effects: [{ type: 'hint', text: 'Press Esc again to clear the input' }, CLEAR],
      },
    ],
  ])('%s', (_name, busy, events, expected) => {
    const r = run(events, { busy })
    expect(r.text).toBe(expected.text)
    expect(r.handled).toBe(expected.handled)
    expect(r.effects).toEqual(expected.effects)
  })
})

describe('Esc Esc opens /rewind', () => {
  const feed = (events: PromptEvent[], busy: boolean[], hasTurns = true) => {
    let state = initialPrompt()
    const effects: PromptEffect[] = []
    events.forEach((event, i) => {
      const result = reducePrompt(state, event, { ...env(busy[i] ?? false), hasTurns })
      state = result.state
      effects.push(...result.effects)
    })
    return effects
  }
  const REWIND: PromptEffect = { type: 'open-rewind' }
  const HINT: PromptEffect = { type: 'hint', text: 'Press Esc again to rewind to an earlier turn' }

  it.each<[string, PromptEvent[], boolean[], boolean, PromptEffect[]]>([
    [
      'on an empty idle prompt, the second Esc opens it',
      [K.esc, K.escEsc],
      [false, false],
      true,
      [HINT, REWIND],
    ],
    [
      'with no turns yet there is no hint, but it still opens',
      [K.esc, K.escEsc],
      [false, false],
      false,
      [REWIND],
    ],
    ['an Esc that interrupted the agent does not count', [K.esc, K.escEsc], [true, false], true, []],
    [
      'Esc Esc with text clears the text instead',
      [...typed('x'), K.esc, K.escEsc],
      [],
      true,
      [{ type: 'hint', text: 'Press Esc again to clear the input' }, CLEAR],
    ],
  ])('%s', (_name, events, busy, hasTurns, expected) => {
    expect(feed(events, busy, hasTurns)).toEqual(expected)
  })
})

describe('history and Ctrl+R', () => {
  const withHistory = run(
    ['npm test', 'git status', 'npm run build'].flatMap((t) => [...typed(t), K.enter]),
  ).state

  it.each<[string, PromptEvent[], string]>([
    ['↑ recalls the newest', [K.up], 'npm run build'],
    ['↑↑ goes older', [K.up, K.up], 'git status'],
    ['↑ past the oldest stays', [K.up, K.up, K.up, K.up], 'npm test'],
    ['↓ after ↑ comes back to the draft', [type('dra'), K.up, K.down], 'dra'],
    ['↑ inside a multi-line draft moves the cursor', [type('a'), K.ctrlJ, type('b'), K.up], 'a\nb'],
  ])('%s', (_name, events, text) => {
    expect(run(events, { from: withHistory }).text).toBe(text)
  })

  it('searches newest first, Ctrl+R again goes older, Enter takes the match for editing', () => {
    const search = run([K.ctrlR, ...typed('npm')], { from: withHistory })
    expect(search.state.search?.query).toBe('npm')
    expect(searchMatchText(search.state)).toBe('npm run build')
    const older = run([K.ctrlR], { from: search.state })
    expect(searchMatchText(older.state)).toBe('npm test')
    const accepted = run([K.enter], { from: older.state })
    expect(accepted.state.search).toBeNull()
    expect(accepted.text).toBe('npm test')
    expect(accepted.effects).toEqual([])
  })

  it('Esc leaves the search with the draft as it was; backspace widens it', () => {
    const r = run([type('keep'), K.ctrlR, ...typed('git'), K.backspace], { from: withHistory })
    expect(r.state.search?.query).toBe('gi')
    expect(searchMatchText(r.state)).toBe('git status')
    const cancelled = run([K.esc], { from: r.state })
    expect(cancelled.state.search).toBeNull()
    expect(cancelled.text).toBe('keep')
  })
})

describe('completion', () => {
  const items = (state: PromptState) => promptItems(state, env())

  it('lists commands for the typed name; ↓ moves; Enter runs one that needs no argument', () => {
    const r = run(typed('/co'))
    expect(items(r.state).map((i) => i.value)).toEqual(['compact', 'context', 'cost', 'copy'])
    const chosen = run([K.down, K.down, K.enter], { from: r.state })
    expect(chosen.effects).toEqual([CLEAR, { type: 'command', line: '/cost' }])
    expect(chosen.state.history.entries).toEqual(['/cost'])
  })

  it('Tab, or Enter on a command with a required argument, puts the name in for the argument', () => {
    expect(run([...typed('/mo'), K.down, K.tab]).text).toBe('/model ')
    const image = run([...typed('/ima'), K.enter])
    expect(image.text).toBe('/image ')
    expect(image.effects).toEqual([])
  })

  it('↑ wraps to the last entry; Esc closes the popup until the text changes', () => {
    const r = run([...typed('/c'), K.up])
    expect(items(r.state)[r.state.popupIndex]?.value).toBe('copy')
    const closed = run([K.esc], { from: r.state })
    expect(items(closed.state)).toEqual([])
    expect(closed.effects).toEqual([])
    expect(items(run([type('l')], { from: closed.state }).state).map((i) => i.value)).toEqual(['clear'])
  })

  it('asks for the listing of an @path once per typed prefix, and shows only the answer to the current one', () => {
    const r = run(typed('read @sr'))
    expect(r.effects).toEqual([
      { type: 'list-paths', query: '' },
      { type: 'list-paths', query: 's' },
      { type: 'list-paths', query: 'sr' },
    ])
    const stale = run([{ type: 'paths-listed', query: 's', items: [{ value: 'src/', isDir: true }] }], {
      from: r.state,
    })
    expect(items(stale.state)).toEqual([])
    const listed = run(
      [
        {
          type: 'paths-listed',
          query: 'sr',
          items: [
            { value: 'src/', isDir: true },
            { value: 'srv.ts', isDir: false },
          ],
        },
      ],
      { from: r.state },
    )
    expect(items(listed.state).map((i) => i.label)).toEqual(['@src/', '@srv.ts'])
    expect(run([K.tab], { from: listed.state }).text).toBe('read @src/')
    expect(run([K.down, K.enter], { from: listed.state }).text).toBe('read @srv.ts ')
  })

  it('Enter on a file path typed out in full sends the message instead of completing it again', () => {
    const r = run(typed('explain @srv.ts'))
    const listed = run(
      [{ type: 'paths-listed', query: 'srv.ts', items: [{ value: 'srv.ts', isDir: false }] }],
      {
        from: r.state,
      },
    )
    expect(items(listed.state).map((i) => i.label)).toEqual(['@srv.ts'])
    const sent = run([K.enter], { from: listed.state })
    expect(sent.effects).toContainEqual(expect.objectContaining({ type: 'send', text: 'explain @srv.ts' }))
  })

  it('no popup while searching history', () => {
    const r = run([...typed('/c'), K.ctrlR])
    expect(items(r.state)).toEqual([])
  })
})

describe('pastes and images', () => {
  const big = Array.from({ length: 12 }, (_, i) => `log line ${i}`).join('\n')
  const image = { path: '/tmp/shot.png', url: 'data:image/png;base64,AAAA' }

  it('a large paste becomes a chip whose content rides along with the message', () => {
    const r = run([{ type: 'paste', text: big, imagePath: null }, ...typed(' explain'), K.enter])
    expect(r.effects).toEqual([
      CLEAR,
      {
        type: 'send',
        text: '[Pasted text #1 +12 lines] explain',
        pastes: new Map([[1, big]]),
        images: new Map(),
        imageCount: 0,
      },
    ])
  })

  it('a paste whose lines end in CR (as most terminals send them) is counted by its lines too', () => {
    const r = run([{ type: 'paste', text: big.replace(/\n/g, '\r'), imagePath: null }])
    expect(r.text).toBe('[Pasted text #1 +12 lines]')
    expect(r.state.pastes).toEqual(new Map([[1, big]]))
  })

  it('a small paste is inserted as text and never sends', () => {
    const r = run([{ type: 'paste', text: 'one\r\ntwo', imagePath: null }])
    expect(r.text).toBe('one\ntwo')
    expect(r.effects).toEqual([])
  })

  it('a pasted image path is loaded, then becomes an [Image #N] chip', () => {
    const asked = run([{ type: 'paste', text: "'/tmp/shot.png'", imagePath: '/tmp/shot.png' }])
    expect(asked.effects).toEqual([{ type: 'load-image', path: '/tmp/shot.png', text: "'/tmp/shot.png'" }])
    expect(asked.text).toBe('')
    const loaded = run([{ type: 'image-loaded', image }, ...typed(' what?'), K.enter], { from: asked.state })
    expect(loaded.effects).toEqual([
      CLEAR,
      {
        type: 'send',
        text: '[Image #1] what?',
        pastes: new Map(),
        images: new Map([[1, image]]),
        imageCount: 1,
      },
    ])
  })

  it('an image alone can be sent; one backspace removes a whole chip', () => {
    const withImage = run([{ type: 'image-loaded', image }])
    expect(withImage.text).toBe('[Image #1]')
    expect(run([K.backspace], { from: withImage.state }).text).toBe('')
    expect(run([K.enter], { from: withImage.state }).effects).toHaveLength(2)
  })
})

describe('cost per key', () => {
  it('a typed character allocates no effects array and leaves the rest of the state shared', () => {
    const before = run(typed('hello')).state
    const a = reducePrompt(before, type('!'), env())
    const b = reducePrompt(before, type('?'), env())
    expect(a.effects).toBe(b.effects)
    expect(a.state.history).toBe(before.history)
    expect(a.state.pastes).toBe(before.pastes)
  })
})

describe('queued messages', () => {
  const withQueue = (busy: boolean, events: PromptEvent[], from = initialPrompt()) => {
    let state = from
    const effects: PromptEffect[] = []
    let handled = true
    for (const event of events) {
      const result = reducePrompt(state, event, { ...env(busy), queued: 2 })
      state = result.state
      effects.push(...result.effects)
      handled = result.handled
    }
    return { state, effects, handled }
  }
  const UNQUEUE_ONE: PromptEffect = { type: 'unqueue', all: false }
  const UNQUEUE_ALL: PromptEffect = { type: 'unqueue', all: true }

  it.each<[string, boolean, PromptEvent[], { effects: PromptEffect[]; handled: boolean }]>([
    ['↑ on an empty prompt takes the last one back', true, [K.up], { effects: [UNQUEUE_ONE], handled: true }],
    ['…also once the turn has ended', false, [K.up], { effects: [UNQUEUE_ONE], handled: true }],
    ['↑ with a draft is history, not the queue', true, [type('x'), K.up], { effects: [], handled: true }],
    [
      'Esc while busy takes them all back and goes on to interrupt',
      true,
      [K.esc],
      { effects: [UNQUEUE_ALL], handled: false },
    ],
    ['Ctrl+C while busy too', true, [K.ctrlC], { effects: [UNQUEUE_ALL], handled: false }],
  ])('%s', (_name, busy, events, expected) => {
    const r = withQueue(busy, events)
    expect(r.effects).toEqual(expected.effects)
    expect(r.handled).toBe(expected.handled)
  })

  it('puts taken-back messages before the draft, with their images as chips of this prompt', () => {
    const shot = { path: '/x/shot.png', url: 'data:image/png;base64,AAAA' }
    const mine = { path: '/x/mine.png', url: 'data:image/png;base64,BBBB' }
    const draft = reducePrompt(initialPrompt(), { type: 'image-loaded', image: mine }, env()).state
    const r = withQueue(
      true,
      [{ type: 'unqueued', inputs: [{ text: 'first' }, { text: 'look at [Image #1]', images: [shot] }] }],
      draft,
    )
    expect(r.state.editor.text).toBe('first\nlook at [Image #2]\n[Image #1]')
    expect(r.state.images.get(2)).toEqual(shot)
    expect(r.state.images.get(1)).toEqual(mine)
    expect(r.state.imageCount).toBe(2)
  })
})
