import { setFlagsFromString } from 'node:v8'

/** V8's own value (unchanged for years): the young generation doubles when a scavenge finds much alive. */
const V8_DEFAULT_GROWTH = 2

/**
 * Keeps V8's young generation at its initial size (1 MB semi-spaces) until start-up is over; call the
 * returned function then.
 *
 * Why: nearly everything start-up allocates (modules, the UI tree, the first frame) lives on, which V8 reads
 * as a reason to grow the young generation, to 8 MB semi-spaces that RSS then keeps while the app sits
 * idle: idle RSS was 92.6 MB, and 87.4 MB held. Held for the whole session it slowed a 20k-token reply by
 * ~40 ms of CPU (scavenges every megabyte), so once start-up is done V8 sizes it for the real work again.
 * Left alone when the user passed their own young-generation flags to node.
 */
export function holdYoungGeneration(execArgv: readonly string[] = process.execArgv): () => void {
  if (sizedByUser(execArgv)) return () => {}
  setFlagsFromString('--semi-space-growth-factor=1')
  let held = true
  return () => {
    if (!held) return
    held = false
    setFlagsFromString(`--semi-space-growth-factor=${V8_DEFAULT_GROWTH}`)
  }
}

/** True when node's own arguments size the young generation (`--max-semi-space-size=64`, …). */
export function sizedByUser(execArgv: readonly string[]): boolean {
  return execArgv.some((arg) => /^--(max[-_]|min[-_])?semi[-_]space/.test(arg))
}
