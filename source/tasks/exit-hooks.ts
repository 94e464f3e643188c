import { constants as osConstants } from 'node:os'

/** What the hooks need from the TaskManager. */
export interface SyncStoppable {
  /** Kills every running job's process group without waiting; must be safe to call repeatedly. */
  stopAllSync(): void
}

/** The part of `process` the hooks listen on (tests pass an EventEmitter). */
export type ExitEventSource = Pick<NodeJS.EventEmitter, 'on' | 'off'>

export interface ExitCleanupOptions {
  /** Default: `process`. */
  target?: ExitEventSource
  /** Signals that end the app after clean-up (default SIGINT, SIGTERM, SIGHUP). */
  signals?: NodeJS.Signals[]
  /**
   * Leaves the process after a handled signal with the conventional code (128 + signal number: 130,
   * 143, 129). Default `process.exit`; an app that must save state first can pass its own.
   */
  exit?: (code: number, signal: NodeJS.Signals) => void
}

const DEFAULT_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

/**
 * Makes sure no background job outlives the app: on the `exit` event and on SIGINT/SIGTERM/SIGHUP it
 * calls `stopAllSync()` (the `exit` event cannot await, so groups get SIGKILL), and after a signal it
 * exits with 128 + the signal number. Uncaught exceptions and unhandled rejections are covered by the
 * `exit` event, which Node emits on those crashes too; listening for them directly would suppress
 * Node's default crash and change the app's behaviour. Returns a function that removes the hooks.
 */
export function installExitCleanup(manager: SyncStoppable, opts: ExitCleanupOptions = {}): () => void {
  const target: ExitEventSource = opts.target ?? process
  const exit = opts.exit ?? ((code: number) => process.exit(code))

  const cleanup = (): void => {
    try {
      manager.stopAllSync()
    } catch (error) {
      // Exit paths must still end with the right code, so report and carry on.
      const reason = error instanceof Error ? error.message : String(error)
      process.stderr.write(`agent-tui: could not stop background jobs on exit: ${reason}\n`)
    }
  }

  const onSignal = (signal: NodeJS.Signals): void => {
    cleanup()
    exit(128 + (osConstants.signals[signal] ?? 0), signal)
  }

  const signals = opts.signals ?? DEFAULT_SIGNALS
  target.on('exit', cleanup)
  for (const signal of signals) target.on(signal, onSignal)

  return () => {
    target.off('exit', cleanup)
    for (const signal of signals) target.off(signal, onSignal)
  }
}
