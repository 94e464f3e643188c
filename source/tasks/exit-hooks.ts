import { constants as osConstants } from 'node:os'

/** What the hooks need from the owner of the live process groups (see process-groups.ts). */
export interface SyncKillable {
  /** Kills every live process group without waiting; must be safe to call repeatedly. */
  killAllSync(): void
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
  /** Further synchronous steps after the kill, e.g. closing the session log; a failing one never stops the rest. */
  also?: Array<() => void>
}

const DEFAULT_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

/**
 * Makes sure no process group outlives the app: on the `exit` event and on SIGINT/SIGTERM/SIGHUP it
 * calls `killAllSync()` (the `exit` event cannot await, so groups get SIGKILL) and the `also` steps,
 * and after a signal it exits with 128 + the signal number — through `process.exit`, whose `exit` event
 * also lets Ink restore the terminal. Uncaught exceptions and unhandled rejections are covered by the
 * `exit` event, which Node emits on those crashes too; listening for them directly would suppress
 * Node's default crash and change the app's behaviour. Returns a function that removes the hooks.
 */
export function installExitCleanup(groups: SyncKillable, opts: ExitCleanupOptions = {}): () => void {
  const target: ExitEventSource = opts.target ?? process
  const exit = opts.exit ?? ((code: number) => process.exit(code))

  const attempt = (step: () => void, what: string): void => {
    try {
      step()
    } catch (error) {
      // Exit paths must still end with the right code, so report and carry on.
      const reason = error instanceof Error ? error.message : String(error)
      process.stderr.write(`agent-tui: ${what} on exit: ${reason}\n`)
    }
  }

  const cleanup = (): void => {
    attempt(() => groups.killAllSync(), 'could not stop running commands')
    for (const step of opts.also ?? []) attempt(step, 'clean-up failed')
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
