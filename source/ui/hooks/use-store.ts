import { createContext, useContext, useSyncExternalStore } from 'react'
import type { RuntimeCommands } from '../../agent/runtime/commands.js'
import type { Dispatch, Store } from '../../store/create-store.js'
import type { State } from '../../store/state.js'

export const StoreContext = createContext<Store | null>(null)
export const CommandsContext = createContext<RuntimeCommands | null>(null)

function useStoreObject(): Store {
  const store = useContext(StoreContext)
  if (!store) throw new Error('StoreContext is missing: wrap the app in <StoreContext.Provider>')
  return store
}

/** Reads a slice of the store; the selector must return a stable reference or a primitive. */
export function useStore<T>(select: (s: State) => T): T {
  const store = useStoreObject()
  return useSyncExternalStore(store.subscribe, () => select(store.getState()))
}

/** For UI-only actions (focus, scroll, pane toggles). Conversation changes go through commands. */
export function useDispatch(): Dispatch {
  return useStoreObject().dispatch
}

export function useCommands(): RuntimeCommands {
  const commands = useContext(CommandsContext)
  if (!commands) throw new Error('CommandsContext is missing: wrap the app in <CommandsContext.Provider>')
  return commands
}
