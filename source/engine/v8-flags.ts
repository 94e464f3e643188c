import { setFlagsFromString } from 'node:v8'

/**
 * V8 settings for a process whose work comes in bursts (a streamed reply) between idle stretches. Each
 * is left alone when node's own arguments set it (NODE_OPTIONS cannot carry these).
 *
 * - `--heap-growing-percent=200`: after a full collection V8 lets the heap reach 3× what survived before
 *   the next one. Left to itself it chose ~2× here (12 MB kept at start-up, the next collection at
 *   ~23 MB), which the first reply crossed a second or so in: a full collection in the middle of the
 *   stream, ~70 ms of CPU with its helper threads. The garbage is collected between turns instead
 *   (`reduceMemoryAfterTurns`), while the user reads the reply. V8 picks its own factor between 1.1× and
 *   4× by how fast it collects, so 3× is within what it does anyway.
 * - `--no-regexp-tier-up`: a regular expression is compiled to machine code when first used, rather than
 *   to bytecode first and to machine code again on its second use. Markdown parsing runs a few hundred
 *   of them, every one of them many times, so compiling twice was pure cost in the first reply.
 * - `--no-turbofan`: hot functions stop at Maglev, V8's quick optimising tier. TurboFan's own compiles
 *   (their zones in the compiler threads' malloc arenas, and the code they leave) were ~6 MB of every
 *   session's idle RSS and ~7 MB with a large command collection; this program's hot paths (rendering,
 *   the reducer, parsing a reply's chunks) are short and branchy, where Maglev's code measured as fast in
 *   every CPU row of the bench (docs/performance.md, "Without TurboFan"). Long numeric loops would be
 *   slower (~2× in a micro-benchmark); none runs here. Set at run time this flag takes effect, measured;
 *   `--max-opt` does not.
 *
 * Set at start, before V8's first full collection (~200 ms in), whose limit the first setting shapes, and
 * before anything is hot enough to reach TurboFan. The first two measured at 200 tokens/s in a first turn
 * (median of five): ~0.5 point of CPU less for each.
 */
export function tuneEngine(execArgv: readonly string[] = process.execArgv): void {
  for (const value of engineFlags(execArgv)) setFlagsFromString(value)
}

/** The settings `tuneEngine` applies given node's own arguments. */
export function engineFlags(execArgv: readonly string[]): string[] {
  return FLAGS.filter(([flags]) => !execArgv.some((arg) => flags.some((flag) => sameFlag(arg, flag)))).map(
    ([, value]) => value,
  )
}

/** Each setting, and the node arguments that leave it to the user (any of them, in any spelling). */
const FLAGS: ReadonlyArray<readonly [flags: readonly string[], value: string]> = [
  [['heap-growing-percent'], '--heap-growing-percent=200'],
  [['regexp-tier-up'], '--no-regexp-tier-up'],
  // `node --turbofan` or `--max-opt=N` chooses the tiers itself.
  [['turbofan', 'max-opt'], '--no-turbofan'],
]

/** `--no-regexp_tier_up` and `--regexp-tier-up-ticks=3` both set `regexp-tier-up`: V8 reads `_` as `-`. */
function sameFlag(arg: string, flag: string): boolean {
  const name = arg.replace(/^--(no-)?/, '').replaceAll('_', '-')
  return name === flag || name.startsWith(`${flag}=`) || name.startsWith(`${flag}-`)
}
