import type { InstructionReader } from '../../tools/instruction-file.js'
import { findImports, MAX_IMPORT_DEPTH, resolveImport } from './instruction-imports.js'

/**
 * Instruction files and the files their `@path` imports name, read through the read boundary
 * (tools/instruction-file.ts): each file once (by real path), imports after the file that names them,
 * depth first, at most MAX_IMPORT_DEPTH hops, a cycle refused. What is left out says why.
 */

export interface InstructionRoot {
  /** Absolute path. */
  path: string
  /** As shown: `CLAUDE.md`, `~/.claude/CLAUDE.md`, `src/api/CLAUDE.md`. */
  label: string
  /** Whose file it is: the reader its imports are read with too. */
  read: InstructionReader
  /** Whether its `@path` imports are followed (CLAUDE.md files, when Claude Code's places are read). */
  imports: boolean
}

export interface InstructionSection {
  root: InstructionRoot
  path: string
  label: string
  text: string
  /** The file whose import brought it in. */
  importedBy?: string
  /** Cut at the per-file limit. */
  truncated: boolean
}

export type SkipReason = 'missing' | 'refused' | 'cycle' | 'depth' | 'duplicate' | 'budget'

export interface InstructionSkip {
  label: string
  reason: SkipReason
  why: string
  importedBy?: string
}

export interface LoadedInstructions {
  sections: InstructionSection[]
  skipped: InstructionSkip[]
}

export interface LoadOptions {
  home: string
  /** Shows an absolute path (`~/…`, workspace-relative). */
  label(path: string): string
  /** Real paths already in the prompt (or announced): not read again. Updated as files are read. */
  seen?: Set<string>
  /** A file's text beyond this is cut (default 40,000 characters). */
  maxChars?: number
  /** All the files together stop here: what comes later is left out (default 160,000 characters). */
  budgetChars?: number
}

const MAX_CHARS = 40_000
const BUDGET_CHARS = 160_000

export async function loadInstructions(
  roots: readonly InstructionRoot[],
  opts: LoadOptions,
): Promise<LoadedInstructions> {
  const seen = opts.seen ?? new Set<string>()
  const maxChars = opts.maxChars ?? MAX_CHARS
  let budget = opts.budgetChars ?? BUDGET_CHARS
  const sections: InstructionSection[] = []
  const skipped: InstructionSkip[] = []

  const visit = async (
    root: InstructionRoot,
    path: string,
    label: string,
    chain: readonly string[],
    importedBy?: string,
  ): Promise<void> => {
    const by = importedBy ? { importedBy } : {}
    const file = await root.read.file(path)
    if (file.kind === 'missing') {
      skipped.push({ label, reason: 'missing', why: 'no such file', ...by })
      return
    }
    if (file.kind === 'refused') {
      skipped.push({ label, reason: 'refused', why: file.reason, ...by })
      return
    }
    if (chain.includes(file.real)) {
      const names = [...chain.map((p) => opts.label(p)), opts.label(file.real)]
      skipped.push({ label, reason: 'cycle', why: `an import cycle (${names.join(' → ')})`, ...by })
      return
    }
    if (seen.has(file.real)) {
      skipped.push({ label, reason: 'duplicate', why: 'already in the instructions', ...by })
      return
    }
    const text = file.text.trim()
    if (text.length > budget) {
      skipped.push({
        label,
        reason: 'budget',
        why: `the instructions already hold ${(opts.budgetChars ?? BUDGET_CHARS).toLocaleString('en-US')} characters`,
        ...by,
      })
      return
    }
    seen.add(file.real)
    const kept = text.slice(0, maxChars)
    budget -= kept.length
    if (kept) sections.push({ root, path, label, text: kept, truncated: text.length > maxChars, ...by })
    if (!root.imports) return
    const imports = findImports(text)
    if (imports.length === 0) return
    if (chain.length >= MAX_IMPORT_DEPTH) {
      for (const name of imports)
        skipped.push({
          label: opts.label(resolveImport(name, path, opts.home)),
          reason: 'depth',
          why: `imports stop ${MAX_IMPORT_DEPTH} files deep`,
          importedBy: label,
        })
      return
    }
    for (const name of imports) {
      const target = resolveImport(name, path, opts.home)
      await visit(root, target, opts.label(target), [...chain, file.real], label)
    }
  }

  for (const root of roots) await visit(root, root.path, root.label, [])
  return { sections, skipped }
}

/** `CLAUDE.md imports @x.md, left out: why` — the start-up notice for an import that was not read. */
export function skipNotice(skip: InstructionSkip): string {
  const what = skip.importedBy ? `${skip.importedBy} imports ${skip.label}, which` : skip.label
  return `${what} was left out: ${skip.why}`
}
