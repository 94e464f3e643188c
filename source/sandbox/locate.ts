import { accessSync, constants, statSync } from 'node:fs'
import { isAbsolute } from 'node:path'
import { SANDBOX_EXEC } from './seatbelt-profile.js'

/**
 * Finds the OS sandbox program once per session, by absolute path only. Looking it up through PATH at
 * each call would let anything that can write to a PATH directory (a workspace's `node_modules/.bin`,
 * which a sandboxed command *can* write) put a fake `bwrap` in front that runs commands unsandboxed.
 */

/** Where distributions install bubblewrap. */
export const BWRAP_PATHS = ['/usr/bin/bwrap', '/bin/bwrap', '/usr/local/bin/bwrap'] as const

/**
 * Overrides BWRAP_PATHS (one absolute path) for unusual installs and for tests, which point it at a
 * path that does not exist to see the "not installed" path. Read from agent-tui's own environment,
 * which a sandboxed command cannot change.
 */
export const BWRAP_ENV = 'AGENT_TUI_BWRAP'

export type SandboxTool =
  | { kind: 'bwrap'; path: string }
  | { kind: 'seatbelt'; path: string }
  | { kind: 'missing'; why: 'not-installed' | 'unsupported' | 'bad-override'; detail: string }

export function locateSandboxTool(
  platform: NodeJS.Platform,
  env: Readonly<Record<string, string | undefined>>,
): SandboxTool {
  if (platform === 'darwin') {
    return isExecutable(SANDBOX_EXEC)
      ? { kind: 'seatbelt', path: SANDBOX_EXEC }
      : { kind: 'missing', why: 'not-installed', detail: `${SANDBOX_EXEC} is missing` }
  }
  if (platform !== 'linux') {
    return { kind: 'missing', why: 'unsupported', detail: `no OS sandbox is supported on ${platform}` }
  }
  const override = env[BWRAP_ENV]
  if (override !== undefined && override !== '') {
    if (!isAbsolute(override)) {
      return {
        kind: 'missing',
        why: 'bad-override',
        detail: `${BWRAP_ENV} must be an absolute path (got "${override}")`,
      }
    }
    return isExecutable(override)
      ? { kind: 'bwrap', path: override }
      : {
          kind: 'missing',
          why: 'not-installed',
          detail: `${override} (${BWRAP_ENV}) is not an executable file`,
        }
  }
  const found = BWRAP_PATHS.find(isExecutable)
  return found
    ? { kind: 'bwrap', path: found }
    : { kind: 'missing', why: 'not-installed', detail: `looked for ${BWRAP_PATHS.join(', ')}` }
}

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

const INSTALL =
  'Install bubblewrap — Debian/Ubuntu: sudo apt-get install bubblewrap · Fedora: sudo dnf install bubblewrap · ' +
  'Arch: sudo pacman -S bubblewrap — and start agent-tui again.'
const FALLBACK = 'Until then every Bash command asks before it runs, unsandboxed.'

/** The one notice a session shows when the sandbox it was asked for cannot run. */
export function unavailableNotice(
  tool:
    | SandboxTool
    | { kind: 'failed'; program: string; detail: string }
    | { kind: 'no-filter'; arch: string },
): string {
  switch (tool.kind) {
    case 'no-filter':
      return (
        `Bash sandbox unavailable: agent-tui has no seccomp filter for ${tool.arch} (only x64 and arm64), ` +
        `so a sandboxed command could reach host services through Unix sockets. ${FALLBACK}`
      )
    case 'missing':
      if (tool.why === 'unsupported') return `Bash sandbox unavailable: ${tool.detail}. ${FALLBACK}`
      if (tool.why === 'bad-override') return `Bash sandbox unavailable: ${tool.detail}. ${FALLBACK}`
      return tool.detail.startsWith(SANDBOX_EXEC)
        ? `Bash sandbox unavailable: ${tool.detail}. ${FALLBACK}`
        : `Bash sandbox unavailable: bubblewrap (bwrap) is not installed (${tool.detail}). ${INSTALL} ${FALLBACK}`
    case 'failed':
      return (
        `Bash sandbox unavailable: ${tool.program} could not start a sandbox (${tool.detail}). ` +
        (tool.program.endsWith('bwrap')
          ? 'If unprivileged user namespaces are disabled, enable them (sysctl kernel.unprivileged_userns_clone=1; ' +
            'on Ubuntu 24.04 and later kernel.apparmor_restrict_unprivileged_userns=0). '
          : '') +
        FALLBACK
      )
    default:
      return `Bash sandbox unavailable. ${FALLBACK}`
  }
}
