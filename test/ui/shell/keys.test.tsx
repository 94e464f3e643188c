import { Text } from 'ink'
import { render } from 'ink-testing-library'
import { describe, expect, it } from 'vitest'
import {
  applyKeybindingOverrides,
  type Bindings,
  COMMAND_NAMES,
  DEFAULT_BINDINGS,
  helpSections,
} from '../../../source/ui/keys/bindings.js'
import {
  createKeyRouter,
  KEY_PRIORITY,
  KeyDispatcher,
  type KeyEvent,
  useKeyHandler,
} from '../../../source/ui/keys/dispatcher.js'
import { formatKeySpec, type KeySpec, parseKeySpec } from '../../../source/ui/keys/key-spec.js'
import { KEYS, waitFor } from './helpers.js'

const ARROWS: Record<string, string> = { up: 'A', down: 'B', right: 'C', left: 'D' }
const NAMED: Record<string, string> = {
  escape: KEYS.esc,
  enter: KEYS.enter,
  tab: KEYS.tab,
  backspace: KEYS.backspace,
  delete: KEYS.delete,
  pageup: KEYS.pageUp,
  pagedown: KEYS.pageDown,
  home: KEYS.home,
  end: KEYS.end,
  space: ' ',
}

/** The bytes a terminal sends for a key spec (xterm; kitty CSI-u for Shift+Enter). */
function sequenceFor(spec: KeySpec): string {
  const { name, ctrl, shift, meta } = spec
  if (name === 'tab' && shift) return KEYS.shiftTab
  if (name === 'enter' && shift) return '\x1b[13;2u'
  if (name === 'enter' && meta) return '\x1b\r'
  if (name === 'backspace' && meta) return '\x1b\x7f'
  const arrow = ARROWS[name]
  if (arrow) return ctrl ? `\x1b[1;5${arrow}` : meta ? `\x1b[1;3${arrow}` : `\x1b[${arrow}`
  if (ctrl && name === 'j') return '\n'
  if (ctrl && /^[a-z]$/.test(name)) return KEYS.ctrl(name)
  if (meta && [...name].length === 1) return `\x1b${name}`
  const named = NAMED[name]
  if (named) return named
  if ([...name].length === 1 && !ctrl && !meta) return name
  throw new Error(`no sequence for ${formatKeySpec(spec)}`)
}

/**
 * The bytes a terminal sends for a key spec with the kitty keyboard protocol's "disambiguate" flag on (as
 * agent-tui asks for): Esc and every key with Ctrl or Alt become `CSI codepoint;modifiers u`; plain Enter,
 * Tab, Backspace, arrows and text stay as before.
 */
function kittySequenceFor(spec: KeySpec): string {
  const { name, ctrl, shift, meta } = spec
  const modifiers = 1 + (shift ? 1 : 0) + (meta ? 2 : 0) + (ctrl ? 4 : 0)
  const codepoints: Record<string, number> = { escape: 27, enter: 13, tab: 9, backspace: 127, space: 32 }
  const arrow = ARROWS[name]
  if (arrow) return modifiers === 1 ? `\x1b[${arrow}` : `\x1b[1;${modifiers}${arrow}`
  if (name === 'escape') return `\x1b[27${modifiers === 1 ? '' : `;${modifiers}`}u`
  const codepoint = codepoints[name] ?? ([...name].length === 1 ? name.codePointAt(0) : undefined)
  if (codepoint !== undefined && (ctrl || meta || (shift && codepoint < 32)))
    return `\x1b[${codepoint};${modifiers}u`
  return sequenceFor(spec)
}

function Probe({ events }: { events: KeyEvent[] }) {
  useKeyHandler(1000, (ev) => {
    events.push(ev)
    return true
  })
  return <Text>probe</Text>
}

function renderProbe(bindings: Bindings = DEFAULT_BINDINGS) {
  const events: KeyEvent[] = []
  const r = render(
    <KeyDispatcher bindings={bindings} doublePressMs={60_000}>
      <Probe events={events} />
    </KeyDispatcher>,
  )
  const press = async (seq: string) => {
    const before = events.length
    r.stdin.write(seq)
    await waitFor(() => events.length > before)
    return events.at(-1)!
  }
  return { ...r, events, press }
}

describe('key specs', () => {
  it('parses modifiers, named keys, aliases and printable characters', () => {
    expect(parseKeySpec('ctrl+t')).toEqual({ name: 't', ctrl: true, shift: false, meta: false })
    expect(parseKeySpec('Shift+Tab')).toEqual({ name: 'tab', ctrl: false, shift: true, meta: false })
    expect(parseKeySpec('esc')).toEqual({ name: 'escape', ctrl: false, shift: false, meta: false })
    expect(parseKeySpec('PgUp')).toEqual({ name: 'pageup', ctrl: false, shift: false, meta: false })
    expect(parseKeySpec('shift+a')).toEqual({ name: 'A', ctrl: false, shift: false, meta: false })
    expect(parseKeySpec('?')).toEqual({ name: '?', ctrl: false, shift: false, meta: false })
    expect(parseKeySpec('alt+left')).toEqual({ name: 'left', ctrl: false, shift: false, meta: true })
    expect(parseKeySpec('hyper+x')).toEqual({ error: 'unknown modifier "hyper" in "hyper+x"' })
    expect(parseKeySpec('ctrl+banana')).toEqual({ error: 'unknown key "banana" in "ctrl+banana"' })
  })

  it('formats specs for help text', () => {
    expect(formatKeySpec(parseKeySpec('ctrl+t') as KeySpec)).toBe('Ctrl+T')
    expect(formatKeySpec(parseKeySpec('shift+tab') as KeySpec)).toBe('Shift+Tab')
    expect(formatKeySpec(parseKeySpec('pagedown') as KeySpec)).toBe('PgDn')
  })
})

describe('bindings table', () => {
  it('has every command of the brief with its default key', () => {
    const keysOf = (c: string) => DEFAULT_BINDINGS.find((b) => b.command === c)?.keys
    expect(keysOf('app.interrupt')).toEqual(['escape'])
    expect(keysOf('app.exit')).toEqual(['ctrl+d'])
    expect(keysOf('mode.cycle')).toEqual(['shift+tab'])
    expect(keysOf('bash.background')).toEqual(['ctrl+b'])
    expect(keysOf('todos.toggle')).toEqual(['ctrl+t'])
    expect(keysOf('transcript.expand')).toEqual(['ctrl+o'])
    expect(keysOf('app.redraw')).toEqual(['ctrl+l'])
    expect(keysOf('help.show')).toEqual(['?'])
    expect(keysOf('consent.once')).toEqual(['1', 'y'])
    expect(keysOf('consent.always')).toEqual(['3', 'A'])
    expect(keysOf('input.newline')).toContain('ctrl+j')
    expect(keysOf('input.history.search')).toEqual(['ctrl+r'])
    expect(keysOf('input.editor')).toEqual(['ctrl+g'])
  })

  it('never binds one key to two commands of the same context', () => {
    for (const context of new Set(DEFAULT_BINDINGS.map((b) => b.context))) {
      const seen = new Map<string, string>()
      for (const b of DEFAULT_BINDINGS.filter((x) => x.context === context)) {
        for (const spec of b.specs) {
          const id = JSON.stringify(spec)
          expect(seen.get(id), `${b.command} vs ${seen.get(id)}`).toBeUndefined()
          seen.set(id, b.command)
        }
      }
    }
  })

  it('generates help from the table: every command appears', () => {
    const rows = helpSections(DEFAULT_BINDINGS).flatMap((s) => s.rows)
    expect(rows).toHaveLength(COMMAND_NAMES.length)
    expect(rows).toContainEqual({ keys: 'Ctrl+D ×2', description: 'Exit (press twice)' })
  })

  it('applies overrides and reports unknown command names', () => {
    const bad = applyKeybindingOverrides(DEFAULT_BINDINGS, {
      'todos.toggle': 'ctrl+y',
      'nope.one': 'x',
      'nope.two': 'y',
    })
    expect(bad).toEqual({ ok: false, error: 'unknown commands in keybindings: nope.one, nope.two' })
    const badKey = applyKeybindingOverrides(DEFAULT_BINDINGS, { 'todos.toggle': 'ctrl+banana' })
    expect(badKey.ok).toBe(false)
    const good = applyKeybindingOverrides(DEFAULT_BINDINGS, { 'todos.toggle': ['ctrl+y', 'f'] })
    expect(good.ok && good.bindings.find((b) => b.command === 'todos.toggle')?.keys).toEqual(['ctrl+y', 'f'])
  })
})

describe('dispatch through Ink', () => {
  it('turns every default key into its command (double-press commands on the second press)', async () => {
    const { press, unmount } = renderProbe()
    for (const binding of DEFAULT_BINDINGS) {
      for (const spec of binding.specs) {
        const seq = sequenceFor(spec)
        const label = `${binding.command} via ${formatKeySpec(spec)}`
        await press('z') // breaks any double-press sequence
        const first = await press(seq)
        if (binding.double) {
          expect(first.armed.has(binding.command), label).toBe(true)
          expect(first.has(binding.command), label).toBe(false)
          const second = await press(seq)
          expect(second.has(binding.command), label).toBe(true)
        } else {
          expect(first.has(binding.command), label).toBe(true)
        }
      }
    }
    unmount()
  })

  it('does the same with the kitty keyboard protocol, Shift+Enter and Ctrl keys sent as CSI u', async () => {
    const { press, unmount } = renderProbe()
    for (const binding of DEFAULT_BINDINGS) {
      for (const spec of binding.specs) {
        const seq = kittySequenceFor(spec)
        const label = `${binding.command} via ${formatKeySpec(spec)} (${JSON.stringify(seq)})`
        await press('z')
        const first = await press(seq)
        if (binding.double) {
          expect(first.armed.has(binding.command), label).toBe(true)
          expect((await press(seq)).has(binding.command), label).toBe(true)
        } else {
          expect(first.has(binding.command), label).toBe(true)
        }
      }
    }
    unmount()
  })

  it('uses overridden keys instead of the defaults', async () => {
    const result = applyKeybindingOverrides(DEFAULT_BINDINGS, { 'todos.toggle': 'ctrl+y' })
    if (!result.ok) throw new Error(result.error)
    const { press, unmount } = renderProbe(result.bindings)
    expect((await press(KEYS.ctrl('y'))).has('todos.toggle')).toBe(true)
    expect((await press(KEYS.ctrl('t'))).has('todos.toggle')).toBe(false)
    unmount()
  })
})

describe('router priority', () => {
  const key = { escape: true } as Parameters<ReturnType<typeof createKeyRouter>['handle']>[1]
  const esc = { ...key, ctrl: false, shift: false, meta: false }

  it('offers keys from the highest priority down and stops at the first handler that takes it', () => {
    const router = createKeyRouter(DEFAULT_BINDINGS, 1000)
    const seen: string[] = []
    const make = (name: string, take: boolean) => ({
      current: (ev: KeyEvent) => {
        seen.push(`${name}:${[...ev.commands].join(',')}`)
        return take
      },
    })
    router.register(KEY_PRIORITY.global, make('global', true))
    router.register(KEY_PRIORITY.consent, make('consent', false))
    const stopInput = router.register(KEY_PRIORITY.input, make('input', true))
    router.handle('', esc, 0)
    expect(seen).toEqual([
      'consent:app.interrupt,search.close,tasks.back,consent.deny,question.cancel,trust.later,rewind.back,mcp.back',
      'input:app.interrupt,search.close,tasks.back,consent.deny,question.cancel,trust.later,rewind.back,mcp.back',
    ])
    seen.length = 0
    stopInput()
    router.handle('', esc, 5000)
    expect(seen.map((s) => s.split(':')[0])).toEqual(['consent', 'global'])
  })

  it('fires double-press commands only within the window', () => {
    const router = createKeyRouter(DEFAULT_BINDINGS, 1000)
    const ctrlD = { ...esc, escape: false, ctrl: true }
    expect(router.handle('d', ctrlD, 0).event.armed.has('app.exit')).toBe(true)
    expect(router.handle('d', ctrlD, 2000).event.has('app.exit')).toBe(false)
    expect(router.handle('d', ctrlD, 2500).event.has('app.exit')).toBe(true)
    // After firing, the next press starts again.
    expect(router.handle('d', ctrlD, 2600).event.has('app.exit')).toBe(false)
  })
})
