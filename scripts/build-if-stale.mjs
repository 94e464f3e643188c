// `npm start` and `npm test` build the bundle only when something it is made from changed since the last
// build: a walk of stat calls over source/ (a few ms) instead of a multi-second esbuild run. Anything that
// goes into the bundle counts: the sources (a deleted file changes its folder's mtime), the build script,
// package.json, the lockfiles (a dependency updated by `npm install`) and tsconfig.json.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const INPUTS = [
  'source',
  'scripts/build.mjs',
  'scripts/one-byte-sources.mjs',
  'package.json',
  'package-lock.json',
  'node_modules/.package-lock.json',
  'tsconfig.json',
]

/** Why dist/ must be built again, or null when it is newer than everything it is made from. */
export function staleReason(base = root) {
  let stamp
  try {
    stamp = JSON.parse(readFileSync(join(base, 'dist', '.build-stamp.json'), 'utf8'))
  } catch {
    return 'dist/ was not built by this version of the build'
  }
  if (!existsSync(join(base, 'dist', 'cli.js'))) return 'dist/cli.js is missing'
  if (Boolean(stamp.readable) !== Boolean(process.env.AGENT_TUI_READABLE_BUILD))
    return 'AGENT_TUI_READABLE_BUILD changed'
  for (const input of INPUTS) {
    const changed = newerThan(join(base, input), stamp.startedAt)
    if (changed) return `${relative(base, changed)} changed`
  }
  return null
}

/** The first path under `path` (itself included) modified after `time`, or undefined. */
function newerThan(path, time) {
  let st
  try {
    st = statSync(path)
  } catch {
    return undefined
  }
  if (st.mtimeMs > time) return path
  if (!st.isDirectory()) return undefined
  for (const entry of readdirSync(path)) {
    const changed = newerThan(join(path, entry), time)
    if (changed) return changed
  }
  return undefined
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const reason = staleReason()
  if (reason) {
    process.stderr.write(`agent-tui: building dist/ (${reason})…\n`)
    await import('./build.mjs')
  }
}
