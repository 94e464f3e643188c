import { lstat, readFile, stat } from 'node:fs/promises'
import { z } from 'zod'
import { realPathOf, realPathOfTarget } from '../permissions/real-path.js'
import type { PathTarget, PermissionTarget } from '../permissions/target.js'
import type { FileChange } from '../store/domain.js'
import { PathMovedError } from './atomic-write.js'
import type { FileOp } from './file-transaction.js'
import { MATCHER_NOTES } from './edit-plan.js'
import { displayPath, resolveToolPath } from './paths.js'
import type { PatchSection } from './patch/parse.js'
import type { DiskText, PatchDisk, PatchPlan } from './patch/plan.js'
import { decodeText, encodeText } from './text-file.js'
import { defineTool, type ToolContext, ToolError, type ToolSuccess } from './types.js'
import { checkReadFirst, fsError, movedError } from './write-guard.js'

const DESCRIPTION = `Edits files with a patch: adds, deletes, updates and renames files, all of them or none.
The patch is plain text in this envelope:

*** Begin Patch
[one or more file sections]
*** End Patch

Each file section starts with one of these headers:
*** Add File: <path> — a new file; every line after it is a line of the file, prefixed with +
*** Delete File: <path> — removes the file; nothing follows
*** Update File: <path> — changes the file in place; it may be followed by *** Move to: <new path> to rename it

An Update File section holds one or more hunks. A hunk starts with @@, optionally followed by a line of the file that locates it (the class or function it is in). Then come its lines, each prefixed with one character: a space for an unchanged line, - for a removed line, + for an added line.
- Show 3 unchanged lines above and below each change; do not repeat lines a previous hunk already showed.
- When 3 lines of context are not unique in the file, name the enclosing class or function after @@ (e.g. "@@ class Parser"); several @@ lines in a row narrow it down further ("@@ class Parser" then "@@ def parse(self):").
- Hunks apply in file order. "*** End of File" after a hunk's lines says they end the file.
- Paths are relative to the current directory. Files you update or delete must have been read in this session and be unchanged since.

Example:
*** Begin Patch
*** Add File: docs/hello.txt
+Hello, world
*** Update File: src/app.py
*** Move to: src/main.py
@@ def greet():
-    print("Hi")
+    print("Hello, world!")
*** Delete File: obsolete.txt
*** End Patch`

const schema = z.strictObject({
  input: z.string().min(1).describe('The entire patch, from *** Begin Patch to *** End Patch'),
})

export type ApplyPatchArgs = z.infer<typeof schema>

/** The parser, the planner and the commit, loaded the first time a patch is seen (off the start-up path). */
async function machinery() {
  const [parse, plan, transaction] = await Promise.all([
    import('./patch/parse.js'),
    import('./patch/plan.js'),
    import('./file-transaction.js'),
  ])
  return { ...parse, ...plan, ...transaction }
}

/** The patch's sections, or the ToolError the model reads for a patch that does not parse. */
async function sectionsOf(input: string): Promise<PatchSection[]> {
  const { parsePatch, PatchSyntaxError } = await import('./patch/parse.js')
  try {
    return parsePatch(input)
  } catch (error) {
    if (!(error instanceof PatchSyntaxError)) throw error
    throw new ToolError('validation', `The patch is not valid: ${error.message}. Nothing was changed.`, {
      hint: 'Write the patch in the apply_patch format: *** Begin Patch, then *** Add File / *** Delete File / *** Update File sections with @@ hunks, then *** End Patch.',
    })
  }
}

/**
 * The files a patch touches, as the permission check judges them: a file written (added, updated, a
 * move's destination) through its links as Write judges it; a file deleted or moved away by its own name.
 */
function targetsOf(sections: readonly PatchSection[], ctx: Pick<ToolContext, 'cwd'>): PathTarget[] {
  const targets = new Map<string, PathTarget>()
  const add = (path: string, remove: boolean) => {
    const abs = resolveToolPath(path, ctx.cwd())
    const key = `${remove ? 'd' : 'w'}:${abs}`
    if (!targets.has(key))
      targets.set(key, { kind: 'path', path: abs, access: 'write', ...(remove ? { noFollow: true } : {}) })
  }
  for (const section of sections) {
    if (section.kind === 'delete') add(section.path, true)
    else if (section.kind === 'add') add(section.path, false)
    else if (section.moveTo !== undefined && section.moveTo !== section.path) {
      add(section.path, true)
      add(section.moveTo, false)
    } else add(section.path, false)
  }
  return [...targets.values()]
}

/** The judged real path of `abs` for a write (`remove`: for its removal), when the check judged it. */
function judged(permission: PermissionTarget | undefined, abs: string, remove: boolean): string | undefined {
  if (permission?.kind !== 'paths') return undefined
  return permission.paths.find((p) => p.path === abs && (p.noFollow === true) === remove)?.real
}

/**
 * The disk as a patch sees it. `strict` (the real run): a file to change must be the one the permission
 * check judged, read in this session and unchanged since. The preview only reads.
 */
function patchDisk(ctx: ToolContext, strict: boolean, reals: Map<string, string>): PatchDisk {
  return {
    resolve: (path) => resolveToolPath(path, ctx.cwd()),
    shown: (abs) => displayPath(abs, ctx.workspace),
    async load(abs, purpose): Promise<DiskText> {
      const shown = displayPath(abs, ctx.workspace)
      const remove = purpose === 'delete'
      const link = await lstat(abs).catch(() => undefined)
      if (remove && link?.isSymbolicLink()) {
        throw new ToolError(
          'validation',
          `${shown} is a symbolic link; apply_patch changes files, not links. Nothing was changed.`,
          {
            hint: 'Remove the link itself with DeleteFile.',
          },
        )
      }
      const real = remove ? await realPathOfTarget({ path: abs, noFollow: true }) : await realPathOf(abs)
      const expected = judged(ctx.permission, abs, remove)
      if (strict && expected !== undefined && expected !== real) throw movedError(shown, expected, real)
      reals.set(`${remove ? 'd' : 'w'}:${abs}`, real)
      const found = await stat(real).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined
        throw fsError(error, shown)
      })
      if (!found) return { kind: 'missing' }
      if (found.isDirectory()) {
        throw new ToolError('validation', `${shown} is a directory, not a file. Nothing was changed.`)
      }
      if (!found.isFile())
        throw new ToolError('validation', `${shown} is not a regular file. Nothing was changed.`)
      const decoded = decodeText(
        await readFile(real).catch((error: NodeJS.ErrnoException) => {
          throw fsError(error, shown)
        }),
      )
      if (decoded.kind === 'binary') {
        throw new ToolError(
          'validation',
          `${shown} is a binary file (${decoded.type}); apply_patch only changes text files. Nothing was changed.`,
          remove ? { hint: 'Remove it with DeleteFile.' } : {},
        )
      }
      if (strict) checkReadFirst(real, found, shown, ctx)
      return { kind: 'text', text: decoded.text, format: decoded.format }
    },
  }
}

/** When a patch cannot be planned, the preview still shows what it asks for: each section's own lines. */
function rawPreview(sections: readonly PatchSection[], ctx: ToolContext): FileChange[] {
  return sections.map((section) => {
    const path = displayPath(resolveToolPath(section.path, ctx.cwd()), ctx.workspace)
    if (section.kind === 'add') {
      const lines = section.contents.split('\n').slice(0, -1)
      return {
        path,
        change: 'created',
        diff: lines.map((l) => `+${l}`).join('\n'),
        added: lines.length,
        removed: 0,
      }
    }
    if (section.kind === 'delete') return { path, change: 'deleted', diff: '', added: 0, removed: 0 }
    const diff = section.chunks
      .flatMap((c) => [
        ...c.anchors.map((a) => `@@ ${a}`),
        ...c.oldLines.map((l) => `-${l}`),
        ...c.newLines.map((l) => `+${l}`),
      ])
      .join('\n')
    const change: FileChange = { path, change: 'updated', diff, added: 0, removed: 0 }
    return section.moveTo === undefined ? change : { ...change, movedFrom: path, path: section.moveTo }
  })
}

/** A failed commit as the model reads it: which file, why, and that nothing changed (or what did not come back). */
function commitFailure(
  m: Awaited<ReturnType<typeof machinery>>,
  error: unknown,
  ops: readonly FileOp[],
  lexical: ReadonlyArray<{ abs: string }>,
  ctx: ToolContext,
): ToolError {
  if (!(error instanceof m.CommitError)) throw error
  const abs = lexical[ops.indexOf(error.op)]?.abs ?? error.op.path
  const shown = displayPath(abs, ctx.workspace)
  const cause = error.cause
  if (cause instanceof m.RollbackError) {
    return new ToolError(
      'filesystem',
      `${shown}: ${cause.message}. The patch was only partly undone; check those files before going on.`,
    )
  }
  const failed = fsError(cause as NodeJS.ErrnoException, shown)
  return new ToolError(
    failed.category,
    `${failed.message} The patch was not applied: every file is as it was.`,
    {
      ...(failed.hint ? { hint: failed.hint } : {}),
    },
  )
}

/** Two sections naming one file by different paths (a link and its target) would race: refused. */
function refuseAliases(ops: readonly FileOp[], names: readonly string[], ctx: ToolContext): void {
  const seen = new Map<string, number>()
  ops.forEach((op, i) => {
    const earlier = seen.get(op.path)
    if (earlier === undefined) {
      seen.set(op.path, i)
      return
    }
    const [a, b] = [names[earlier], names[i]].map((n) => displayPath(n ?? op.path, ctx.workspace))
    throw new ToolError(
      'validation',
      `${a} and ${b} are the same file (${displayPath(op.path, ctx.workspace)}), so the patch would change it twice. Nothing was changed.`,
      { hint: 'Name each file once, by one path.' },
    )
  })
}

function summaryLines(plan: PatchPlan): string[] {
  return plan.files.map((f) => {
    const counts = f.change === 'deleted' ? '' : ` (+${f.added} −${f.removed})`
    if (f.movedFrom !== undefined) return `R ${f.movedFrom} → ${f.path}${counts}`
    return `${f.change === 'created' ? 'A' : f.change === 'deleted' ? 'D' : 'M'} ${f.path}${counts}`
  })
}

/** The apply_patch tool (Codex's format): several files changed in one call, all of them or none. */
export const applyPatchTool = defineTool<ApplyPatchArgs>({
  name: 'apply_patch',
  description: DESCRIPTION,
  schema,
  risk: 'edit',
  isReadOnly: () => false,
  permissionTarget: async (args, ctx) => ({
    kind: 'paths',
    paths: targetsOf(await sectionsOf(args.input), ctx),
  }),
  async preview(args, ctx) {
    const sections = await sectionsOf(args.input)
    const { planPatch } = await machinery()
    const plan = await planPatch(sections, patchDisk(ctx, false, new Map())).catch(() => undefined)
    return { kind: 'diffs', files: plan?.files ?? rawPreview(sections, ctx) }
  },
  summarize(args) {
    const paths = [...args.input.matchAll(/^\s*\*\*\* (?:Add|Delete|Update) File: (.+)$/gm)].map((m) =>
      (m[1] ?? '').trim(),
    )
    if (paths.length === 0) return 'apply_patch'
    const shown = paths.slice(0, 3).join(', ')
    return `apply_patch ${shown}${paths.length > 3 ? ` and ${paths.length - 3} more` : ''}`
  },
  async execute(args, ctx): Promise<ToolSuccess> {
    const sections = await sectionsOf(args.input)
    const m = await machinery()
    const reals = new Map<string, string>()
    const plan = await m.planPatch(sections, patchDisk(ctx, true, reals))
    const realOf = (abs: string, remove: boolean) => reals.get(`${remove ? 'd' : 'w'}:${abs}`) ?? abs
    const notes: string[] = []
    const ops: FileOp[] = plan.writes.map((w) => {
      const encoded = encodeText(w.text, w.format)
      if (encoded.note) notes.push(`${displayPath(w.abs, ctx.workspace)}: ${encoded.note}`)
      return { kind: 'write', path: realOf(w.abs, false), data: encoded.data }
    })
    for (const abs of plan.deletes) {
      // A move's source was read through its links; what goes is its own name, as judged for removal.
      if (!reals.has(`d:${abs}`)) {
        const real = await realPathOfTarget({ path: abs, noFollow: true })
        const expected = judged(ctx.permission, abs, true)
        if (expected !== undefined && expected !== real)
          throw movedError(displayPath(abs, ctx.workspace), expected, real)
        reals.set(`d:${abs}`, real)
      }
      ops.push({ kind: 'delete', path: realOf(abs, true) })
    }
    refuseAliases(ops, [...plan.writes.map((w) => w.abs), ...plan.deletes], ctx)
    const lexical = [
      ...plan.writes.map((w) => ({ abs: w.abs, remove: false })),
      ...plan.deletes.map((abs) => ({ abs, remove: true })),
    ]
    const stats = await m
      .commitFiles(ops, {
        // Right before each rename: the path still leads where it was judged (no link swapped in since).
        async before(op, index) {
          const { abs, remove } = lexical[index] ?? { abs: op.path, remove: false }
          const now = await realPathOfTarget(remove ? { path: abs, noFollow: true } : { path: abs })
          if (now !== op.path) throw new PathMovedError(abs, op.path, now)
        },
      })
      .catch((error: unknown) => {
        throw commitFailure(m, error, ops, lexical, ctx)
      })
    plan.writes.forEach((w, i) => {
      const st = stats[i]
      if (st) ctx.files.recordWrite(realOf(w.abs, false), st)
    })
    for (const t of plan.tolerant) {
      notes.push(`${t.file} hunk ${t.hunk}: ${MATCHER_NOTES[t.matcher].replace('old_string', 'its lines')}`)
    }
    const count = plan.files.length
    const head = `Applied the patch: ${count === 1 ? '1 file' : `${count} files`} changed.`
    return {
      forModel: [head, ...summaryLines(plan), ...notes].join('\n'),
      display: { kind: 'diffs', files: plan.files },
    }
  },
})
