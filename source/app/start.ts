import { homedir } from 'node:os'
import { resolveEndpoint } from '../config/endpoint.js'
import { mayHaveNativeApi } from '../config/served-window.js'
import { ConfigError, UsageError } from '../config/errors.js'
import type { ParsedArgs } from '../config/flags.js'
import { tildePath } from '../config/project-trust.js'
import { settingsEnv } from '../config/settings-env.js'
import { pricesForModel } from '../provider/prices.js'
import { type EarlyFrame, paintEarlyFrame } from '../ui/terminal/early-frame.js'
import {
  type BackgroundProbe,
  backgroundFromColorFgBg,
  createBackgroundProbe,
} from '../ui/terminal/background-query.js'
import { PALETTES, themeNameFor } from '../ui/components/palette.js'
import { createTheme } from '../ui/components/theme.js'
import { tuneProcess } from '../engine/tuning.js'
import { openDebugLog } from './debug-log.js'
import { readGitBranch } from './session/git-branch.js'
import { SessionError } from './session-error.js'
import { readStdin } from './stdin.js'
import { cleanedWriter } from '../util/display-text.js'
import { endpointOptionsOf, headlessEndpoint, openRunConfig } from './run-config.js'
import { headersFor, withHeaders } from '../config/headers.js'

/** Loads configuration, finds the endpoint, and runs headless or the TUI. Returns the exit code. */
export async function start(args: ParsedArgs): Promise<number> {
  const env = process.env
  const workspace = process.cwd()
  // What is said on stderr quotes settings files and servers: cleaned (util/display-text.ts).
  const err = cleanedWriter(process.stderr)
  let earlyFrame: EarlyFrame | null = null
  const tuning = tuneProcess()
  try {
    const home = env.HOME || homedir()
    const { paths, trust, configFor, config: first } = await openRunConfig(args, { workspace, env, home })
    let config = first
    for (const warning of config.warnings) err.write(`agent-tui: warning: ${warning}\n`)
    // The settings' `env` (Claude Code's too), as the folder's trust is at start.
    const { apply, skipped } = settingsEnv(config.env)
    Object.assign(process.env, apply)
    if (skipped.length > 0)
      err.write(
        `agent-tui: warning: "env" in settings: ${skipped.join(', ')} not set (agent-tui reads its own variables before the settings; set them in the shell)\n`,
      )
    if (config.headless && !config.prompt && process.stdin.isTTY && !args.rewindTo) {
      throw new UsageError('-p needs a prompt: agent-tui -p "what to do"')
    }
    if (!config.headless && !(process.stdin.isTTY && process.stdout.isTTY)) {
      throw new UsageError(
        'the full-screen session needs a terminal (stdin and stdout must be a TTY); for scripts and pipes use -p "prompt"',
      )
    }
    const resume = args.continue
      ? ({ kind: 'continue' } as const)
      : typeof args.resume === 'string'
        ? ({ kind: 'id', id: args.resume } as const)
        : undefined
    // With a URL and a model configured the TUI has all it needs to open: the listing (which only adds the
    // context length from the model metadata) must not hold back the first frame — a remote /models can
    // take a second.
    const listLater = !config.headless && config.baseUrl !== undefined && config.model !== undefined
    // The session's frame is known now but for a resumed transcript, which only the UI can render: draw
    // the rest while the UI loads, so the user can start typing. (A bare --resume opens a picker instead.)
    // The `auto` theme asks the terminal its background once the frame is up (COLORFGBG until it answers).
    const themeSetting = config.settings.theme ?? 'auto'
    const background: BackgroundProbe | undefined =
      !config.headless && themeSetting === 'auto' && process.stdin.isTTY && process.stdout.isTTY
        ? createBackgroundProbe({ fallback: backgroundFromColorFgBg(env.COLORFGBG) })
        : undefined
    if (listLater && config.model !== undefined && args.resume !== true) {
      const palette = themeNameFor(themeSetting, background?.background())
      earlyFrame = paintEarlyFrame({
        ...(palette === 'dark' ? {} : { theme: createTheme({ palette: PALETTES[palette] }) }),
        ...(background ? { background } : {}),
        stdin: process.stdin,
        stdout: process.stdout,
        mode: config.mode,
        model: config.model,
        cwd: workspace,
        branch: readGitBranch(workspace),
        prices: pricesForModel(config.model),
        resumed: resume !== undefined,
      })
    }
    if (!config.headless) await tuning.beforeUi()
    // Compile the UI and session modules while the endpoint probe waits on the network.
    const preload = config.headless ? undefined : loadInteractiveInStages()
    preload?.catch(() => undefined)
    const endpointOptions = endpointOptionsOf(config)
    // The full-screen session asks a local server what window it serves after its first frame.
    const servedLater = !config.headless && !listLater
    const endpoint = await resolveEndpoint(
      listLater
        ? { ...endpointOptions, probe: false }
        : { ...endpointOptions, ...(servedLater ? { servedWindow: false } : {}) },
    )
    // Listed over the provider's own fetch (node:http, loaded by then): the global fetch would set up
    // undici's connection machinery for this one request, ~10 ms of CPU just after start-up.
    // A local server is listed again after the frame, asking its own API when the listing does not say.
    const later = listLater
      ? endpointOptions
      : servedLater && endpoint.kind !== 'none' && endpoint.model && mayHaveNativeApi(endpoint.baseUrl)
        ? {
            baseUrl: endpoint.baseUrl,
            model: endpoint.model,
            ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
            ...withHeaders(headersFor(config.headers, endpoint.baseUrl)),
          }
        : undefined
    const describeEndpoint = later
      ? async () => {
          const { createNodeFetch } = await import('../provider/node-fetch.js')
          return resolveEndpoint({ ...later, fetchImpl: createNodeFetch() })
        }
      : undefined
    if (args.resume === true && config.headless) {
      throw new UsageError(
        '--resume without an id opens a picker, which needs the interactive TUI; pass an id with -p',
      )
    }
    const debug = args.debug ? openDebugLog(paths.debugDir, String(process.pid)) : undefined
    // Only the rules can still change here: a settings.local.json that sets more was checked before.
    if (await trust.settled()) config = configFor(trust.isTrusted())
    const projectTrust = { trust, configFor }

    if (config.headless) {
      const found = headlessEndpoint(config, endpoint, tildePath(paths.userSettingsFile, home))
      if (!found.ok) {
        err.write(`${found.message}\n`)
        return 2
      }
      // A rewind on its own needs no prompt, so it does not wait for stdin either.
      const rewindOnly = args.rewindTo !== undefined && !config.prompt
      const stdin = process.stdin.isTTY || rewindOnly ? '' : await readStdin(process.stdin)
      const prompt = [config.prompt ?? '', stdin ? `<stdin>\n${stdin}\n</stdin>` : '']
        .filter(Boolean)
        .join('\n\n')
      if (!prompt.trim() && !rewindOnly)
        throw new UsageError('-p needs a prompt (as an argument or on stdin)')
      const { runHeadless } = await import('./run-headless.js')
      tuning.firstTurn()
      return await runHeadless({
        args,
        prompt,
        config,
        paths,
        workspace,
        endpoint: found.endpoint,
        ...(resume ? { resume } : {}),
        ...(debug ? { debug } : {}),
        ...(args.agent ? { agent: args.agent } : {}),
        projectTrust,
        holdYoungGeneration: tuning.holdYoungGeneration,
      })
    }

    await preload?.catch(() => undefined)
    const { runInteractive } = await import('./run-interactive.js')
    return await runInteractive({
      args,
      config,
      paths,
      workspace,
      endpoint,
      ...(describeEndpoint ? { describeEndpoint } : {}),
      ...(resume ? { resume } : {}),
      ...(debug ? { debug } : {}),
      ...(earlyFrame ? { earlyFrame } : {}),
      ...(background ? { background } : {}),
      tuning,
      projectTrust,
    })
  } catch (error) {
    // Back to the normal screen first, or the message would be written to the one about to vanish.
    earlyFrame?.abandon()
    if (error instanceof UsageError || error instanceof ConfigError) {
      err.write(`agent-tui: ${error.message}\n`)
      return 2
    }
    if (error instanceof SessionError) {
      err.write(`agent-tui: ${error.message}\n`)
      return 2
    }
    throw error
  } finally {
    earlyFrame?.abandon()
  }
}

/**
 * The modules of the full-screen session, loaded part by part with the event loop turning in between, so
 * keys typed at the early frame are echoed between two parts rather than after all of them.
 */
async function loadInteractiveInStages(): Promise<void> {
  const { loadUiInStages } = await import('../ui/load-ui.js')
  await loadUiInStages(turnEventLoop)
  await turnEventLoop()
  await import('./session/create-session.js')
  await turnEventLoop()
  await import('./run-interactive.js')
}

/**
 * Resolves after the event loop has polled for input once: two check phases apart, as a single
 * `setImmediate` from an I/O callback runs before the next poll.
 */
function turnEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)))
}
