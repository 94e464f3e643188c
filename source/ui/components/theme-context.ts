import { createContext, useContext } from 'react'
import { defaultTheme, type Theme } from './theme.js'

/**
 * The active theme, provided once at the root (`tui-root.tsx`) from the `theme` setting, `/theme` and the
 * terminal's background; panes read their colours from `useTheme().palette`.
 */
export const ThemeContext = createContext<Theme>(defaultTheme)

export function useTheme(): Theme {
  return useContext(ThemeContext)
}
