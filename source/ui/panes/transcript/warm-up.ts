import { useContext, useEffect, useRef } from 'react'
import type { AssistantItem } from '../../../store/state.js'
import type { Theme } from '../../components/theme.js'
import { KEY_PRIORITY, useKeyHandler } from '../../keys/dispatcher.js'
import { StoreContext } from '../../hooks/use-store.js'
import { renderItemLines } from './item-lines.js'

export interface WarmUpOptions {
  theme: Theme
  width: number
  /** Checked before each step: true once the work is no longer worth doing (a turn has started). */
  cancelled: () => boolean
  /** Runs the next step; by default after pending I/O, so keys typed meanwhile are answered first. */
  yieldToInput?: () => Promise<void>
}

/**
 * A short reply with the blocks replies are made of. Its code: shell and JSON, which nearly every session
 * shows, and TypeScript and Python, the two most used languages on GitHub, whose grammars are also the
 * dearest to compile (~20 and ~10 ms here). Any other language compiles its grammar on first use.
 */
const SAMPLE = [
  '## Plan',
  'I read `src/app.ts` first; the **parser** keeps the _existing_ behaviour, see [the notes](https://example.com/notes).',
  '- Fix the bug\n- Add a test\n  - nested',
  '1. Build\n2. Run the tests',
  '> The tests must pass.',
  '| file | change |\n| --- | --- |\n| `a.ts` | rename |',
  '```sh\nnpm test -- --watch=false && git status\n```',
  '```json\n{ "name": "app", "private": true, "scripts": { "test": "vitest" } }\n```',
  '```ts\nexport function total(items: Item[]): number {\n  return items.reduce((sum, item) => sum + item.price, 0)\n}\n```',
  '```python\ndef load(path: str) -> dict:\n    with open(path) as f:\n        return json.load(f)\n```',
  '---',
  'Done.',
].join('\n\n')

/** Characters added per step: about what one update of a 200 tokens/s stream adds. */
const STEP = 48

/**
 * Renders a sample reply the way a stream delivers one (a growing text, then settled); meant for while
 * the user types the first prompt.
 *
 * Why: a process's first reply cost ~100 ms more CPU than later ones: V8 compiling, on first call, every
 * function on the Markdown path (Node's compile cache holds only what runs at load) and the few hundred
 * regular expressions marked and highlight.js run. Measured streaming 200 tokens/s, the first turn's CPU
 * fell by about a point. It costs ~2 MB of RSS (compiled code), which is why it waits for the user to
 * start typing rather than running at start-up. Each step is its own task, so keys are answered between
 * them; stops early once `cancelled()` (a turn warms the same code anyway).
 */
export async function warmUpRendering(options: WarmUpOptions): Promise<void> {
  const next = options.yieldToInput ?? (() => new Promise<void>((resolve) => setImmediate(resolve)))
  for (let end = STEP; ; end += STEP) {
    await next()
    if (options.cancelled()) return
    const streaming = end < SAMPLE.length
    const item: AssistantItem = {
      kind: 'assistant',
      id: 'warm-up',
      text: SAMPLE.slice(0, end),
      reasoning: '',
      streaming,
    }
    renderItemLines(item, options.width, { expanded: false, theme: options.theme })
    if (!streaming) return
  }
}

/**
 * Starts `warmUpRendering` at the first key the user types, if `enabled`: the first prompt takes seconds
 * to type, the warm-up ~50 ms of CPU in steps between keys. Not at start-up, so a session opened and left
 * idle keeps its RSS. Cancelled by a turn starting or the UI closing.
 */
export function useRenderingWarmUp(enabled: boolean, theme: Theme, width: number): void {
  const store = useContext(StoreContext)
  const started = useRef(false)
  const closed = useRef(false)
  useEffect(
    () => () => {
      closed.current = true
    },
    [],
  )
  useKeyHandler(
    KEY_PRIORITY.observer,
    () => {
      if (started.current) return false
      started.current = true
      void warmUpRendering({
        theme,
        width,
        cancelled: () => closed.current || store?.getState().run.phase !== 'idle',
      })
      return false
    },
    enabled,
  )
}
