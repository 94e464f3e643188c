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
import type { MouseSource } from './mouse.js'

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

/** Gets one wheel step in lines (negative is up); returns true when it scrolled something. */
export type WheelHandler = (lines: number) => boolean

/** Lines per wheel notch, as in most terminal programs. */
export const WHEEL_LINES = 3

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
  /** Wheel handlers are separate from keys: a wheel notch is never text, a command or a double press. */
  registerWheel(handler: { current: WheelHandler }): () => void
  /** Offers one wheel step to the wheel handlers, most recently mounted first. */
  wheel(lines: number): boolean
}

interface Registration {
  priority: number
  order: number
  handler: { current: KeyHandler }
}

function removeFrom<T>(list: T[], item: T): () => void {
  return () => {
    const i = list.indexOf(item)
    if (i >= 0) list.splice(i, 1)
  }
}

/** The non-React core of the dispatcher: matching, double presses and priority order. */
export function createKeyRouter(bindings: Bindings, doublePressMs: number): KeyRouter {
  const registrations: Registration[] = []
  const wheelHandlers: { current: WheelHandler }[] = []
  let counter = 0
  let last: { spec: KeySpec; at: number } | null = null
  return {
    register(priority, handler) {
      const reg = { priority, order: counter++, handler }
      registrations.push(reg)
      // Highest priority first; among equals the most recently mounted wins (it is the innermost UI).
      registrations.sort((a, b) => b.priority - a.priority || b.order - a.order)
      return removeFrom(registrations, reg)
    },
    registerWheel(handler) {
      wheelHandlers.unshift(handler)
      return removeFrom(wheelHandlers, handler)
    },
    wheel(lines) {
      return [...wheelHandlers].some((handler) => handler.current(lines))
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
  /** Mouse reports taken out of stdin before Ink (Ink never passes them to `useInput`). */
  mouse?: MouseSource
  children?: ReactNode
}

/**
 * The ONE stdin key listener of the app; everything else registers handlers with `useKeyHandler`
 * (and `useWheelHandler` for the mouse wheel).
 */
export function KeyDispatcher({
  bindings = DEFAULT_BINDINGS,
  doublePressMs = 1500,
  mouse,
  children,
}: KeyDispatcherProps) {
  const router = useMemo(() => createKeyRouter(bindings, doublePressMs), [bindings, doublePressMs])
  useInput((input, key) => {
    // Kitty-protocol terminals can report releases; only presses and repeats are commands.
    if (key.eventType === 'release') return
    router.handle(input, key, Date.now())
  })
  useEffect(() => {
    if (!mouse) return
    // Only the wheel means something here; clicks and drags are swallowed.
    return mouse.subscribe((event) => {
      if (event.kind === 'wheelUp') router.wheel(-WHEEL_LINES)
      else if (event.kind === 'wheelDown') router.wheel(WHEEL_LINES)
    })
  }, [mouse, router])
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
  const ref = useLatest(handler)
  // In the commit, not after it: a key arriving right after a pane appears (a paste, keys typed ahead)
  // must reach that pane, not whatever was under it before its passive effects ran.
  useLayoutEffect(() => {
    if (!active) return
    return router.register(priority, ref)
  }, [router, priority, active, ref])
}

/** Registers a wheel handler while `active`; like `useKeyHandler`, the latest closure is always used. */
export function useWheelHandler(handler: WheelHandler, active = true): void {
  const { router } = useDispatcherValue()
  const ref = useLatest(handler)
  useEffect(() => {
    if (!active) return
    return router.registerWheel(ref)
  }, [router, active, ref])
}

export function useBindings(): Bindings {
  return useDispatcherValue().bindings
}

export function useDoublePressMs(): number {
  return useDispatcherValue().doublePressMs
}

/** A ref that always holds the latest `value`, so a handler registered once still sees fresh closures. */
function useLatest<T>(value: T): { current: T } {
  const ref = useRef(value)
  useLayoutEffect(() => {
    ref.current = value
  })
  return ref
}
