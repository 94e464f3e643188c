import { createContext, useContext, useSyncExternalStore } from 'react'
import type { CommandTable, SlashCommand } from './command-table.js'

/** The app's slash command table (created by `TuiRoot`, or handed in by the caller that loads more commands). */
export const CommandTableContext = createContext<CommandTable | null>(null)

export function useCommandTable(): CommandTable {
  const table = useContext(CommandTableContext)
  if (!table) throw new Error('CommandTableContext is missing: render panes inside <TuiRoot>')
  return table
}

/** The table's entries; re-renders when a loader adds or removes some. */
export function useCommandList(): readonly SlashCommand[] {
  const table = useCommandTable()
  return useSyncExternalStore(table.subscribe, table.list)
}
