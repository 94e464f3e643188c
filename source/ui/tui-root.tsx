import type { RuntimeCommands } from '../agent/runtime/commands.js'
import type { Store } from '../store/create-store.js'
import { useEffect, useMemo } from 'react'
import { App, type AppProps } from './app.js'
import type { Clipboard } from './clipboard/clipboard.js'
import { ClipboardContext } from './clipboard/clipboard-context.js'
import { BUILTIN_COMMANDS } from './commands/builtin-commands.js'
import { type CommandTable, createCommandTable } from './commands/command-table.js'
import { Themed } from './components/themed.js'
import { syncMcpPromptCommands } from './commands/mcp-prompt-commands.js'
import { CommandTableContext } from './commands/use-command-table.js'
import { CommandsContext, StoreContext } from './hooks/use-store.js'
import { type Bindings, DEFAULT_BINDINGS } from './keys/bindings.js'
import { KeyDispatcher } from './keys/dispatcher.js'
import type { MouseSource } from './keys/mouse.js'
import { PainterContext } from './terminal/painter-context.js'
import type { ScreenPainter } from './terminal/screen-painter.js'

export interface TuiRootProps extends AppProps {
  store: Store
  commands: RuntimeCommands
  bindings?: Bindings
  /** Window for double presses; tests may widen it. */
  doublePressMs?: number
  /** Mouse reports from the stdin filter (absent when mouse reporting is off). */
  mouse?: MouseSource
  /** Paints the transcript straight to the terminal (real terminals only; tests render it in Ink). */
  painter?: ScreenPainter
  /** The slash commands; default: a table of the built-in ones. A caller that loads more passes its own. */
  commandTable?: CommandTable
  /** `/copy`'s way to the clipboard (absent in tests that do not copy). */
  clipboard?: Clipboard
}

/** The providers around the App: store, runtime commands, slash commands and the one key dispatcher. */
export function TuiRoot({
  store,
  commands,
  bindings = DEFAULT_BINDINGS,
  doublePressMs,
  mouse,
  painter,
  commandTable,
  clipboard,
  theme: base,
  ...app
}: TuiRootProps) {
  const table = useMemo(() => commandTable ?? createCommandTable(BUILTIN_COMMANDS), [commandTable])
  // MCP servers' prompts join the table while their server offers them.
  useEffect(() => syncMcpPromptCommands(table, store), [table, store])
  return (
    <StoreContext.Provider value={store}>
      <CommandsContext.Provider value={commands}>
        <CommandTableContext.Provider value={table}>
          <PainterContext.Provider value={painter ?? null}>
            <ClipboardContext.Provider value={clipboard ?? null}>
              <KeyDispatcher bindings={bindings} doublePressMs={doublePressMs} mouse={mouse}>
                <Themed base={base}>{(theme) => <App {...app} theme={theme} />}</Themed>
              </KeyDispatcher>
            </ClipboardContext.Provider>
          </PainterContext.Provider>
        </CommandTableContext.Provider>
      </CommandsContext.Provider>
    </StoreContext.Provider>
  )
}
