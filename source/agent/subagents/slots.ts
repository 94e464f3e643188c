/**
 * At most `size` holders at once; the rest wait in arrival order. Waiting ends early when the caller's
 * signal aborts (then `acquire` resolves null and nothing is held).
 */
export class Slots {
  private held = 0
  private readonly waiting: Array<() => void> = []

  constructor(private readonly size: number) {}

  get busy(): number {
    return this.held
  }

  async acquire(signal: AbortSignal, onWait: () => void): Promise<(() => void) | null> {
    if (signal.aborted) return null
    if (this.held >= this.size) {
      onWait()
      const granted = await new Promise<boolean>((resolve) => {
        const grant = () => {
          signal.removeEventListener('abort', abort)
          resolve(true)
        }
        const abort = () => {
          const at = this.waiting.indexOf(grant)
          if (at >= 0) this.waiting.splice(at, 1)
          resolve(false)
        }
        this.waiting.push(grant)
        signal.addEventListener('abort', abort, { once: true })
      })
      // A granted slot was handed over by release(): it is already counted.
      if (!granted) return null
    } else this.held++
    let released = false
    return () => {
      if (released) return
      released = true
      const next = this.waiting.shift()
      if (next) next()
      else this.held--
    }
  }
}
