import { spawn } from 'node:child_process'

/**
 * Ctrl+V's image from the clipboard (docs/tui.md#images): which program reads it on this platform and
 * display, what its type list and output mean (pure, table-tested), and running it with a size limit and
 * a timeout that kills it. Loaded on the first Ctrl+V only. Programs are found outside the workspace like
 * every program agent-tui runs itself (`util/host-programs.ts`), so a repository cannot plant one.
 */

/** As `agent/turn/images.ts`: what one image in a message may weigh. */
export const MAX_CLIPBOARD_IMAGE_BYTES = 20 * 1024 * 1024
const TIMEOUT_MS = 5000
/** What wl-paste and xclip say when the clipboard holds nothing at all. */
const EMPTY_CLIPBOARD = /nothing is copied|no selection|not available|no suitable type/i

/** Image types read, best first: PNG is what screenshots put on every clipboard. */
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const

export type ReaderKind = 'wayland' | 'x11' | 'macos' | 'wsl'

export interface ClipboardReader {
  kind: ReaderKind
  /** Programs to try, best first (`pngpaste` before `osascript`, `wl-paste` before `xclip` under XWayland). */
  programs: readonly string[]
}

/** Which clipboard this session can read, or why none (said as the notice). */
export function clipboardReaders(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
): { readers: ClipboardReader[] } | { none: string } {
  if (platform === 'darwin') return { readers: [{ kind: 'macos', programs: ['pngpaste', 'osascript'] }] }
  if (platform === 'win32')
    return { none: 'reading images from the Windows clipboard needs WSL or a terminal that pastes them' }
  const readers: ClipboardReader[] = []
  if (env.WSL_DISTRO_NAME || env.WSL_INTEROP) readers.push({ kind: 'wsl', programs: ['powershell.exe'] })
  if (env.WAYLAND_DISPLAY) readers.push({ kind: 'wayland', programs: ['wl-paste'] })
  if (env.DISPLAY) readers.push({ kind: 'x11', programs: ['xclip'] })
  if (readers.length === 0)
    return {
      none: 'no clipboard to read here (no WAYLAND_DISPLAY or DISPLAY, e.g. over SSH): save the image to a file and paste its path',
    }
  return { readers }
}

/** What to install when no reader's program is there. */
export function missingProgramNotice(readers: readonly ClipboardReader[]): string {
  const kinds = new Set(readers.map((r) => r.kind))
  if (kinds.has('wayland'))
    return 'Ctrl+V reads images with wl-paste: install wl-clipboard (or xclip under XWayland)'
  if (kinds.has('x11')) return 'Ctrl+V reads images with xclip: install xclip'
  if (kinds.has('wsl'))
    return 'Ctrl+V reads images with powershell.exe, which is not on the PATH (WSL interop off?)'
  return 'Ctrl+V found no program to read the clipboard (pngpaste or osascript)'
}

/** The best image type in a type list (`wl-paste --list-types`, xclip's TARGETS), or undefined. */
export function imageTypeOf(listing: string): string | undefined {
  const types = new Set(listing.split(/\r?\n/).map((t) => t.trim().toLowerCase()))
  return IMAGE_TYPES.find((t) => types.has(t))
}

/** The steps of one reader: a type listing first where the program has one, then the read. */
export function readerSteps(
  kind: ReaderKind,
  program: string,
  type = 'image/png',
): { list?: readonly string[]; read: readonly string[]; decode: 'raw' | 'hex' | 'base64' } {
  switch (kind) {
    case 'wayland':
      return { list: ['--list-types'], read: ['--no-newline', '--type', type], decode: 'raw' }
    case 'x11':
      return {
        list: ['-selection', 'clipboard', '-t', 'TARGETS', '-o'],
        read: ['-selection', 'clipboard', '-t', type, '-o'],
        decode: 'raw',
      }
    case 'macos':
      return program === 'pngpaste'
        ? { read: ['-'], decode: 'raw' }
        : { read: ['-e', 'the clipboard as \u00abclass PNGf\u00bb'], decode: 'hex' }
    case 'wsl':
      return { read: ['-NoProfile', '-NonInteractive', '-Command', WSL_SCRIPT], decode: 'base64' }
  }
}

/** Windows PowerShell: the clipboard's image as PNG, base64 on stdout (binary would not survive the console); nothing when there is none. */
const WSL_SCRIPT = [
  'Add-Type -AssemblyName System.Drawing',
  '$i = Get-Clipboard -Format Image',
  'if ($i) { $m = New-Object System.IO.MemoryStream; $i.Save($m, [System.Drawing.Imaging.ImageFormat]::Png); [Convert]::ToBase64String($m.ToArray()) }',
].join('; ')

/** osascript prints `«data PNGf89504E47…»`; anything else (text on the clipboard: an error) is no image. */
export function decodeOutput(output: Buffer, decode: 'raw' | 'hex' | 'base64'): Buffer {
  if (decode === 'raw') return output
  const text = output.toString('latin1').trim()
  if (decode === 'base64')
    return /^[A-Za-z0-9+/=\s]+$/.test(text) ? Buffer.from(text, 'base64') : Buffer.alloc(0)
  const hex = /^\u00abdata [A-Za-z]{4}([0-9A-Fa-f]*)\u00bb$/.exec(text)?.[1]
  return hex ? Buffer.from(hex, 'hex') : Buffer.alloc(0)
}

/** PNG, JPEG, GIF or WebP by magic bytes (the type a program claims is not trusted). */
export function sniffImage(bytes: Buffer): string | undefined {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png'
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg'
  if (bytes.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif'
  if (
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'image/webp'
  return undefined
}

export type ClipboardImage =
  | { kind: 'image'; mime: string; bytes: Buffer; via: string }
  /** The clipboard holds no image (text, or nothing): Ctrl+V does nothing more. */
  | { kind: 'none' }
  | { kind: 'failed'; message: string }

export interface ClipboardImageDeps {
  env: Readonly<Record<string, string | undefined>>
  platform: NodeJS.Platform
  /** A program's absolute path outside the workspace (`HostPrograms.find`). */
  find(name: string): string | undefined
  timeoutMs?: number
  maxBytes?: number
}

export async function readClipboardImage(deps: ClipboardImageDeps): Promise<ClipboardImage> {
  const plan = clipboardReaders(deps.env, deps.platform)
  if ('none' in plan) return { kind: 'failed', message: plan.none }
  const found = plan.readers.flatMap((r) =>
    r.programs.map((name) => ({ reader: r, name, path: deps.find(name) })),
  )
  const first = found.find((f) => f.path)
  if (!first?.path) return { kind: 'failed', message: missingProgramNotice(plan.readers) }
  const { reader, name, path } = first
  const maxBytes = deps.maxBytes ?? MAX_CLIPBOARD_IMAGE_BYTES
  const run = (args: readonly string[], limit: number) =>
    runReader(path, args, { env: deps.env, timeoutMs: deps.timeoutMs ?? TIMEOUT_MS, maxBytes: limit })
  let type = 'image/png'
  const listing = readerSteps(reader.kind, name).list
  if (listing) {
    const listed = await run(listing, 64 * 1024)
    // An empty clipboard: wl-paste and xclip exit non-zero ("Nothing is copied", "target TARGETS not available").
    if (listed.kind === 'failed')
      return EMPTY_CLIPBOARD.test(listed.message)
        ? { kind: 'none' }
        : { kind: 'failed', message: `${name}: ${listed.message}` }
    const best = imageTypeOf(listed.output.toString('utf8'))
    if (!best) return { kind: 'none' }
    type = best
  }
  const steps = readerSteps(reader.kind, name, type)
  const read = await run(steps.read, steps.decode === 'raw' ? maxBytes : Math.ceil(maxBytes * 2.1) + 64)
  if (read.kind === 'failed') {
    // osascript and pngpaste say so with a non-zero exit when the clipboard holds no image.
    if (reader.kind === 'macos' && read.exitCode !== undefined) return { kind: 'none' }
    return { kind: 'failed', message: `${name}: ${read.message}` }
  }
  const bytes = decodeOutput(read.output, steps.decode)
  if (bytes.length === 0) return { kind: 'none' }
  if (bytes.length > maxBytes)
    return {
      kind: 'failed',
      message: `the image on the clipboard is over ${sizeText(maxBytes)}`,
    }
  const mime = sniffImage(bytes)
  if (!mime)
    return { kind: 'failed', message: `${name} gave ${type} data that is not a PNG, JPEG, GIF or WebP image` }
  return { kind: 'image', mime, bytes, via: name }
}

type RunResult = { kind: 'ok'; output: Buffer } | { kind: 'failed'; message: string; exitCode?: number }

/** Runs a reader: its stdout, at most `maxBytes` (past that, or past the timeout, it is killed). */
function runReader(
  path: string,
  args: readonly string[],
  opts: { env: Readonly<Record<string, string | undefined>>; timeoutMs: number; maxBytes: number },
): Promise<RunResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    let stderr = ''
    let settled = false
    const finish = (result: RunResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(result)
    }
    const child = spawn(path, [...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...opts.env } })
    const stop = (message: string) => {
      child.kill('SIGKILL')
      finish({ kind: 'failed', message })
    }
    const timer = setTimeout(() => stop(`timed out after ${opts.timeoutMs / 1000} s`), opts.timeoutMs)
    child.stdout?.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > opts.maxBytes) return stop(`the image on the clipboard is over ${sizeText(opts.maxBytes)}`)
      chunks.push(chunk)
    })
    child.stderr?.setEncoding('utf8')
    child.stderr?.on('data', (chunk: string) => {
      if (stderr.length < 2000) stderr += chunk
    })
    child.on('error', (err) => finish({ kind: 'failed', message: err.message }))
    child.on('close', (code, signal) => {
      if (code === 0) return finish({ kind: 'ok', output: Buffer.concat(chunks) })
      const first = stderr.trim().split('\n')[0] ?? ''
      finish({
        kind: 'failed',
        message: first || (signal ? `killed by ${signal}` : `exit status ${code}`),
        ...(code !== null ? { exitCode: code } : {}),
      })
    })
  })
}

function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${Math.round(bytes / 1024)} kB`
}
