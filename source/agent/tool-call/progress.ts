/** Live output previews of a running tool call, throttled (the run phase of pipeline.ts). */

/**
 * Live output previews of one call, at most one per `intervalMs`, the first once the call has run that
 * long: a command done sooner shows its result, not a preview of it, and its output costs no update of
 * the view on the way to the result. Output that arrives between two previews is shown at the next one
 * (a timer of the call's own, stopped with it), so a command that goes quiet shows its latest lines.
 */
export function throttledProgress(
  intervalMs: number,
  now: () => number,
  emit: (text: string) => void,
): { push(text: string): void; stop(): void } {
  let last = now()
  let pending: string | null = null
  let timer: NodeJS.Timeout | null = null
  const flush = () => {
    timer = null
    if (pending === null) return
    const text = pending
    pending = null
    last = now()
    emit(text)
  }
  return {
    push(text) {
      pending = text
      if (timer) return
      const wait = last + intervalMs - now()
      if (wait <= 0) flush()
      else timer = setTimeout(flush, wait)
    },
    stop() {
      if (timer) clearTimeout(timer)
      timer = null
      pending = null
    },
  }
}

/** The last `n` lines of a call's output, for its card while it runs. */
export function tailLines(text: string, n: number): string {
  const lines = text.replace(/\n+$/, '').split('\n')
  return lines.slice(-n).join('\n').slice(-400)
}
