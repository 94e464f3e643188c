import { type Key, useInput } from 'ink'
import {
  createContext,
  createElement,
  type ReactNode,
  useContext,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
} from 'react'
import type { Bindings, CommandName } from './bindings.js'
import { DEFAULT_BINDINGS } from './bindings.js'
import { type KeySpec, keyFromInk, sameKey } from './key-spec.js'

/**
 * Who sees a key first. A handler returns true when it handled the key, which stops propagation:
 * consent > question/plan dialog > help overlay > focused pane (tasks / viewer) > input > global.
 */
export const KEY_PRIORITY = {
  /** Sees every key first and never takes it (e.g. to clear transient hints). */
  observer: 1000,
  consent: 600,
  dialog: 500,
  overlay: 400,
  pane: 300,
  input: 200,
  global: 100,
} as const

export interface KeyEvent {
  /** Raw text Ink reported (typed characters; multi-character for fast typing without paste mode). */
  input: string
  key: Key
  /** Commands this key fires. */
  commands: ReadonlySet<CommandName>
  /** Double-press commands this key armed: one more press fires them (show a hint). */
  armed: ReadonlySet<CommandName>
  /** Same key as the previous event, within the double-press window. */
  repeat: boolean
  has(command: CommandName): boolean
}

export type KeyHandler = (event: KeyEvent) => boolean

/** Commands whose keys match this Ink event, before double-press handling. */
export function matchCommands(bindings: Bindings, input: string, key: Key): CommandName[] {
  const spec = keyFromInk(input, key)
  if (!spec) return []
  return bindings.filter((b) => b.specs.some((s) => sameKey(s, spec))).map((b) => b.command)
}

export interface KeyRouter {
  register(priority: number, handler: { current: KeyHandler }): () => void
  /** Offers one key to the handlers; returns the event (for tests) and whether someone handled it. */
  handle(input: string, key: Key, now: number): { event: KeyEvent; handled: boolean }
}

interface Registration {
  priority: number
  order: number
  handler: { current: KeyHandler }
}

/** The non-React core of the dispatcher: matching, double presses and priority order. */
export function createKeyRouter(bindings: Bindings, doublePressMs: number): KeyRouter {
  const registrations: Registration[] = []
  let counter = 0
  let last: { spec: KeySpec; at: number } | null = null
  return {
    register(priority, handler) {
      const reg = { priority, order: counter++, handler }
      registrations.push(reg)
      // Highest priority first; among equals the most recently mounted wins (it is the innermost UI).
      registrations.sort((a, b) => b.priority - a.priority || b.order - a.order)
      return () => {
        const i = registrations.indexOf(reg)
        if (i >= 0) registrations.splice(i, 1)
      }
    },
    handle(input, key, now) {
      const spec = keyFromInk(input, key)
      const repeat =
        spec !== null && last !== null && sameKey(last.spec, spec) && now - last.at <= doublePressMs
      const commands = new Set<CommandName>()
      const armed = new Set<CommandName>()
      let firedDouble = false
      if (spec) {
        for (const b of bindings) {
          if (!b.specs.some((s) => sameKey(s, spec))) continue
          if (!b.double) commands.add(b.command)
          else if (repeat) {
            commands.add(b.command)
            firedDouble = true
          } else armed.add(b.command)
        }
      }
      // After a double press fires, the next press starts a fresh sequence.
      last = spec && !firedDouble ? { spec, at: now } : null
      const event: KeyEvent = { input, key, commands, armed, repeat, has: (c) => commands.has(c) }
      for (const reg of [...registrations]) {
        if (reg.handler.current(event)) return { event, handled: true }
      }
      return { event, handled: false }
    },
  }
}

interface DispatcherValue {
  router: KeyRouter
  bindings: Bindings
  doublePressMs: number
}

const DispatcherContext = createContext<DispatcherValue | null>(null)

export interface KeyDispatcherProps {
  bindings?: Bindings
  /** Window for double presses (Ctrl+D twice, Esc Esc). */
  doublePressMs?: number
  children?: ReactNode
}

/** The ONE stdin key listener of the app; everything else registers handlers with `useKeyHandler`. */
export function KeyDispatcher({
  bindings = DEFAULT_BINDINGS,
  doublePressMs = 1500,
  children,
}: KeyDispatcherProps) {
  const router = useMemo(() => createKeyRouter(bindings, doublePressMs), [bindings, doublePressMs])
  useInput((input, key) => {
    // Kitty-protocol terminals can report releases; only presses and repeats are commands.
    if (key.eventType === 'release') return
    router.handle(input, key, Date.now())
  })
  const value = useMemo(() => ({ router, bindings, doublePressMs }), [router, bindings, doublePressMs])
  return createElement(DispatcherContext.Provider, { value }, children)
}

function useDispatcherValue(): DispatcherValue {
  const value = useContext(DispatcherContext)
  if (!value) throw new Error('KeyDispatcher is missing: wrap the app in <KeyDispatcher>')
  return value
}

/**
 * Registers a key handler at a priority while `active`. The latest handler closure is always used, so
 * callers can read fresh state without re-registering.
 */
export function useKeyHandler(priority: number, handler: KeyHandler, active = true): void {
  const { router } = useDispatcherValue()
  const ref = useRef(handler)
  useLayoutEffect(() => {
    ref.current = handler
  })
  useEffect(() => {
    if (!active) return
    return router.register(priority, ref)
  }, [router, priority, active])
}

export function useBindings(): Bindings {
  return useDispatcherValue().bindings
}

export function useDoublePressMs(): number {
  return useDispatcherValue().doublePressMs
}
