import { readFile, stat } from 'node:fs/promises'
import { isAbsolute, resolve } from 'node:path'
import type { ImageAttachment } from '../runtime/commands.js'

export const MAX_IMAGE_BYTES = 20 * 1024 * 1024

/** Detects png/jpeg/gif/webp by magic bytes; the file extension is never trusted. */
export function sniffImageType(bytes: Uint8Array): string | null {
  const at = (i: number) => bytes[i]
  if (at(0) === 0x89 && at(1) === 0x50 && at(2) === 0x4e && at(3) === 0x47) return 'image/png'
  if (at(0) === 0xff && at(1) === 0xd8 && at(2) === 0xff) return 'image/jpeg'
  if (at(0) === 0x47 && at(1) === 0x49 && at(2) === 0x46 && at(3) === 0x38) return 'image/gif'
  const riff = String.fromCharCode(...bytes.subarray(0, 4))
  const webp = String.fromCharCode(...bytes.subarray(8, 12))
  if (riff === 'RIFF' && webp === 'WEBP') return 'image/webp'
  return null
}

/** Loads an image for a user message; throws an Error with a user-facing message. */
export async function loadImageAttachment(path: string, cwd: string): Promise<ImageAttachment> {
  const abs = isAbsolute(path) ? path : resolve(cwd, path)
  let size: number
  try {
    const info = await stat(abs)
    if (!info.isFile()) throw new Error(`${abs} is not a file`)
    size = info.size
  } catch (err) {
    throw new Error(`cannot read image ${abs}: ${err instanceof Error ? err.message : String(err)}`)
  }
  if (size > MAX_IMAGE_BYTES) {
    throw new Error(`image ${abs} is ${(size / 1024 / 1024).toFixed(1)} MB; the limit is 20 MB`)
  }
  const bytes = await readFile(abs)
  const mime = sniffImageType(bytes)
  if (!mime) throw new Error(`${abs} is not a PNG, JPEG, GIF or WebP image`)
  return { path: abs, url: `data:${mime};base64,${bytes.toString('base64')}` }
}
