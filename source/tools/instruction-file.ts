import { constants } from 'node:fs'
import { lstat, open, realpath } from 'node:fs/promises'
import { resolve, sep } from 'node:path'
import { evaluateCall } from '../permissions/policy-call.js'
import type { RuleSet } from '../permissions/policy.js'
import { secretName } from '../permissions/protected-paths.js'

/**
 * The one way agent-tui reads a file it puts in front of the model without a tool call: AGENTS.md and
 * CLAUDE.md (and the files they import), the memory file, user commands, skills and agent files. They
 * pass the checks a `Read` of them would, judged on the real path (symlinks resolved): inside the
 * workspace, an added directory, or a directory allowed for that kind of file (the user's config dir for
 * the user's own files); not a secrets file; no `Read(…)` deny or ask rule on it; and only a regular file
 * of bounded size, opened so that it cannot block (a FIFO) or turn into another file between the check
 * and the read. Nobody is asked: what would need consent is left out, with a reason for a notice.
 *
 * The mode does not loosen this: the file comes from the repository (or a link it made), not from a
 * request the user answered, so dangerous mode holds it to the same boundary.
 */

export interface ReadBoundary {
  /** Real path of the workspace. */
  workspace: string
  home: string
  /** Real paths of the directories added with `--add-dir` / `additionalDirectories`. */
  additionalDirs: readonly string[]
  /** The configured rules now (a trust answer changes them): deny and ask rules refuse, allow rules naming the path let it in. */
  rules(): RuleSet
}

export interface InstructionReadOptions {
  /** Real paths of further directories this kind of file may come from (the user's config dir). */
  allowedDirs?: readonly string[]
  /** At most this many bytes are read (default 256 KB); `truncated` says the file is longer. */
  maxBytes?: number
}

export type InstructionFile =
  | { kind: 'read'; text: string; real: string; size: number; truncated: boolean }
  /** No such file (or a link to nothing): nothing to say. */
  | { kind: 'missing' }
  /** Left out; `reason` says why, for a notice naming the file. */
  | { kind: 'refused'; reason: string }

export const DEFAULT_MAX_BYTES = 256 * 1024

/** File systems whose "files" are the kernel's, never instructions (`/proc/self/environ`). */
const PSEUDO_ROOTS = ['/proc', '/sys', '/dev']

const OPEN_FLAGS =
  constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0)

const EMPTY_RULES: RuleSet = { allow: [], ask: [], deny: [] }

/** Reads `path` if the boundary lets it in; never throws. */
export async function readInstructionFile(
  path: string,
  boundary: ReadBoundary,
  opts: InstructionReadOptions = {},
): Promise<InstructionFile> {
  const lexical = resolve(path)
  let real: string
  try {
    real = await realpath(lexical)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' }
    if (code === 'ELOOP') return refused('it is a loop of symbolic links')
    return refused(`it cannot be read (${code ?? (error as Error).message})`)
  }
  const why = boundaryObjection(lexical, real, boundary, opts.allowedDirs ?? [])
  if (why) return refused(why)
  let info: Awaited<ReturnType<typeof lstat>>
  try {
    info = await lstat(real)
  } catch (error) {
    return refused(`it cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
  }
  if (info.isDirectory()) return refused('it is a directory, not a file')
  if (!info.isFile()) return refused('it is not a regular file (a FIFO, socket or device)')
  return readChecked(real, info, opts.maxBytes ?? DEFAULT_MAX_BYTES)
}

/**
 * Why the read boundary keeps the file out, or undefined: what a `Read` of it in a mode that cannot ask
 * would be told (deny rules, the read boundary unless an allow rule names the path, secrets, ask rules).
 * Pure.
 */
export function boundaryObjection(
  lexical: string,
  real: string,
  boundary: ReadBoundary,
  allowedDirs: readonly string[],
): string | undefined {
  const pseudo = PSEUDO_ROOTS.find((root) => real === root || real.startsWith(`${root}${sep}`))
  if (pseudo) return `it resolves to ${real}, which is in ${pseudo}, not a file of yours`
  let rules: RuleSet
  try {
    rules = boundary.rules()
  } catch {
    rules = EMPTY_RULES
  }
  const verdict = evaluateCall({
    mode: 'ci',
    tool: 'Read',
    risk: 'read',
    readOnly: true,
    target: { kind: 'path', path: lexical, access: 'read', real },
    rules,
    workspace: boundary.workspace,
    home: boundary.home,
    // A directory allowed for this kind of file is read like an added one: secrets in it stay out.
    additionalDirs: [...boundary.additionalDirs, ...allowedDirs],
  })
  if (verdict.decision === 'allow') return undefined
  // Outside the boundary, a rule naming the path lets it in; a secret is never worth suggesting.
  const secret = secretName(real, { workspace: boundary.workspace, additionalDirs: [], trustedReadDirs: [] })
  return verdict.suggestedRule && !secret
    ? `${verdict.reason}; an allow rule ${verdict.suggestedRule} in your user settings would let it in`
    : verdict.reason
}

/**
 * A configuration file (settings, `.mcp.json`) as the repository may ship it: not held to the read
 * boundary (it is parsed, not shown to the model, and may be a link to a shared file), but only a regular
 * file of bounded size, never a kernel file: a FIFO would block the start, and a JSON error quotes the
 * first bytes of `/proc/self/environ`. Never throws.
 */
export async function readConfigText(path: string, maxBytes = 1024 * 1024): Promise<InstructionFile> {
  let real: string
  try {
    real = await realpath(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' }
    return refused(`it cannot be read (${code ?? (error as Error).message})`)
  }
  const pseudo = PSEUDO_ROOTS.find((root) => real === root || real.startsWith(`${root}${sep}`))
  if (pseudo) return refused(`it resolves to ${real}, which is in ${pseudo}, not a file`)
  let info: Awaited<ReturnType<typeof lstat>>
  try {
    info = await lstat(real)
  } catch (error) {
    return refused(`it cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
  }
  if (info.isDirectory()) return refused('it is a directory, not a file')
  if (!info.isFile()) return refused('it is not a regular file (a FIFO, socket or device)')
  const read = await readChecked(real, info, maxBytes)
  if (read.kind === 'read' && read.truncated) return refused(`it is over ${Math.round(maxBytes / 1024)} KB`)
  return read
}

async function readChecked(
  real: string,
  checked: { dev: number; ino: number },
  maxBytes: number,
): Promise<InstructionFile> {
  let handle: Awaited<ReturnType<typeof open>>
  try {
    handle = await open(real, OPEN_FLAGS)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // O_NOFOLLOW: the checked file was replaced by a link after the check.
    if (code === 'ELOOP' || code === 'EMLINK') return refused('it was replaced by a link while being read')
    return refused(`it cannot be read (${code ?? (error as Error).message})`)
  }
  try {
    const info = await handle.stat()
    if (!info.isFile() || info.dev !== checked.dev || info.ino !== checked.ino)
      return refused('it was replaced by another file while being read')
    // One byte more than the limit tells a longer file from one of exactly the limit.
    const buffer = Buffer.alloc(Math.min(info.size, maxBytes) + 1)
    let length = 0
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length)
      if (bytesRead === 0) break
      length += bytesRead
    }
    const truncated = length > maxBytes || info.size > maxBytes
    const bytes = buffer.subarray(0, Math.min(length, maxBytes))
    return { kind: 'read', text: bytes.toString('utf8'), real, size: info.size, truncated }
  } catch (error) {
    return refused(`it cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
  } finally {
    await handle.close().catch(() => undefined)
  }
}

function refused(reason: string): { kind: 'refused'; reason: string } {
  return { kind: 'refused', reason }
}

/** `AGENTS.md was left out: <why>`, for a notice or stderr. */
export function leftOutNotice(file: string, reason: string): string {
  return `${file} was left out: ${reason}`
}

/** A folder whose files become readable without asking (a skill's): judged like a file, its real path. */
export type InstructionFolder =
  | { kind: 'ok'; real: string }
  | { kind: 'missing' }
  | { kind: 'refused'; reason: string }

/** Judges the real path of a folder (not a file in it) against the boundary. */
export async function judgeInstructionFolder(
  path: string,
  boundary: ReadBoundary,
  allowedDirs: readonly string[] = [],
): Promise<InstructionFolder> {
  const lexical = resolve(path)
  let real: string
  try {
    real = await realpath(lexical)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' }
    return refused(`it cannot be read (${code ?? (error as Error).message})`)
  }
  const why = boundaryObjection(lexical, real, boundary, allowedDirs)
  return why ? refused(why) : { kind: 'ok', real }
}

/** Reads the files of one kind (and judges their folders) against one boundary. */
export interface InstructionReader {
  file(path: string, opts?: { maxBytes?: number }): Promise<InstructionFile>
  folder(path: string): Promise<InstructionFolder>
}

/** The reader for one kind of file: `allowedDirs` are the folders it may also come from. */
export function instructionReader(
  boundary: ReadBoundary,
  allowedDirs: readonly string[] = [],
): InstructionReader {
  return {
    file: (path, opts = {}) => readInstructionFile(path, boundary, { ...opts, allowedDirs }),
    folder: (path) => judgeInstructionFolder(path, boundary, allowedDirs),
  }
}
