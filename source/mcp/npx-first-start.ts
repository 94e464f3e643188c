import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { basename, join } from 'node:path'
import type { McpServerSettings } from '../config/schema.js'
import { isStdio } from './transports.js'

/**
 * A server started with `npx -y <package>` downloads the package on its first start (a cold npm cache):
 * 12 s for a small package here, minutes for a large one on a slow network, while the normal start-up
 * timeout is seconds. npx writes nothing to a pipe while it installs, and its `_npx/<hash>` folder appears
 * before the install is done, so "installed" is the package's own package.json inside that folder (npm's
 * libnpmexec names it by the first 16 hex digits of the sha512 of the package specs, joined by newlines).
 * Reading the cache, rather than remembering starts, stays right after `npm cache clean`.
 */

/** How long a first start (npm still installing) may take at least: enough for a large package. */
export const FIRST_START_MS = 300_000

/** The package an `npx -y <package> …` (or `npx --yes …`) server runs, or undefined for any other command. */
export function npxPackageOf(settings: McpServerSettings): string | undefined {
  if (!isStdio(settings)) return undefined
  const command = basename(settings.command).replace(/\.(cmd|exe)$/i, '')
  const args = settings.args ?? []
  if (command !== 'npx' || !args.some((a) => a === '-y' || a === '--yes')) return undefined
  return args.find((a) => !a.startsWith('-'))
}

/** The package's name without its version (`@scope/name@1.2` → `@scope/name`). */
function nameOf(spec: string): string {
  const at = spec.indexOf('@', 1)
  return at > 0 ? spec.slice(0, at) : spec
}

/** Whether npx has already installed `spec` in the npm cache the server will use. */
export function npxInstalled(spec: string, cacheDir: string): boolean {
  const hash = createHash('sha512').update(spec).digest('hex').slice(0, 16)
  return existsSync(join(cacheDir, '_npx', hash, 'node_modules', nameOf(spec), 'package.json'))
}

/** The npm cache a server's npx uses: its own `npm_config_cache`, the user's, or npm's default. */
export function npmCacheOf(
  settings: McpServerSettings,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const own = isStdio(settings) ? settings.env?.npm_config_cache : undefined
  return own ?? env.npm_config_cache ?? join(env.HOME ?? homedir(), '.npm')
}

/** How long this start may take, and why, for an npx server on a cold cache. */
export interface StartAllowance {
  ms: number
  /** The package npm is installing (a first start), if it is one. */
  installing?: string
}

export function startAllowance(opts: {
  spec: { settings: McpServerSettings }
  startupTimeoutMs: number
  env: Readonly<Record<string, string | undefined>>
  firstStartMs?: number
}): StartAllowance {
  const { settings } = opts.spec
  const spec = npxPackageOf(settings)
  if (spec === undefined || npxInstalled(spec, npmCacheOf(settings, opts.env)))
    return { ms: opts.startupTimeoutMs }
  return { ms: Math.max(opts.startupTimeoutMs, opts.firstStartMs ?? FIRST_START_MS), installing: spec }
}

/** `start`, or a rejection with the start-up timeout's message once the allowance is spent. */
export async function withinAllowance<T>(
  allow: StartAllowance,
  start: Promise<T>,
  fail: (message: string) => Error,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(fail(startTimeoutMessage(allow))), allow.ms)
  })
  try {
    return await Promise.race([start, late])
  } finally {
    clearTimeout(timer)
  }
}

/** The start-up timeout's message, naming npm's install when that is what it waited for. */
export function startTimeoutMessage(allowance: StartAllowance): string {
  const seconds = Math.round(allowance.ms / 100) / 10
  if (allowance.installing === undefined) return `did not start within ${seconds} s (startupTimeoutSeconds)`
  return `did not start within ${seconds} s: npm was still installing ${allowance.installing} (the first start of an npx server downloads it); run \`npx -y ${allowance.installing}\` once in a terminal, or raise startupTimeoutSeconds`
}
