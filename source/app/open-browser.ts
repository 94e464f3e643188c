import { spawn } from 'node:child_process'
import { safePath } from '../util/host-programs.js'

/**
 * Opens a URL in the user's browser, when there is one to open it in: `$BROWSER`, `open` on macOS,
 * `xdg-open` under a graphical session on Linux. Otherwise (SSH, containers) it does nothing; the URL
 * is shown on screen anyway. Returns whether there was a browser to ask (not whether it opened the URL).
 */
export function openBrowser(url: string): boolean {
  const env = process.env
  const command =
    env.BROWSER ||
    (process.platform === 'darwin'
      ? 'open'
      : process.platform === 'linux' && (env.DISPLAY || env.WAYLAND_DISPLAY)
        ? 'xdg-open'
        : undefined)
  if (!command) return false
  try {
    // Found on PATH, never in a folder of the workspace (where the model writes).
    const PATH = safePath(env.PATH, [process.cwd()])
    const child = spawn(command, [url], { stdio: 'ignore', detached: true, env: { ...env, PATH } })
    child.on('error', () => undefined)
    child.unref()
    return true
  } catch {
    // The URL is on screen; not opening it is no failure.
    return false
  }
}
