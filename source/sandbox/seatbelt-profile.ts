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

export function buildSeatbeltArgs(plan: SeatbeltPlan, command: readonly string[]): string[] {
  const params: Array<[string, string]> = []
  const param = (key: string, value: string): string => {
    params.push([key, value])
    return `(param "${key}")`
  }
  const protectedPaths = [...plan.fence.readOnly, ...plan.fence.reserved]
  const clauses: string[] = []
  for (const [i, root] of plan.fence.writable.entries()) {
    const inside = protectedPaths.filter((path) => path !== root && isInside(path, root))
    const rootParam = param(`WRITABLE_ROOT_${i}`, root)
    if (inside.length === 0) {
      clauses.push(`  (subpath ${rootParam})`)
      continue
    }
    // The protected path itself (creating it) and everything below it.
    const excluded = inside.map((path, j) => {
      const p = param(`WRITABLE_ROOT_${i}_RO_${j}`, path)
      return `(require-not (literal ${p})) (require-not (subpath ${p}))`
    })
    clauses.push(`  (require-all (subpath ${rootParam}) ${excluded.join(' ')})`)
  }
  for (const [i, dir] of plan.tempDirs.entries()) clauses.push(`  (subpath ${param(`TEMP_DIR_${i}`, dir)})`)
  for (const [i, file] of (plan.files ?? []).entries())
    clauses.push(`  (literal ${param(`FILE_${i}`, file)})`)

  let profile = BASE_PROFILE
  if (clauses.length > 0)
    profile += `\n; Writable roots, minus their protected metadata.\n(allow file-write*\n${clauses.join('\n')})\n`
  const hidden = (plan.fence.hidden ?? []).map(
    ({ path, kind }, i) => `  (${kind === 'dir' ? 'subpath' : 'literal'} ${param(`HIDDEN_${i}`, path)})`,
  )
  // After the allows: a later rule wins in Seatbelt.
  if (hidden.length > 0)
    profile += `\n; The user's secret stores.\n(deny file-read* file-write*\n${hidden.join('\n')})\n`
  if (plan.network) profile += NETWORK_PROFILE
  return ['-p', profile, ...params.map(([key, value]) => `-D${key}=${value}`), '--', ...command]
}
