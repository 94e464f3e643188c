import { lstat } from 'node:fs/promises'
import { extname, join, sep } from 'node:path'
import { type Boundary, isInside, SECRET_SEARCH_GLOBS, secretName } from '../permissions/protected-paths.js'
import { BASE_RG_ARGS, runRipgrep } from '../tools/ripgrep.js'
import type { HostPrograms } from '../util/host-programs.js'

/**
 * The files CodeSearch may index: what `rg --files` lists (so .gitignore and .ignore apply, `.git/` never),
 * less what a Read of the file would not see unasked — secrets files and stores (as Grep leaves them out),
 * files a deny rule keeps Read from — less agent-tui's own settings and state dirs, symbolic links (their target may lie outside the workspace),
 * binaries by name and files over the size caps. The content is sniffed again when it is read.
 */

export type FileKind = 'text' | 'image'

export interface ListedFile {
  mtimeMs: number
  size: number
  kind: FileKind
  /** The file the listing saw: the read must open this very one (not a link swapped in since). */
  dev: number
  ino: number
}

export interface ListOptions {
  /** The workspace as the session names it; paths in the index are relative to it, with `/`. */
  workspace: string
  /** The read boundary, for secretName. */
  boundary: Boundary
  /** The deny rule that keeps Read from a path, if any (the gate's deniedRead for Read). */
  deniedRead?: (abs: string) => string | undefined
  /** Whether images are listed (the embedding model takes them). */
  images: boolean
  /** Whether an SVG counts as an image when images are listed (default true). */
  svgImages?: boolean
  programs?: HostPrograms
  signal: AbortSignal
}

/** Text past this is not indexed (generated bundles, data dumps). */
export const MAX_TEXT_BYTES = 512 * 1024
/** An image past this is not sent. */
export const MAX_IMAGE_BYTES = 4 * 1024 * 1024

export const IMAGE_EXTENSIONS: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.svg': 'image/svg+xml',
}

/** Files never worth reading as text: archives, media, fonts, compiled code, databases, lockfiles. */
const SKIPPED = new Set(
  (
    '.png .jpg .jpeg .gif .webp .bmp .ico .tif .tiff .psd .pdf .zip .gz .tgz .bz2 .xz .zst .7z .rar .tar ' +
    '.jar .war .class .o .a .so .dylib .dll .exe .bin .wasm .node .pyc .mp3 .mp4 .mov .avi .wav .ogg .flac ' +
    '.woff .woff2 .ttf .otf .eot .sqlite .db .lock .map .min.js'
  ).split(' '),
)

/** `svgImages: false`: an endpoint that takes raster images only (Voyage's): an SVG is indexed as text. */
export function kindOf(path: string, images: boolean, svgImages = true): FileKind | undefined {
  const ext = extname(path).toLowerCase()
  if (images && IMAGE_EXTENSIONS[ext] && (svgImages || ext !== '.svg')) return 'image'
  if (ext === '.svg') return 'text'
  if (SKIPPED.has(ext) || path.endsWith('.min.js') || path.endsWith('-lock.json')) return undefined
  return 'text'
}

export async function listIndexable(opts: ListOptions): Promise<Map<string, ListedFile>> {
  const rel: string[] = []
  const args = [...BASE_RG_ARGS, '--files', '--null']
  // Last, so nothing re-includes them (a later glob wins in ripgrep).
  for (const glob of SECRET_SEARCH_GLOBS) args.push('--iglob', `!${glob}`)
  await runRipgrep(args, {
    cwd: opts.workspace,
    signal: opts.signal,
    separator: '\0',
    ...(opts.programs ? { programs: opts.programs } : {}),
    onRecord(record) {
      if (record !== '') rel.push(record.startsWith(`.${sep}`) ? record.slice(2) : record)
      return undefined
    },
  })
  const out = new Map<string, ListedFile>()
  for (const path of rel) {
    if (opts.signal.aborted) break
    const kind = kindOf(path, opts.images, opts.svgImages)
    if (kind === undefined) continue
    const abs = join(opts.workspace, path)
    if (secretName(abs, opts.boundary) !== undefined || opts.deniedRead?.(abs) !== undefined) continue
    // agent-tui's own settings and state (a session started in the home folder): never its own index.
    if (
      opts.boundary.appDirs?.some(
        (dir) => isInside(abs, dir) || isInside(join(opts.boundary.workspace, path), dir),
      )
    )
      continue
    const listed = await statListed(abs, kind)
    if (listed) out.set(path.split(sep).join('/'), listed)
  }
  return out
}

/**
 * A file as the listing records it, or undefined when it is gone, a link or anything but a regular file,
 * empty or over its size cap. Also how a file the session wrote is looked at again (its kind and rules
 * judged when it was listed).
 */
export async function statListed(abs: string, kind: FileKind): Promise<ListedFile | undefined> {
  const st = await lstat(abs).catch(() => undefined)
  if (!st?.isFile()) return undefined
  if (st.size === 0 || st.size > (kind === 'image' ? MAX_IMAGE_BYTES : MAX_TEXT_BYTES)) return undefined
  return { mtimeMs: st.mtimeMs, size: st.size, kind, dev: st.dev, ino: st.ino }
}
