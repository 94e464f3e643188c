export interface IdleWatchdog {
  /** Something arrived: the quiet period starts again. */
  touch(): void
  stop(): void
}

/**
 * Calls `onIdle` once nothing touched the watchdog for `ms`. A touch only notes the time; the one timer
 * checks on expiry and waits out the rest, so a stream touching it per chunk costs no timer work.
 */
export function idleWatchdog(ms: number, onIdle: () => void): IdleWatchdog {
  let last = performance.now()
  const check = () => {
    const quiet = performance.now() - last
    if (quiet >= ms) onIdle()
    else timer = setTimeout(check, ms - quiet)
  }
  let timer = setTimeout(check, ms)
  return {
    touch() {
      last = performance.now()
    },
    stop() {
      clearTimeout(timer)
    },
  }
}
