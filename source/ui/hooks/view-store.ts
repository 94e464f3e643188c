import type { Store } from '../../store/create-store.js'

/**
 * The store as the full-screen view subscribes to it: the view hears of the runtime's changes when the
 * runtime has stopped to wait (for a child process, the endpoint, a timer), at most once per frame
 * interval, never in the middle of its work.
 *
 * Why: the store calls its listeners inside `dispatch`, and React answers a changed snapshot with a render
 * queued as a microtask. The agent loop runs from one await to the next on microtasks too, so every
 * render (React's reconcile, then Ink's layout and frame: several ms on a small VM) ran between a reply's
 * last byte and the tool's start, and again between the tool's result and the next request being written:
 * each tool round trip paid renders that headless never pays. Here the changes of a stretch of the
 * runtime's work reach the view as one notification from the event loop's check phase (after a timer when
 * the last one was under a frame interval ago), after the tool's process has started or the request is on
 * the wire, so the render overlaps that wait. A run of quick tool calls is drawn at the frame rate rather
 * than twice per call.
 *
 * What the view itself dispatches (keys: focus, scroll, pane toggles) is answered at once, as before.
 * `getState` is the store's: a render for any other reason reads the newest state.
 */
export interface ViewStore extends Store {
  /** Stops listening to the store and drops a pending notification. */
  dispose(): void
}

export interface ViewStoreOptions {
  /** Least time between two notifications of the runtime's changes (ms). Default 33 (30 a second). */
  intervalMs?: number
  now?: () => number
  /** Runs `fn` after `ms` (0: once the current stretch of work has yielded); returns a cancel. */
  later?: (ms: number, fn: () => void) => () => void
}

/**
 * After `ms`, on the check phase: a timer runs before the event loop polls, so a timer's render would come
 * before a child's exit or a reply that is already waiting to be read; from the check phase it comes after
 * the loop has taken them and sent whatever they lead to.
 */
function eventLoopLater(ms: number, fn: () => void): () => void {
  let immediate: NodeJS.Immediate | null = null
  let timer: NodeJS.Timeout | null = null
  if (ms > 0) {
    timer = setTimeout(() => {
      timer = null
      immediate = setImmediate(fn)
    }, ms)
  } else immediate = setImmediate(fn)
  return () => {
    if (timer) clearTimeout(timer)
    if (immediate) clearImmediate(immediate)
  }
}

export function createViewStore(store: Store, options: ViewStoreOptions = {}): ViewStore {
  const intervalMs = options.intervalMs ?? 33
  const now = options.now ?? (() => performance.now())
  const later = options.later ?? eventLoopLater
  const listeners = new Set<() => void>()
  let lastNotifiedAt = Number.NEGATIVE_INFINITY
  let cancel: (() => void) | null = null
  let unsubscribe: (() => void) | null = null

  const notify = () => {
    cancel?.()
    cancel = null
    lastNotifiedAt = now()
    for (const listener of [...listeners]) listener()
  }
  const changed = () => {
    cancel ??= later(Math.max(0, lastNotifiedAt + intervalMs - now()), notify)
  }

  return {
    getState: store.getState,
    dispatch(action) {
      store.dispatch(action)
      // The user's own action: the view answers in this turn of the event loop, with whatever the
      // runtime changed meanwhile.
      if (cancel) notify()
    },
    subscribe(listener) {
      listeners.add(listener)
      unsubscribe ??= store.subscribe(changed)
      return () => {
        listeners.delete(listener)
      }
    },
    dispose() {
      cancel?.()
      cancel = null
      unsubscribe?.()
      unsubscribe = null
      listeners.clear()
    },
  }
}
