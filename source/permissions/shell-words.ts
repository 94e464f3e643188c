import type { ShellWord } from './shell-split.js'

/** `VAR=value` (or `VAR+=value`) before a program. */
export function isAssignment(word: ShellWord): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(word.raw)
}

/** The program a word names, for rules: `/usr/bin/env` → `env` (quotes are already gone from `value`). */
export function programName(word: ShellWord): string {
  const value = word.value
  const slash = value.lastIndexOf('/')
  return slash === -1 ? value : value.slice(slash + 1)
}
