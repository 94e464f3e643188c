/**
 * Ink lays out with Yoga compiled to WebAssembly. Once its functions get hot, V8 recompiles them with its
 * optimising compiler on a worker thread, whose scratch memory (~15 MB for Yoga's largest function) stays
 * in that thread's malloc arena for good: a third of the session's RSS growth over 40 turns, and ~80 ms
 * of CPU in the turn where it happens. The baseline (Liftoff) code is fast enough for a few layouts per
 * frame, so the tier-up budget is set out of reach. The flag is read when a module is instantiated: this
 * must run before Ink (and Yoga) load. It also keeps undici's HTTP parser on baseline code; measured, the
 * streaming turns cost no more for it.
 */
export async function keepLayoutWasmBaseline(): Promise<void> {
  // Loaded here, not at the top: headless runs never load Ink and need not pay for `node:v8`.
  const { setFlagsFromString } = await import('node:v8')
  setFlagsFromString('--wasm-tiering-budget=2000000000')
}
