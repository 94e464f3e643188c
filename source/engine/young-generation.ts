import { setFlagsFromString } from 'node:v8'

/** V8's own value (unchanged for years): the young generation doubles when a scavenge finds much alive. */
const V8_DEFAULT_GROWTH = 2

/**
 * Keeps V8's young generation at the size it has now until the first turn; call the returned function
 * then.
 *
 * Why: nearly everything start-up allocates (settings, the UI tree, the provider, the first frames) lives
 * on, which V8 reads as a reason to grow the young generation, to 4-8 MB semi-spaces that RSS then keeps
 * while the app sits idle: idle RSS was 92-93 MB, and 87-89 MB with the hold. Taken when `start()` begins,
 * where V8 has already grown it to 2 MB: held from the process start, the first frame took ~17 ms longer
 * (scavenging a 1 MB young generation); taken at the early frame, start-up had sometimes grown it to 4 MB
 * already. Released at the first turn, so V8 sizes it for the real work: released once the provider had
 * loaded, the rest of start-up grew it again in some runs. Left alone when node was given
 * young-generation flags.
 */
export function holdYoungGeneration(execArgv: readonly string[] = process.execArgv): () => void {
  return youngGeneration(execArgv).hold()
}

/**
 * Holds that nest: the young generation keeps its size while any is held. Start-up holds it until the
 * first turn, and CodeSearch's index build for as long as it runs — a build allocates ~1 GB over 10,000
 * files, and V8 grows the young generation once enough of it has survived a scavenge, whatever the batch:
 * to its largest semi-spaces, which RSS then kept (peak 244 MB, 144 MB held; the build took as long).
 */
export interface YoungGeneration {
  /** Holds it; call the returned function (once is enough) to let go. */
  hold(): () => void
}

export function youngGeneration(execArgv: readonly string[] = process.execArgv): YoungGeneration {
  if (sizedByUser(execArgv)) return { hold: () => () => {} }
  let holds = 0
  return {
    hold() {
      if (holds++ === 0) setFlagsFromString('--semi-space-growth-factor=1')
      let held = true
      return () => {
        if (!held) return
        held = false
        if (--holds === 0) setFlagsFromString(`--semi-space-growth-factor=${V8_DEFAULT_GROWTH}`)
      }
    },
  }
}

/** True when node's own arguments size the young generation (`--max-semi-space-size=64`, …). */
export function sizedByUser(execArgv: readonly string[]): boolean {
  return execArgv.some((arg) => /^--(max[-_]|min[-_])?semi[-_]space/.test(arg))
}
