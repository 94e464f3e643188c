/**
 * Errors for bad user input. The CLI prints `message` (never a stack) and exits with `exitCode` (2).
 */

/** A settings file (or environment value) is invalid. `file`/`keyPath` locate the problem when known. */
export class ConfigError extends Error {
  readonly exitCode = 2
  readonly file: string | undefined
  /** Dotted key path inside the file, e.g. `permissions.allow[2]`. */
  readonly keyPath: string | undefined

  constructor(message: string, opts: { file?: string; keyPath?: string; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause })
    this.name = 'ConfigError'
    this.file = opts.file
    this.keyPath = opts.keyPath
  }
}

/** The command line is invalid (unknown flag, missing or bad value). */
export class UsageError extends Error {
  readonly exitCode = 2
  /** Present for symmetry with ConfigError so the CLI can print both the same way. */
  readonly file: string | undefined = undefined
  readonly keyPath: string | undefined = undefined

  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}
