/**
 * The apply_patch format (Codex's), parsed into what each file section asks for. Pure. The grammar:
 *
 *   *** Begin Patch
 *   *** Add File: <path>          then its lines, each prefixed with "+"
 *   *** Delete File: <path>
 *   *** Update File: <path>
 *   *** Move to: <new path>        (optional, right after Update File)
 *   @@ <a line that locates the hunk>   (several in a row narrow it down; a bare "@@" names none)
 *    context / -removed / +added lines
 *   *** End of File                (optional: the hunk's lines end the file)
 *   *** End Patch
 *
 * Leniencies models rely on, as Codex has them: markers padded with whitespace, a first hunk without "@@",
 * blank lines between hunks, a patch wrapped in a shell heredoc (`<<'EOF'` … `EOF`). Beyond Codex: several
 * "@@" lines in a row each narrow the search (the format's own instructions ask models to write them).
 */

export interface PatchChunk {
  /** The `@@` lines' text, each sought after the one before (empty for a bare `@@` or none). */
  anchors: string[]
  /** The lines the hunk expects (context and removed lines). */
  oldLines: string[]
  /** What they become (context and added lines). */
  newLines: string[]
  /** `*** End of File`: the old lines end the file. */
  endOfFile: boolean
  /** 1-based line of the patch where the hunk starts, for messages. */
  line: number
}

export type PatchSection =
  | { kind: 'add'; path: string; contents: string; line: number }
  | { kind: 'delete'; path: string; line: number }
  | { kind: 'update'; path: string; moveTo?: string; chunks: PatchChunk[]; line: number }

/** The patch does not follow the format; `line` is the patch's line (1-based) when one is to blame. */
export class PatchSyntaxError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(line === undefined ? message : `line ${line}: ${message}`)
    this.name = 'PatchSyntaxError'
  }
}

const BEGIN = '*** Begin Patch'
const END = '*** End Patch'
const ADD = '*** Add File: '
const DELETE = '*** Delete File: '
const UPDATE = '*** Update File: '
const MOVE = '*** Move to: '
const END_OF_FILE = '*** End of File'
const HEREDOC_START = new Set(['<<EOF', "<<'EOF'", '<<"EOF"'])

/** Parses a whole patch; throws PatchSyntaxError naming the line at fault. */
export function parsePatch(input: string): PatchSection[] {
  const { body, firstLine } = patchBody(input.trim().split(/\r?\n/))
  const sections: PatchSection[] = []
  let i = 0
  while (i < body.length) {
    const at = firstLine + i
    const head = (body[i] ?? '').trim()
    if (head === '') {
      i++
      continue
    }
    if (head.startsWith(ADD)) {
      const path = pathAfter(head, ADD, at)
      let contents = ''
      i++
      while (i < body.length && (body[i] ?? '').startsWith('+')) {
        contents += `${(body[i] ?? '').slice(1)}\n`
        i++
      }
      sections.push({ kind: 'add', path, contents, line: at })
      continue
    }
    if (head.startsWith(DELETE)) {
      sections.push({ kind: 'delete', path: pathAfter(head, DELETE, at), line: at })
      i++
      continue
    }
    if (head.startsWith(UPDATE)) {
      const path = pathAfter(head, UPDATE, at)
      i++
      let moveTo: string | undefined
      const next = (body[i] ?? '').trim()
      if (next.startsWith(MOVE)) {
        moveTo = pathAfter(next, MOVE, firstLine + i)
        i++
      }
      const chunks: PatchChunk[] = []
      while (i < body.length) {
        const line = body[i] ?? ''
        if (line.trim() === '') {
          i++
          continue
        }
        // The next section (or a stray marker): this one's hunks are done.
        if (line.startsWith('*')) break
        const parsed = parseChunk(body, i, firstLine, chunks.length === 0)
        chunks.push(parsed.chunk)
        i = parsed.next
      }
      if (chunks.length === 0)
        throw new PatchSyntaxError(`the Update File section for ${path} has no hunks`, at)
      sections.push({ kind: 'update', path, ...(moveTo !== undefined ? { moveTo } : {}), chunks, line: at })
      continue
    }
    throw new PatchSyntaxError(
      `'${head}' is not a valid section header; a section starts with '*** Add File: <path>', '*** Delete File: <path>' or '*** Update File: <path>'`,
      at,
    )
  }
  return sections
}

/** The lines between the markers (a heredoc around them is taken off), and the patch line of the first. */
function patchBody(lines: string[]): { body: string[]; firstLine: number } {
  const first = (lines[0] ?? '').trim()
  const last = (lines.at(-1) ?? '').trim()
  if (first === BEGIN && last === END && lines.length >= 2) return { body: lines.slice(1, -1), firstLine: 2 }
  if (HEREDOC_START.has(first) && last.endsWith('EOF') && lines.length >= 4) {
    const inner = patchBody(lines.slice(1, -1))
    return { body: inner.body, firstLine: inner.firstLine + 1 }
  }
  if (first !== BEGIN) {
    throw new PatchSyntaxError(
      `the first line of the patch must be '${BEGIN}'${first.startsWith('---') || first.startsWith('diff ') ? ' (this looks like a unified diff; apply_patch takes its own format)' : ''}`,
    )
  }
  throw new PatchSyntaxError(`the last line of the patch must be '${END}'`)
}

function pathAfter(line: string, marker: string, at: number): string {
  const path = line.slice(marker.length).trim()
  if (path === '') throw new PatchSyntaxError(`'${marker.trim()}' needs a path`, at)
  return path
}

/** One hunk from line `start` of `body`: its `@@` lines, then context, removed and added lines. */
function parseChunk(
  body: readonly string[],
  start: number,
  firstLine: number,
  first: boolean,
): { chunk: PatchChunk; next: number } {
  const at = firstLine + start
  const anchors: string[] = []
  let i = start
  for (; i < body.length; i++) {
    const line = body[i] ?? ''
    if (line.trim() === '@@') continue
    if (line.startsWith('@@ ')) {
      anchors.push(line.slice(3))
      continue
    }
    break
  }
  if (i === start && !first) {
    throw new PatchSyntaxError(`a hunk must start with an '@@' line, got '${body[i] ?? ''}'`, at)
  }
  const chunk: PatchChunk = { anchors, oldLines: [], newLines: [], endOfFile: false, line: at }
  let taken = 0
  // Empty lines at the very end separate it from what follows; they are not context to match.
  let trailingEmpty = 0
  for (; i < body.length; i++) {
    const line = body[i] ?? ''
    if (line === END_OF_FILE) {
      if (taken === 0) throw new PatchSyntaxError('the hunk has no lines', firstLine + i)
      chunk.endOfFile = true
      i++
      break
    }
    const mark = line[0]
    trailingEmpty = mark === undefined ? trailingEmpty + 1 : 0
    if (mark === undefined) {
      // An empty line is an empty context line (editors strip the space in front).
      chunk.oldLines.push('')
      chunk.newLines.push('')
    } else if (mark === ' ') {
      chunk.oldLines.push(line.slice(1))
      chunk.newLines.push(line.slice(1))
    } else if (mark === '-') {
      chunk.oldLines.push(line.slice(1))
    } else if (mark === '+') {
      chunk.newLines.push(line.slice(1))
    } else {
      if (taken === 0 && line.startsWith('***')) throw new PatchSyntaxError('the hunk has no lines', at)
      if (taken === 0) {
        throw new PatchSyntaxError(
          `unexpected line in a hunk: '${line}'; every line of a hunk starts with ' ' (context), '-' (removed) or '+' (added)`,
          firstLine + i,
        )
      }
      // The next hunk (`@@`) or section (`***`).
      break
    }
    taken++
  }
  if (taken === 0) throw new PatchSyntaxError('the hunk has no lines', at)
  if (!chunk.endOfFile && trailingEmpty > 0 && trailingEmpty < taken) {
    chunk.oldLines.length -= trailingEmpty
    chunk.newLines.length -= trailingEmpty
  }
  return { chunk, next: i }
}
