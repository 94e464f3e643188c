import { createContext, useContext } from 'react'
import type { ThemeSetting } from '../../store/domain.js'
import { defaultTheme, type Theme } from './theme.js'

/**
 * The active theme, provided once at the root (`tui-root.tsx`) from the `theme` setting, `/theme` and the
 * terminal's background; panes read their colours from `useTheme().palette`.
 */
export const ThemeContext = createContext<Theme>(defaultTheme)

export function useTheme(): Theme {
  return useContext(ThemeContext)
}

/** Saves a theme choice in the user's settings (`/theme … save`); resolves with the file written. */
export type SaveTheme = (theme: ThemeSetting) => Promise<string>

/** `/theme … save`'s way to the user settings; null where there is none (tests). */
export const SaveThemeContext = createContext<SaveTheme | null>(null)
