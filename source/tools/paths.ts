import { homedir } from 'node:os'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import type { PermissionTarget } from '../permissions/target.js'

/**
 * Resolves a path given by the model: `~` and `~/…` expand to the home directory, relative paths
 * resolve against `cwd` (the session's current directory), absolute paths stay as they are.
 * Always returns a normalised absolute path.
 */
export function resolveToolPath(input: string, cwd: string): string {
  if (input === '~') return homedir()
  if (input.startsWith('~/')) return join(homedir(), input.slice(2))
  return isAbsolute(input) ? resolve(input) : resolve(cwd, input)
}

/** True when `p` is `root` itself or lies below it (purely lexical; resolve symlinks first if needed). */
export function isInside(root: string, p: string): boolean {
  const rel = relative(resolve(root), resolve(p))
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))
}

/** Path for messages and labels: relative to the workspace when inside it, else absolute. */
export function displayPath(absPath: string, workspace: string): string {
  if (!isInside(workspace, absPath)) return absPath
  const rel = relative(workspace, absPath)
  return rel === '' ? '.' : rel
}

/** The permission target of a tool that writes the file the model named. */
export function writeTarget(input: string, ctx: { cwd(): string }): PermissionTarget {
  return { kind: 'path', path: resolveToolPath(input, ctx.cwd()), access: 'write' }
}
