/** Plain-data results of `splitShell` (see shell-split.ts). */

/** One word of a simple command. */
export interface ShellWord {
  /** Text after quote removal; expansions stay verbatim (`$HOME`, `$(date)`). */
  value: string
  /** The word as written in the source. */
  raw: string
  /** Contains a parameter, arithmetic, command or process substitution: its final text is unknown. */
  expands: boolean
  /** Contains an unquoted glob or brace expansion: it may turn into several words. */
  glob: boolean
  /**
   * An expansion in it that makes bash evaluate a value as code (shell-arithmetic.ts): a non-literal
   * subscript, substring offset or `$(( ))`, or `${x@P}`. The text shown to the user.
   */
  evaluates?: string
}

export interface ShellRedirect {
  /** `>`, `>>`, `>|`, `<`, `<<`, `<<-`, `<<<`, `<>`, `>&`, `<&`, `&>` or `&>>`. */
  op: string
  /** Explicit file descriptor (`2>`), or null. */
  fd: number | null
  target: ShellWord
}

/** A file a redirection writes to. `dynamic` means the name contains expansions (unknown target). */
export interface ShellWrite {
  path: string
  dynamic: boolean
}

/** One simple command. */
export interface ShellPart {
  /** Words without redirections (assignments like `FOO=1` included). */
  words: ShellWord[]
  /** Word values joined by single spaces. */
  text: string
  /** Raw words joined by single spaces (quotes kept). */
  raw: string
  redirects: ShellRedirect[]
  /** Files written by output redirection (`/dev/null` and fd duplications excluded). */
  writes: ShellWrite[]
  /** Comes from inside `$( )`, backticks or `<( )`. */
  nested: boolean
  /** Comes from inside a non-literal `(( … ))`, which evaluates its names (see ShellWord.evaluates). */
  evaluates?: string
}

export type ShellSplit = { ok: true; parts: ShellPart[] } | { ok: false; reason: string }
