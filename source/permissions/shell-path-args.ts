import type { ShellWord } from './shell-split.js'

/** A file a program's arguments name, and whether it writes or reads it. */
export interface PathArg {
  role: 'read' | 'write'
  word: ShellWord
  /** Writes everything below the path too (`rm -r`, `chmod -R`, `find -delete`). */
  recursive?: boolean
  /**
   * A symlink's target: relative to where the link is made, not to the cwd. Each entry is a path (as
   * written, relative to the cwd) the target may be relative to, or whose parent it may be (`parent`):
   * `ln -s ../x dest` makes `dest/x` when dest is a directory, else `dest`.
   */
  relativeTo?: { word: ShellWord; parent: boolean }[]
}

export const writes = (words: readonly ShellWord[]): PathArg[] =>
  words.map((word) => ({ role: 'write', word }))
export const reads = (words: readonly ShellWord[]): PathArg[] => words.map((word) => ({ role: 'read', word }))
/** A write whose target is only known at run time. */
export const UNKNOWN_WORD: ShellWord = {
  value: '$?',
  raw: '(an option only known when it runs)',
  expands: true,
  glob: false,
}
