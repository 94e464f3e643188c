import { EventEmitter } from 'node:events'
import xtermHeadless from '@xterm/headless'
import { Box, render as inkRender, Text } from 'ink'
import { render } from 'ink-testing-library'
import type { ReactElement } from 'react'
import stripAnsi from 'strip-ansi'
import { describe, expect, it, vi } from 'vitest'
import { createStore, type Store } from '../../../source/store/create-store.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { StoreContext } from '../../../source/ui/hooks/use-store.js'
import { TranscriptPane } from '../../../source/ui/panes/transcript/transcript-pane.js'
import {
  createTranscriptView,
  type TranscriptView,
} from '../../../source/ui/panes/transcript/transcript-view.js'
import { PainterContext } from '../../../source/ui/terminal/painter-context.js'
import { ScreenPainter } from '../../../source/ui/terminal/screen-painter.js'
import { FakeStdin } from '../shell/helpers.js'
import { longConversation, userSubmitted } from '../transcript/fixtures.js'

const COLS = 50
const ROWS = 9
// Coloured, as in a real terminal: the Ink path must show the same text as the painted one.
const theme = createTheme({ level: 1 })

/** The transcript between a status line and a side column, like the app lays it out. */
function layout(store: Store, view: TranscriptView): ReactElement {
  return (
    <StoreContext.Provider value={store}>
      <Box flexDirection="column" width={COLS} height={ROWS}>
        <Text>status line</Text>
        {/* The transcript grows into its parent (on a terminal its height is the layout's), as in the App. */}
        <Box flexDirection="row" flexGrow={1}>
          <TranscriptPane view={view} theme={theme} width={36} height={7} />
          <Text>│ side pane</Text>
        </Box>
        <Text>❯ prompt</Text>
      </Box>
    </StoreContext.Provider>
  )
}

/** A real terminal (headless xterm) behind the screen painter, as in `runTui`. */
function paintedTerminal(node: ReactElement) {
  // convertEol: a pty turns Ink's \n into \r\n (onlcr); there is no pty here.
  const term = new xtermHeadless.Terminal({
    cols: COLS,
    rows: ROWS,
    allowProposedApi: true,
    convertEol: true,
  })
  const pending: Promise<void>[] = []
  const toTerminal = (text: string) => pending.push(new Promise<void>((resolve) => term.write(text, resolve)))
  const stdout = Object.assign(new EventEmitter(), {
    isTTY: true,
    columns: COLS,
    rows: ROWS,
    write: (chunk: string, ...rest: unknown[]) => {
      toTerminal(chunk)
      rest.find((r): r is () => void => typeof r === 'function')?.()
      return true
    },
  })
  const painter = new ScreenPainter({ write: toTerminal })
  const instance = inkRender(<PainterContext.Provider value={painter}>{node}</PainterContext.Provider>, {
    stdout: painter.wrapStdout(stdout as unknown as NodeJS.WriteStream),
    stdin: new FakeStdin() as unknown as NodeJS.ReadStream,
    interactive: true,
    alternateScreen: true,
    incrementalRendering: true,
    exitOnCtrlC: false,
    patchConsole: false,
  })
  const screen = async () => {
    await Promise.all(pending)
    const buffer = term.buffer.active
    return Array.from({ length: ROWS }, (_, y) => buffer.getLine(y)?.translateToString(true) ?? '')
  }
  return {
    screen,
    close: () => {
      instance.unmount()
      painter.dispose()
    },
  }
}

/** The same layout rendered by Ink alone (no painter), as component tests see it. */
function inkFrame(node: ReactElement) {
  const app = render(node)
  return {
    rows: () =>
      stripAnsi(app.lastFrame() ?? '')
        .split('\n')
        .map((line) => line.trimEnd()),
    close: () => app.unmount(),
  }
}

describe('useRowSurface: one render path', () => {
  it('the painted terminal and the Ink-only frame show the same transcript rows, before and after changes', async () => {
    const painted = { store: createStore(longConversation(12)), view: createTranscriptView(theme) }
    const inked = { store: createStore(longConversation(12)), view: createTranscriptView(theme) }
    const terminal = paintedTerminal(layout(painted.store, painted.view))
    const frame = inkFrame(layout(inked.store, inked.view))
    const same = async (expectRow: string) =>
      vi.waitFor(async () => {
        const screen = await terminal.screen()
        expect(screen.join('\n')).toContain(expectRow)
        expect(frame.rows().join('\n')).toContain(expectRow)
        expect(screen).toEqual(frame.rows())
      })
    try {
      await same('  second paragraph of 11')
      // Scrolled up, a new message shows the hint on the last row instead.
      for (const side of [painted, inked]) side.view.scrollBy(-4)
      for (const side of [painted, inked])
        side.store.dispatch(userSubmitted('u-new', 'arrives while scrolled up'))
      await same('↓ new output  End to follow')
      for (const side of [painted, inked]) side.view.end()
      await same('› arrives while scrolled up')
    } finally {
      terminal.close()
      frame.close()
    }
  })
})
