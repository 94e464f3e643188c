import type { KeptFile, TreeChange } from './types.js'

export interface ClassifiedChanges {
  restore: string[]
  remove: string[]
  outside: string[]
  kept: KeptFile[]
  /** Blob each applied path ends up with (null = removed), for the record of what the agent left. */
  written: Record<string, string | null>
}

/**
 * Sorts what differs between a checkpoint (`before`) and the workspace now (`after`) into what a rewind
 * does. A file is the agent's to put back only when it is exactly as the agent (or an earlier rewind) last
 * left it — `known` maps each such path to that blob (null: the agent deleted it). Anything else differs
 * because of someone else: listed as changed outside the agent, and only touched when `force` is set.
 * Files over the size cap at either end, and nested repositories, are never touched.
 */
export function classifyChanges(
  changes: readonly TreeChange[],
  known: Readonly<Record<string, string | null>>,
  overCap: ReadonlySet<string>,
  force: boolean,
): ClassifiedChanges {
  const out: ClassifiedChanges = { restore: [], remove: [], outside: [], kept: [], written: {} }
  for (const change of changes) {
    const { path } = change
    if (change.nested) {
      out.kept.push({ path, reason: 'nested-repo' })
      continue
    }
    if (overCap.has(path)) {
      out.kept.push({ path, reason: 'size-cap' })
      continue
    }
    const now = change.after?.blob ?? null
    const agents = Object.hasOwn(known, path) && known[path] === now
    if (!agents) {
      out.outside.push(path)
      if (!force) continue
    }
    if (change.before) {
      out.restore.push(path)
      out.written[path] = change.before.blob
    } else {
      out.remove.push(path)
      out.written[path] = null
    }
  }
  return out
}
