/**
 * The `sandbox` setting and the `--sandbox` / `--no-sandbox` flags, as one normalised value. Pure.
 *
 * Settings accept the short form `"off"` / `"workspace-write"` or `{ "mode": …, "network": true }`.
 */

export type SandboxMode = 'off' | 'workspace-write'

export interface SandboxConfig {
  mode: SandboxMode
  /** Whether sandboxed commands may use the network (default false: no network at all). */
  network: boolean
}

export type SandboxSetting = SandboxMode | { mode: SandboxMode; network?: boolean | undefined }

export const SANDBOX_OFF: SandboxConfig = { mode: 'off', network: false }

export function normalizeSandbox(setting: SandboxSetting | undefined): SandboxConfig {
  if (setting === undefined) return SANDBOX_OFF
  if (typeof setting === 'string') return { mode: setting, network: false }
  return { mode: setting.mode, network: setting.mode === 'off' ? false : (setting.network ?? false) }
}

/**
 * The run's sandbox: a flag beats the settings (`--sandbox` turns it on keeping the settings' network
 * choice, `--no-sandbox` turns it off).
 */
export function resolveSandbox(
  flag: 'on' | 'off' | undefined,
  setting: SandboxSetting | undefined,
): SandboxConfig {
  const fromSettings = normalizeSandbox(setting)
  if (flag === 'off') return SANDBOX_OFF
  if (flag === 'on') return { mode: 'workspace-write', network: fromSettings.network }
  return fromSettings
}

/**
 * Whether `next` fences commands at least as tightly as `base` does *and* cannot change what runs
 * without asking. Turning the sandbox on is not such a change: in auto mode a sandboxed command runs
 * without asking, so a repository that switches it on changes what happens unasked. Keeping it on and
 * taking the network away is.
 */
export function isSandboxTightening(base: SandboxConfig, next: SandboxConfig): boolean {
  if (base.mode === 'off') return next.mode === 'off'
  if (next.mode === 'off') return false
  return base.network || !next.network
}

export function describeSandbox(config: SandboxConfig): string {
  if (config.mode === 'off') return 'off'
  return config.network ? 'workspace-write with network' : 'workspace-write, no network'
}
