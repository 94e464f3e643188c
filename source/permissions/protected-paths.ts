import { basename, isAbsolute, relative, sep } from 'node:path'
import picomatch from 'picomatch'
import { PROJECT_START_UP, type StartUpPath } from './start-up-files.js'

/**
 * Protected paths and the read boundary (docs/permissions.md#protected-paths-beat-allow-rules,
 * #reads-have-a-boundary-too), judged on both the path as named and its real path
 * (symlinks resolved), so `gitlink/config` with `gitlink -> .git` is a write to `.git/`. Pure.
 */

export interface Boundary {
  /** Real path of the workspace. */
  workspace: string
  /** Real paths of directories added with `--add-dir` / `additionalDirectories`: readable and writable like the workspace. */
  additionalDirs: readonly string[]
  /** Real paths the session may always read (its own outputs). */
  trustedReadDirs: readonly string[]
  /**
   * agent-tui's own settings and state dirs (real paths). Inside the workspace only when agent-tui runs
   * in the home folder: what they hold (settings, trusted folders) must not be rewritten unasked.
   */
  appDirs?: readonly string[]
  /**
   * Files and folders that run code at a later start (start-up-files.ts), at the home directory and at
   * their real paths (a dotfiles repository `~/.bashrc` links into). Writes there ask.
   */
  startUp?: readonly StartUpPath[]
}

export interface Objection {
  /** Human text, e.g. `writes to .git/ always ask`. */
  reason: string
  /** Asks even in dangerous mode (`.git/`). */
  always: boolean
  /** The path that raised it, when only the real path did (`gitlink/config` → `.git/config`). */
  resolvedTo?: string
}

const SECRET_FILE =
  /^(\.env(\..*)?|.*\.(pem|key|p12|pfx|keystore|jks|ppk)|id_(rsa|dsa|ecdsa|ed25519)(\..*)?|\.npmrc|\.netrc|_netrc|\.pypirc|\.git-credentials|\.htpasswd|\.pgpass|\.my\.cnf|\.vault-token|\.?credentials(\.json)?|application_default_credentials\.json)$/
/** `.env` templates that hold no secrets by convention. */
const ENV_TEMPLATE = /^\.env\.(example|sample|template|dist)$/
const SECRET_DIRS = new Set(['.ssh', '.aws', '.gnupg', '.azure', '.password-store'])
/** Secret stores that are a directory inside another one (`~/.config/gh`, `~/.docker/config.json`). */
const SECRET_SUFFIXES = [
  `${sep}.config${sep}gh${sep}`,
  `${sep}.config${sep}gcloud${sep}`,
  `${sep}.kube${sep}config`,
  `${sep}.docker${sep}config.json`,
]

/**
 * ripgrep globs (case-insensitive, any depth) for the secrets files and stores above, kept in step with
 * SECRET_FILE and SECRET_DIRS: a search of a directory leaves them out, since reading one asks.
 * (`.env` templates go too; a Read of one does not ask.)
 */
export const SECRET_SEARCH_GLOBS: readonly string[] = [
  '.env',
  '.env.*',
  '*.{pem,key,p12,pfx,keystore,jks,ppk}',
  'id_{rsa,dsa,ecdsa,ed25519}*',
  '{.npmrc,.netrc,_netrc,.pypirc,.git-credentials,.htpasswd,.pgpass,.my.cnf,.vault-token}',
  '{credentials,credentials.json,.credentials.json,application_default_credentials.json}',
  ...SECRET_DIRS,
]

/** Names a glob is tested against: if it could match one of them, it may reach a protected file. */
const SECRET_SAMPLES = [
  '.env',
  '.env.local',
  'id_rsa',
  'id_ed25519',
  'server.pem',
  'tls.key',
  '.npmrc',
  '.netrc',
  '.git-credentials',
  'credentials',
]
const GUARDED_DIR_SAMPLES = ['.git', '.agent-tui', '.claude', ...SECRET_DIRS]

/**
 * Configuration and instructions agent-tui (and Claude Code) read from a folder, protected at any depth:
 * a session started in a subfolder reads that subfolder's. `.agent-tui/` holds the memory file, and
 * `.claude/` is read as Claude Code's setup. Kept in step with PROTECTED_NAMES in source/sandbox/fence.ts.
 */
const CONFIG_DIRS: ReadonlyMap<string, string> = new Map([
  ['.agent-tui', 'writes to .agent-tui/ always ask'],
  ['.claude', 'writes to .claude/ always ask (settings, hooks and commands live there)'],
])
const CONFIG_FILES: ReadonlyMap<string, string> = new Map([
  ['.mcp.json', 'writes to .mcp.json always ask (it names programs agent-tui starts)'],
  // Claude Code's ~/.claude.json (in the workspace when agent-tui runs in the home folder): its MCP servers.
  ['.claude.json', 'writes to .claude.json always ask (it names programs agent-tui starts)'],
  ['agents.md', 'writes to instruction files (AGENTS.md) always ask'],
  ['claude.md', 'writes to instruction files (CLAUDE.md) always ask'],
  ['claude.local.md', 'writes to instruction files (CLAUDE.local.md) always ask'],
])
/** Names the last segment of a glob is tested against for the files above (`sed -i … sub/AGENTS.m?`). */
const CONFIG_FILE_SAMPLES = ['.mcp.json', '.claude.json', 'AGENTS.md', 'CLAUDE.md', 'CLAUDE.local.md']

/**
 * A path segment as a case-insensitive file system (macOS by default) sees it: `.GIT` is `.git`, and
 * HFS+ also ignores some invisible code points (`.g\u200cit`). Protected names are compared this way,
 * so a spelling that reaches `.git/` there is caught; on Linux such a name only costs a prompt.
 */
export function foldName(segment: string): string {
  return segment
    .normalize('NFC')
    .replace(/[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g, '')
    .toLowerCase()
}

const segmentsOf = (path: string) => path.split(sep).map(foldName)

export function isInside(abs: string, dir: string): boolean {
  const rel = relative(dir, abs)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

function rootOf(abs: string, b: Boundary): string | undefined {
  return [b.workspace, ...b.additionalDirs].find((root) => isInside(abs, root))
}

/** The secret file or store `abs` is part of, for messages (`.env`, `.ssh`), or undefined. */
export function secretName(abs: string, b: Boundary): string | undefined {
  const root = rootOf(abs, b)
  const segments = segmentsOf(root === undefined ? abs : relative(root, abs))
  const name = basename(abs)
  const folded = foldName(name)
  if (SECRET_FILE.test(folded) && !ENV_TEMPLATE.test(folded)) return name
  const dir = segments.find((s) => SECRET_DIRS.has(s))
  if (dir) return dir
  const lower = segmentsOf(abs).join(sep)
  const suffix = SECRET_SUFFIXES.find((s) => `${lower}${sep}`.includes(s) || lower.endsWith(s))
  return suffix?.split(sep).filter(Boolean).join('/')
}

function writeObjectionOf(abs: string, b: Boundary): Omit<Objection, 'resolvedTo'> | undefined {
  if (segmentsOf(abs).includes('.git')) return { reason: 'writes to .git/ always ask', always: true }
  const root = rootOf(abs, b)
  if (root === undefined) return { reason: `writes outside ${boundaryName(b)} always ask`, always: false }
  if (b.appDirs?.some((dir) => isInside(abs, dir)))
    return { reason: "writes to agent-tui's own settings and state always ask", always: false }
  // At any depth: a later session started in that subfolder reads them, and its trust may come from a
  // parent. `.mcp.json` and hooks name programs agent-tui starts, unsandboxed, once the folder is trusted.
  const inRoot = segmentsOf(relative(root, abs))
  const dir = inRoot.find((s) => CONFIG_DIRS.has(s))
  if (dir) return { reason: CONFIG_DIRS.get(dir)!, always: false }
  const file = inRoot.find((s) => CONFIG_FILES.has(s))
  if (file) return { reason: CONFIG_FILES.get(file)!, always: false }
  const later = startUpObjectionOf(abs, inRoot, b)
  if (later) return later
  const secret = secretName(abs, b)
  if (secret) return { reason: `writes to secrets files (${secret}) always ask`, always: false }
  return undefined
}

/** A file or folder that runs code at a later start, outside the sandbox (start-up-files.ts). */
function startUpObjectionOf(
  abs: string,
  inRoot: readonly string[],
  b: Boundary,
): Omit<Objection, 'resolvedTo'> | undefined {
  const project = inRoot.find((s) => PROJECT_START_UP.has(s))
  if (project)
    return { reason: `writes to ${project}/ always ask (${PROJECT_START_UP.get(project)})`, always: false }
  const folded = segmentsOf(abs).join(sep)
  const entry = b.startUp?.find((e) => {
    const path = segmentsOf(e.path).join(sep)
    return folded === path || (e.kind === 'dir' && folded.startsWith(`${path}${sep}`))
  })
  if (!entry) return undefined
  return {
    reason: `writes to ${entry.shown}${entry.kind === 'dir' ? '/' : ''} always ask (${entry.why})`,
    always: false,
  }
}

/**
 * Why a glob written below `dir` (`sed -i … ~/.b*`, `rm -rf .v*`) may reach a start-up file or folder:
 * an entry in `dir` whose first name the pattern's first segment could match, or a project's `.vscode/`
 * or `.idea/` any segment could (dotfiles only when the pattern names the dot, as bash globs them).
 */
export function startUpGlobObjection(dir: string, pattern: string, b: Boundary): Objection | undefined {
  const segments = pattern.split('/').filter((s) => s !== '')
  const test = (glob: string | undefined) => picomatch(glob ?? '', { dot: false, nocase: true })
  const first = test(segments[0])
  const entry = b.startUp?.find((e) => {
    if (e.path === dir || !isInside(e.path, dir)) return false
    return first(relative(dir, e.path).split(sep)[0] ?? '')
  })
  if (entry) {
    return {
      reason: `"${pattern}" may match ${entry.shown}, which always asks (${entry.why})`,
      always: false,
    }
  }
  for (const segment of segments) {
    const name = [...PROJECT_START_UP.keys()].find((n) => test(segment)(n))
    if (name) {
      return {
        reason: `"${pattern}" may match ${name}/, which always asks (${PROJECT_START_UP.get(name)})`,
        always: false,
      }
    }
  }
  return undefined
}

function readObjectionOf(abs: string, b: Boundary): Omit<Objection, 'resolvedTo'> | undefined {
  if (rootOf(abs, b) === undefined)
    return { reason: `reads outside ${boundaryName(b)} need consent`, always: false }
  const secret = secretName(abs, b)
  if (secret) return { reason: `reads of secrets files (${secret}) need consent`, always: false }
  return undefined
}

function boundaryName(b: Boundary): string {
  return b.additionalDirs.length > 0 ? 'the workspace and the added directories' : 'the workspace'
}

function judgeBoth(
  lexical: string,
  real: string,
  judge: (abs: string) => Omit<Objection, 'resolvedTo'> | undefined,
): Objection | undefined {
  const named = judge(lexical)
  const resolved = real === lexical ? undefined : judge(real)
  // `.git/` (always) wins over a milder objection of the other path.
  if (resolved && (!named || (resolved.always && !named.always))) return { ...resolved, resolvedTo: real }
  return named
}

/** Why writing `lexical` (really `real`) must be confirmed: `.git/` (always), outside, `.agent-tui/`, secrets. */
export function writeObjection(lexical: string, real: string, b: Boundary): Objection | undefined {
  return judgeBoth(lexical, real, (abs) => writeObjectionOf(abs, b))
}

/** Why reading `lexical` (really `real`) must be confirmed: outside the boundary, or a secrets file. */
export function readObjection(lexical: string, real: string, b: Boundary): Objection | undefined {
  if (isTrustedRead(real, b)) return undefined
  return judgeBoth(lexical, real, (abs) => readObjectionOf(abs, b))
}

export function isTrustedRead(real: string, b: Boundary): boolean {
  return b.trustedReadDirs.some((dir) => isInside(real, dir))
}

/**
 * Why a glob (`rm -rf .g*`, `cat .env*`) below an unobjectionable directory may still reach a protected
 * name. Bash globs skip dotfiles unless the pattern names the dot, as picomatch does with `dot: false`.
 * `sandboxed`: the command runs in an OS sandbox that binds every existing `.claude/`, `.mcp.json` and
 * instruction file read-only, and a glob only reaches names that exist, so those no longer object.
 */
export function globObjection(
  pattern: string,
  role: 'read' | 'write',
  opts: { sandboxed?: boolean } = {},
): Objection | undefined {
  const segments = pattern.split('/').filter((s) => s !== '')
  const last = segments.at(-1) ?? ''
  const matches = (glob: string, names: readonly string[]) => {
    const test = picomatch(glob, { dot: false, nocase: true })
    return names.find((n) => test(n))
  }
  for (const segment of role === 'write' ? segments : segments.slice(0, -1)) {
    const dir = matches(
      segment,
      opts.sandboxed ? GUARDED_DIR_SAMPLES.filter((d) => d !== '.claude') : GUARDED_DIR_SAMPLES,
    )
    if (dir === '.git' && role === 'write')
      return { reason: `"${pattern}" may match .git/; writes to .git/ always ask`, always: true }
    if (dir && (role === 'write' || SECRET_DIRS.has(dir)))
      return {
        reason: `"${pattern}" may match ${dir}/, which ${role === 'write' ? 'always asks' : 'needs consent'}`,
        always: false,
      }
  }
  // A bare `*` matches any name, so it would flag every glob; a pattern with literal text (`*.pem`, `id_*`,
  // `.env*`) names what it is after.
  const named = !/^[*?]+$/.test(last)
  const config = role === 'write' && named && !opts.sandboxed ? matches(last, CONFIG_FILE_SAMPLES) : undefined
  if (config) return { reason: `"${pattern}" may match ${config}, which always asks`, always: false }
  const secret = named ? matches(last, SECRET_SAMPLES) : undefined
  if (secret)
    return {
      reason: `"${pattern}" may match secrets files (${secret}), which ${role === 'write' ? 'always ask' : 'need consent'}`,
      always: false,
    }
  return undefined
}
