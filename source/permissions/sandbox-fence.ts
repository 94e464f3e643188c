import { isAbsolute, relative, sep } from 'node:path'

/**
 * What the permission policy knows of the OS sandbox a Bash command will run in (see source/sandbox/).
 * Lexical and real spellings of each root are both listed, so a path is recognised either way.
 */
export interface SandboxView {
  /** Everything a sandboxed command may write (the private temp dirs aside). */
  writableRoots: readonly string[]
  /** The roots whose `.git` and `.agent-tui` the sandbox keeps read-only (the workspace, added dirs). */
  projectRoots: readonly string[]
  /**
   * A root's `.git` or `.agent-tui` that is a symlink (both spellings). The sandbox keeps its target
   * read-only, but the link sits in the writable root: any sandboxed program can replace it with a
   * `.git` of its own whose config runs outside the sandbox. With one, the sandbox does not hold.
   */
  replaceable?: readonly string[]
  /**
   * Other reasons the sandbox cannot keep what runs outside it later from changing (the home directory
   * is a writable root: source/sandbox/start-up-fence.ts). With one, the sandbox does not hold.
   */
  leaks?: readonly string[]
}

/** Whether the sandbox keeps every root's `.git` and `.agent-tui`, and what runs at a later start, from being changed. */
export function sandboxHolds(sandbox: SandboxView): boolean {
  return (sandbox.replaceable?.length ?? 0) === 0 && (sandbox.leaks?.length ?? 0) === 0
}

/** `.git is a symlink`, for reasons: what keeps the sandbox from holding. */
export function whySandboxLeaks(sandbox: SandboxView): string {
  const names = [...new Set((sandbox.replaceable ?? []).map((p) => p.split(sep).at(-1) ?? p))]
  const links =
    names.length === 0
      ? []
      : [
          `${names.join(' and ')} ${names.length > 1 ? 'are symlinks' : 'is a symlink'}, which the sandbox cannot keep from being replaced`,
        ]
  return [...links, ...(sandbox.leaks ?? [])].join('; ')
}

/** Whether `lexical` is a replaceable entry or lies below one: writing it may replace the link. */
export function throughReplaceable(lexical: string, sandbox: SandboxView): boolean {
  return (sandbox.replaceable ?? []).some((entry) => isInside(lexical, entry))
}

/**
 * Kept in step with RESERVED_NAMES in source/sandbox/fence.ts (the policy may not import the sandbox):
 * what the sandbox keeps read-only, or reserves when missing, at the top of a project root. Instruction
 * files and deeper ones are bound read-only only when they exist, so the policy judges a write there as
 * without a sandbox (it asks).
 */
const READ_ONLY_NAMES = new Set(['.git', '.agent-tui', '.mcp.json', '.claude'])

/**
 * Whether a write to `abs` cannot do harm outside a sandboxed command: the sandbox refuses it (outside
 * the writable roots, or into a project root's `.git/`, `.agent-tui/` or `.mcp.json`) or, for the temp dir, keeps it
 * private and throws it away. Such a write needs no consent: it fails inside the sandbox and the model
 * sees the error. Writes the sandbox lets through (a secrets file in the workspace, a nested
 * repository's `.git`) are judged as without a sandbox.
 */
export function sandboxBlocksWrite(abs: string, sandbox: SandboxView): boolean {
  if (!sandbox.writableRoots.some((root) => isInside(abs, root))) return true
  return sandbox.projectRoots.some((root) => {
    if (!isInside(abs, root)) return false
    const first = relative(root, abs).split(sep)[0]
    return first !== undefined && READ_ONLY_NAMES.has(first)
  })
}

function isInside(abs: string, dir: string): boolean {
  const rel = relative(dir, abs)
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))
}
