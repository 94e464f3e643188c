import {
  closeSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  statSync,
} from 'node:fs'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'

/** Small questions to the file system for footprint.ts. None throws. */

/** `@scope/pkg@1.2` → `@scope/pkg`; `pkg@latest` → `pkg`. */
export function packageName(spec: string): string {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0)
  return at > 0 ? spec.slice(0, at) : spec
}

/** The `node_modules/<pkg>` (or `@scope/pkg`) folder that holds `path`, or the virtualenv it is in. */
export function packageDirOf(path: string): string | undefined {
  const parts = path.split(sep)
  const at = parts.lastIndexOf('node_modules')
  const pkg = parts[at + 1]
  if (at >= 0 && pkg !== undefined && pkg !== '.bin')
    return parts.slice(0, at + (pkg.startsWith('@') ? 3 : 2)).join(sep)
  let dir = dirname(path)
  for (let i = 0; i < 3 && dirname(dir) !== dir; i++, dir = dirname(dir)) {
    if (exists(join(dir, 'pyvenv.cfg'))) return dir
  }
  return undefined
}

export function optionValues(args: readonly string[], names: readonly string[]): string[] {
  const out: string[] = []
  args.forEach((arg, i) => {
    for (const name of names) {
      const next = args[i + 1]
      if (arg === name && next !== undefined) out.push(next)
      else if (arg.startsWith(`${name}=`)) out.push(arg.slice(name.length + 1))
    }
  })
  return out
}

export function gitDirOf(dotGit: string, dir: string): string | undefined {
  const match = readSmall(dotGit).match(/^gitdir:\s*(.+?)\s*$/m)
  return match?.[1] ? resolve(dir, match[1]) : undefined
}

export function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path)
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}

export function exists(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

export function isExecutableFile(path: string): boolean {
  try {
    const stat = statSync(path)
    return stat.isFile() && (stat.mode & 0o111) !== 0
  } catch {
    return false
  }
}

export function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path)
  } catch {
    return undefined
  }
}

export function listNames(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

/** The first bytes of a file (a script's `#!` line). */
export function readHead(path: string): string {
  try {
    const fd = openSync(path, 'r')
    try {
      const buffer = Buffer.alloc(256)
      return buffer.toString('utf8', 0, readSync(fd, buffer, 0, 256, 0)).split('\n')[0] ?? ''
    } finally {
      closeSync(fd)
    }
  } catch {
    return ''
  }
}

/** A small text file (package.json, a `.git` file); '' when missing or too large to be one. */
export function readSmall(path: string): string {
  try {
    return statSync(path).size > 1024 * 1024 ? '' : readFileSync(path, 'utf8')
  } catch {
    return ''
  }
}
