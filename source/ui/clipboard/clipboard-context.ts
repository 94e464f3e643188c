import { createContext } from 'react'
import type { Clipboard } from './clipboard.js'

/** `/copy`'s clipboard, created by runTui (null where there is no terminal). */
export const ClipboardContext = createContext<Clipboard | null>(null)
