import type { Key } from 'ink'

/**
 * A parsed key description such as "ctrl+t" or "shift+tab". `name` is either a named key (see
 * NAMED_KEYS) or one printable character, kept case-sensitive so "A" and "a" are different keys.
 */
export interface KeySpec {
  name: string
  ctrl: boolean
  shift: boolean
  meta: boolean
}

const NAMED_KEYS = new Set([
  'escape',
  'enter',
  'tab',
  'backspace',
  'delete',
  'up',
  'down',
  'left',
  'right',
  'pageup',
  'pagedown',
  'home',
  'end',
  'space',
])

const ALIASES: Record<string, string> = {
  esc: 'escape',
  return: 'enter',
  pgup: 'pageup',
  pgdn: 'pagedown',
  pgdown: 'pagedown',
  del: 'delete',
  bs: 'backspace',
}

const MODIFIERS: Record<string, 'ctrl' | 'shift' | 'meta'> = {
  ctrl: 'ctrl',
  control: 'ctrl',
  shift: 'shift',
  meta: 'meta',
  alt: 'meta',
  option: 'meta',
}

/** Parses "ctrl+t", "Shift+Tab", "escape", "pageup", "?", "A"; returns an error message for bad specs. */
export function parseKeySpec(spec: string): KeySpec | { error: string } {
  const trimmed = spec.trim()
  if (!trimmed) return { error: 'empty key' }
  // "+" alone (or "ctrl++") names the plus key itself, so split on the last "+" that is not the key.
  const parts =
    trimmed.length > 1 && trimmed.endsWith('++')
      ? [...trimmed.slice(0, -2).split('+'), '+']
      : trimmed.split('+')
  const keyPart = parts.pop() ?? ''
  const out: KeySpec = { name: '', ctrl: false, shift: false, meta: false }
  for (const mod of parts) {
    const which = MODIFIERS[mod.toLowerCase()]
    if (!which) return { error: `unknown modifier "${mod}" in "${spec}"` }
    out[which] = true
  }
  if ([...keyPart].length === 1) {
    out.name = keyPart
    // "shift+a" is the same key as "A"; ctrl combinations are case-insensitive in terminals.
    if (/^[a-zA-Z]$/.test(keyPart)) {
      if (out.ctrl || out.meta) out.name = keyPart.toLowerCase()
      else if (out.shift) out.name = keyPart.toUpperCase()
      if (!out.ctrl && !out.meta) out.shift = false
    } else if (keyPart === ' ') {
      out.name = 'space'
    }
    return out
  }
  const lower = keyPart.toLowerCase()
  const name = ALIASES[lower] ?? lower
  if (!NAMED_KEYS.has(name)) return { error: `unknown key "${keyPart}" in "${spec}"` }
  out.name = name
  return out
}

export function isKeySpec(value: KeySpec | { error: string }): value is KeySpec {
  return 'name' in value
}

/** Turns Ink's `(input, key)` pair into the same shape as a parsed spec. Multi-character input has no key. */
export function keyFromInk(input: string, key: Key): KeySpec | null {
  const mods = { ctrl: key.ctrl, shift: key.shift, meta: key.meta }
  const named = namedKey(key)
  if (named) return { name: named, ...mods }
  // Ctrl+J arrives as a bare line feed: Ink reports it as input "\n" without the ctrl flag.
  if (input === '\n') return { name: 'j', ctrl: true, shift: false, meta: key.meta }
  if (input === ' ') return { name: 'space', ...mods }
  if ([...input].length !== 1) return null
  if (key.ctrl || key.meta) return { name: input.toLowerCase(), ...mods, shift: key.shift }
  // The character already says whether shift was held ("A" vs "a", "?" vs "/").
  return { name: input, ctrl: false, shift: false, meta: false }
}

function namedKey(key: Key): string | null {
  if (key.escape) return 'escape'
  if (key.return) return 'enter'
  if (key.tab) return 'tab'
  if (key.backspace) return 'backspace'
  if (key.delete) return 'delete'
  if (key.upArrow) return 'up'
  if (key.downArrow) return 'down'
  if (key.leftArrow) return 'left'
  if (key.rightArrow) return 'right'
  if (key.pageUp) return 'pageup'
  if (key.pageDown) return 'pagedown'
  if (key.home) return 'home'
  if (key.end) return 'end'
  return null
}

export function sameKey(a: KeySpec, b: KeySpec): boolean {
  return a.name === b.name && a.ctrl === b.ctrl && a.meta === b.meta && a.shift === b.shift
}

const LABELS: Record<string, string> = {
  escape: 'Esc',
  enter: 'Enter',
  tab: 'Tab',
  backspace: 'Backspace',
  delete: 'Delete',
  up: '↑',
  down: '↓',
  left: '←',
  right: '→',
  pageup: 'PgUp',
  pagedown: 'PgDn',
  home: 'Home',
  end: 'End',
  space: 'Space',
}

/** Human label for help text and hints: "Ctrl+T", "Shift+Tab", "?". */
export function formatKeySpec(spec: KeySpec): string {
  const mods = [spec.ctrl ? 'Ctrl' : '', spec.meta ? 'Alt' : '', spec.shift ? 'Shift' : ''].filter(Boolean)
  const base = LABELS[spec.name] ?? (spec.ctrl || spec.meta ? spec.name.toUpperCase() : spec.name)
  return [...mods, base].join('+')
}
