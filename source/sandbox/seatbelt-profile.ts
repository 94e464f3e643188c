import { type Fence, isInside } from './fence.js'

/**
 * `sandbox-exec`'s arguments for one command (macOS Seatbelt). Pure.
 *
 * The profile is a fixed text: every path reaches it as a `(param "…")` given with `-D`, never spliced
 * into the text, so no file name can change the policy. Paths must be real (Seatbelt matches the
 * resolved path: `/private/tmp`, not `/tmp`).
 *
 * macOS has no private mount namespace, so the temp dirs are writable but shared (not emptied per
 * command, unlike Linux's private /tmp).
 */
export interface SeatbeltPlan {
  fence: Fence
  network: boolean
  /** Temp dirs the command may write (real paths: `/private/tmp`, the user's `$TMPDIR`). */
  tempDirs: readonly string[]
  /** Extra files the command must write (the shell wrapper's cwd file). */
  files?: readonly string[]
  /** Environment variables removed before the command starts (`/usr/bin/env -u`). */
  unsetEnv?: readonly string[]
}

/** Only this binary: a tampered PATH cannot put another `sandbox-exec` in front of it. */
export const SANDBOX_EXEC = '/usr/bin/sandbox-exec'

const BASE_PROFILE = `(version 1)
(deny default)

; Processes: the command and its children, which inherit this profile.
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))

; What ordinary command-line programs ask of the system.
(allow sysctl-read)
(allow ipc-posix-sem)
(allow ipc-posix-shm)
(allow user-preference-read)
(allow iokit-open (iokit-registry-entry-class "RootDomainUserClient"))
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.system.notification_center")
  (global-name "com.apple.cfprefsd.daemon")
  (global-name "com.apple.cfprefsd.agent")
  (local-name "com.apple.cfprefsd.agent"))

; Terminals and the standard devices.
(allow pseudo-tty)
(allow file-ioctl
  (literal "/dev/null")
  (literal "/dev/tty")
  (literal "/dev/ptmx")
  (regex #"^/dev/ttys[0-9]+$"))
(allow file-write*
  (literal "/dev/null")
  (literal "/dev/zero")
  (literal "/dev/tty")
  (literal "/dev/ptmx")
  (literal "/dev/dtracehelper")
  (regex #"^/dev/fd/[0-9]+$")
  (regex #"^/dev/ttys[0-9]+$"))

; The whole file system is readable; writes are allowed below.
(allow file-read*)
`

const NETWORK_PROFILE = `
; Network allowed (sandbox.network: true).
(allow network*)
(allow system-socket)
(allow mach-lookup
  (global-name "com.apple.dnssd.service")
  (global-name "com.apple.SystemConfiguration.DNSConfiguration")
  (global-name "com.apple.SystemConfiguration.configd")
  (global-name "com.apple.networkd")
  (global-name "com.apple.trustd.agent")
  (global-name "com.apple.ocspd"))
`

// Last: network or not, a Unix socket reaches host daemons (Docker, agents). With the network on, name
// resolution goes through mDNSResponder's socket, which stays.
const UNIX_SOCKETS = `
; No Unix socket to a host process.
(deny network-outbound (remote unix-socket))
`
const NAME_RESOLUTION = `(allow network-outbound (remote unix-socket (path-literal "/private/var/run/mDNSResponder")))
`

/** Only this binary strips the environment: a tampered PATH cannot put another `env` in front. */
export const ENV_PROGRAM = '/usr/bin/env'

export function buildSeatbeltArgs(plan: SeatbeltPlan, command: readonly string[]): string[] {
  const params: Array<[string, string]> = []
  const param = (key: string, value: string): string => {
    params.push([key, value])
    return `(param "${key}")`
  }
  const hidden = plan.fence.hidden ?? []
  const hiddenDirs = hidden.filter((h) => h.kind === 'dir').map((h) => h.path)
  // Writable roots inside a hidden directory (the session's outputs in agent-tui's state dir) are shown
  // again after it; what is hidden inside those roots is hidden once more after that.
  const reshown = plan.fence.writable.filter((root) =>
    hiddenDirs.some((dir) => dir !== root && isInside(root, dir)),
  )
  const inReshown = (path: string) => reshown.some((root) => root !== path && isInside(path, root))
  const rootClauses = writableClauses(plan, param)
  const clauses = [...rootClauses.map((c) => c.clause), ...tempAndFileClauses(plan, param)]

  let profile = BASE_PROFILE
  if (clauses.length > 0)
    profile += `\n; Writable roots, minus their protected metadata.\n(allow file-write*\n${clauses.join('\n')})\n`
  const hiddenClauses = (stores: typeof hidden, prefix: string) =>
    stores.map(
      ({ path, kind }, i) => `  (${kind === 'dir' ? 'subpath' : 'literal'} ${param(`${prefix}${i}`, path)})`,
    )
  // After the allows: a later rule wins in Seatbelt.
  const outer = hiddenClauses(
    hidden.filter((h) => !inReshown(h.path)),
    'HIDDEN_',
  )
  if (outer.length > 0)
    profile += `\n; The user's secret stores.\n(deny file-read* file-write*\n${outer.join('\n')})\n`
  if (reshown.length > 0) {
    const again = rootClauses.filter((c) => reshown.includes(c.root)).map((c) => c.clause)
    const read = reshown.map((root, i) => `  (subpath ${param(`RESHOWN_${i}`, root)})`)
    profile += `\n; Writable roots inside a hidden directory.\n(allow file-read*\n${read.join('\n')})\n`
    profile += `(allow file-write*\n${again.join('\n')})\n`
    const inner = hiddenClauses(
      hidden.filter((h) => inReshown(h.path)),
      'HIDDEN_INNER_',
    )
    if (inner.length > 0) profile += `(deny file-read* file-write*\n${inner.join('\n')})\n`
  }
  if (plan.network) profile += NETWORK_PROFILE
  profile += UNIX_SOCKETS
  if (plan.network) profile += NAME_RESOLUTION
  const unset = (plan.unsetEnv ?? []).flatMap((name) => ['-u', name])
  const run = unset.length > 0 ? [ENV_PROGRAM, ...unset, '--', ...command] : [...command]
  return ['-p', profile, ...params.map(([key, value]) => `-D${key}=${value}`), '--', ...run]
}

type Param = (key: string, value: string) => string

/** One `subpath` clause per writable root, minus the protected paths inside it. */
function writableClauses(plan: SeatbeltPlan, param: Param): Array<{ root: string; clause: string }> {
  const protectedPaths = [...plan.fence.readOnly, ...plan.fence.reserved, ...(plan.fence.reservedFiles ?? [])]
  return plan.fence.writable.map((root, i) => {
    const inside = protectedPaths.filter((path) => path !== root && isInside(path, root))
    const rootParam = param(`WRITABLE_ROOT_${i}`, root)
    if (inside.length === 0) return { root, clause: `  (subpath ${rootParam})` }
    // The protected path itself (creating it) and everything below it.
    const excluded = inside.map((path, j) => {
      const p = param(`WRITABLE_ROOT_${i}_RO_${j}`, path)
      return `(require-not (literal ${p})) (require-not (subpath ${p}))`
    })
    return { root, clause: `  (require-all (subpath ${rootParam}) ${excluded.join(' ')})` }
  })
}

function tempAndFileClauses(plan: SeatbeltPlan, param: Param): string[] {
  return [
    ...plan.tempDirs.map((dir, i) => `  (subpath ${param(`TEMP_DIR_${i}`, dir)})`),
    ...(plan.files ?? []).map((file, i) => `  (literal ${param(`FILE_${i}`, file)})`),
  ]
}
