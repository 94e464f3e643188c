/**
 * Reading vim's normal-mode commands key by key: `[count] [operator [count]] motion | text object | command`.
 * A command is complete, waits for its next key (`d`, `f`, `di`), or is no command at all.
 */
import type { Operator } from './vim-edits.js'
import { MOTION_KEYS } from './vim-motions.js'
import { TEXT_OBJECT_KEYS } from './vim-text-objects.js'

/** Commands that are not motions or operators; `r` takes a character. */
export const SIMPLE: ReadonlySet<string> = new Set([
  'i',
  'a',
  'I',
  'A',
  'o',
  'O',
  'x',
  'X',
  's',
  'S',
  'D',
  'C',
  'Y',
  'p',
  'P',
  'u',
  '<c-r>',
  'J',
  '~',
  '.',
])
/** The simple commands that change the text (recorded for `.`). */
export const CHANGES: ReadonlySet<string> = new Set([
  'i',
  'a',
  'I',
  'A',
  'o',
  'O',
  'x',
  'X',
  's',
  'S',
  'D',
  'C',
  'p',
  'P',
  'J',
  '~',
  'r',
])

export type Command =
  | { kind: 'motion'; op?: Operator; count: number | null; motion: string; arg?: string }
  | { kind: 'object'; op: Operator; count: number | null; scope: 'i' | 'a'; object: string }
  | { kind: 'line'; op: Operator; count: number | null }
  | { kind: 'simple'; key: string; count: number | null; arg?: string }

export interface Parsed {
  command: Command
  /** The keys without their counts: what `.` replays. */
  keys: readonly string[]
}

/** Reads a command from its keys: complete, `more` to wait for the next key, or null for no command. */
export function parseCommand(keys: readonly string[]): Parsed | 'more' | null {
  let i = 0
  const readCount = (): number | null => {
    let digits = ''
    while (i < keys.length && /^[0-9]$/.test(keys[i] as string) && (digits !== '' || keys[i] !== '0'))
      digits += keys[i++]
    return digits === '' ? null : Number(digits)
  }
  const first = readCount()
  const opKey = keys[i]
  const op = opKey === 'd' || opKey === 'c' || opKey === 'y' ? (opKey as Operator) : undefined
  if (op) i++
  const second = op ? readCount() : null
  // `.` replays the keys without their counts, with the whole count in front (`2d3w` is `6dw`).
  const body = [...(op ? [op] : []), ...keys.slice(i)]
  const count = first === null && second === null ? null : (first ?? 1) * (second ?? 1)
  const k = keys[i]
  const next = keys[i + 1]
  if (k === undefined) return 'more'
  const done = (command: Command): Parsed => ({ command, keys: body })
  if (op && k === op) return done({ kind: 'line', op, count })
  if (op && (k === 'i' || k === 'a')) {
    if (next === undefined) return 'more'
    return TEXT_OBJECT_KEYS.has(next) ? done({ kind: 'object', op, count, scope: k, object: next }) : null
  }
  if (k === 'g') {
    if (next === undefined) return 'more'
    return next === 'g' ? done({ kind: 'motion', ...(op ? { op } : {}), count, motion: 'gg' }) : null
  }
  if (k === 'f' || k === 'F' || k === 't' || k === 'T' || (!op && k === 'r')) {
    if (next === undefined) return 'more'
    if (next.startsWith('<')) return null
    if (k === 'r') return done({ kind: 'simple', key: 'r', count, arg: next })
    return done({ kind: 'motion', ...(op ? { op } : {}), count, motion: k, arg: next })
  }
  if (MOTION_KEYS.has(k) || k === ';' || k === ',')
    return done({ kind: 'motion', ...(op ? { op } : {}), count, motion: k })
  if (!op && SIMPLE.has(k)) return done({ kind: 'simple', key: k, count })
  return null
}
