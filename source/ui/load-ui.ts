/**
 * Loads the full-screen UI's modules in stages, handing the event loop back between them (`pause`).
 *
 * Why: the early frame echoes keys typed at it, but only when the event loop turns, and the UI's modules
 * ran their top-level code in one stretch of 60–85 ms of CPU on a 2-core machine: a key typed at the
 * early frame was echoed after all of it. Part by part, a key waits for the part under way at most. Each
 * stage is a dynamic import, so the bundle keeps it a chunk of its own; what a stage shares with a later
 * one is evaluated once, in the first. CPU per stage, measured: Markdown (marked, highlight.js and its
 * grammars, wrap-ansi, string-width with Intl.Segmenter and its Unicode property regexes) 33–40 ms; Ink with
 * React and Yoga 26–32 ms; the app 4–8 ms. A third stage (highlight.js on its own) put the echo 20 ms
 * sooner but cost 10–25 ms more CPU before the UI was up.
 */
export async function loadUiInStages(pause: () => Promise<void>): Promise<typeof import('./run-tui.js')> {
  const stages = [() => import('./components/markdown.js'), () => import('ink')]
  for (const stage of stages) {
    await stage()
    await pause()
  }
  return import('./run-tui.js')
}
