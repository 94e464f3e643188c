import { createHash } from 'node:crypto'
import { stat, utimes } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { atomicWriteFile } from './atomic-write.js'
import { isInside } from './paths.js'
import type { OutputSpiller } from './types.js'

/**
 * Creates the spiller for one session's outputs dir. Files are content-addressed
 * (`<hint>-<sha256 prefix>.txt`), so spilling the same text twice reuses one file; a reuse refreshes
 * the mtime, which the TTL cleanup reads as "last used". The dir is created on the first spill.
 */
export function createOutputSpiller(dir: string): OutputSpiller {
  const root = resolve(dir)
  return {
    dir: root,
    async spill(text, hint) {
      const hash = createHash('sha256').update(text).digest('hex').slice(0, 16)
      const slug =
        hint
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-+|-+$/g, '')
          .slice(0, 32) || 'output'
      const path = join(root, `${slug}-${hash}.txt`)
      const existing = await stat(path).catch(() => undefined)
      if (existing?.isFile()) {
        const now = new Date()
        await utimes(path, now, now)
      } else {
        await atomicWriteFile(path, text, { mode: 0o600 })
      }
      return path
    },
    isSpillPath: (absPath) => absPath !== root && isInside(root, absPath),
  }
}

export interface BoundedOutput {
  text: string
  /** Where the full text was stored; absent when it fit inline or could not be saved. */
  spilledPath?: string
  truncated: boolean
}

/**
 * Keeps `text` inline when it fits in `limit` chars; otherwise spills the full text and returns the
 * head and tail around a marker naming the spill file, so the model can restore the middle with Read.
 * A failed spill still bounds the output and says the full text could not be saved.
 */
export async function boundOutput(
  text: string,
  opts: { limit?: number; spiller: OutputSpiller; hint: string },
): Promise<BoundedOutput> {
  const limit = opts.limit ?? 30_000
  if (text.length <= limit) return { text, truncated: false }
  let spilledPath: string | undefined
  let where: string
  try {
    spilledPath = await opts.spiller.spill(text, opts.hint)
    where = `full output: ${spilledPath} (Read it with offset/limit)`
  } catch (error) {
    where = `the full output could not be saved (${error instanceof Error ? error.message : String(error)})`
  }
  const headLen = Math.floor(limit * 0.4)
  const head = cutAtLineEnd(text.slice(0, headLen))
  const tail = cutAtLineStart(text.slice(text.length - (limit - headLen)))
  const omitted = text.length - head.length - tail.length
  const marker = `\n… ${omitted} chars omitted; ${where} …\n`
  return { text: head + marker + tail, truncated: true, ...(spilledPath ? { spilledPath } : {}) }
}

/** Drops a trailing partial line when a line break is near the end, so the head ends cleanly. */
function cutAtLineEnd(head: string): string {
  const nl = head.lastIndexOf('\n')
  return nl >= head.length * 0.8 ? head.slice(0, nl) : head
}

function cutAtLineStart(tail: string): string {
  const nl = tail.indexOf('\n')
  return nl >= 0 && nl <= tail.length * 0.2 ? tail.slice(nl + 1) : tail
}
